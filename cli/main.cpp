// The quench command line: run, validate, list plugins, use saved models.
//   quench run FILE [--out DIR] [--threads N] [--plugin-path DIR]... [--allow-pipeline-plugins]
//   quench validate FILE [--plugin-path DIR]...
//   quench plugins [--plugin-path DIR]...
//   quench predict MODEL DATA.csv --out PREDICTIONS.csv [--ignore-extra-columns]
//   quench info MODEL
// Exit codes: 0 success (also --help, --version); 1 data, plugin or I/O error (also an output
// directory that is not a quench report); 2 invalid pipeline (its data included) or
// command-line usage (CLI11's own parse-error codes are mapped to it); 3 a run finished with a
// failed or non-converged status (results are still written); 130 / 143 interrupted by
// SIGINT / SIGTERM (nothing written).
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "model_commands.h"
#include "quench/cancellation.h"
#include "quench/errors.h"
#include "quench/pipeline.h"
#include "quench/printable.h"
#include "quench/registry.h"
#include "quench/report.h"
#include "quench/version.h"

namespace {

void print_load_failures(const quench::Registry& registry) {
  for (const auto& f : registry.failures())
    std::cerr << "quench: plugin refused: " << f.str() << "\n";
  for (const auto& w : registry.warnings()) std::cerr << "quench: warning: " << w << "\n";
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// Loading a library runs its code, so a pipeline's plugin_paths are searched only when the
// user allows it for `run`; otherwise they are ignored with a warning.
struct PipelinePlugins {
  std::vector<std::string> searched;  ///< what Registry::discover gets
  std::string ignored;                ///< "plugin_paths (...) ignored ...", or empty
};

PipelinePlugins pipeline_plugins(const quench::Pipeline& pipeline, const std::string& file,
                                 bool allowed, const char* how_to_allow) {
  if (allowed || pipeline.plugin_paths().empty()) return {pipeline.plugin_paths(), {}};
  const std::string ignored = "plugin_paths (" + joined(pipeline.plugin_paths()) +
                              ") ignored: a pipeline's plugin libraries are not loaded " +
                              how_to_allow;
  std::cerr << "quench: warning: " << file << ": " << ignored << "\n";
  return {{}, ignored};
}

bool is_unknown_plugin(const quench::Diagnostic& d) {
  return d.message.rfind("unknown ", 0) == 0 && d.message.find(" plugin '") != std::string::npos;
}

// Validates the pipeline; when it names an unknown plugin and its plugin_paths were ignored,
// the error says so.
void validate_pipeline(const quench::Pipeline& pipeline, const quench::Registry& registry,
                       const PipelinePlugins& plugins) {
  try {
    pipeline.validate(registry);
  } catch (const quench::ConfigError& e) {
    if (plugins.ignored.empty()) throw;
    std::vector<quench::Diagnostic> diagnostics = e.diagnostics();
    for (auto& d : diagnostics)
      if (is_unknown_plugin(d)) d.message += "; the pipeline's " + plugins.ignored;
    throw quench::ConfigError(std::move(diagnostics));
  }
}

// SIGINT and SIGTERM request a stop; the run unwinds at its next check and writes nothing.
// A second signal of the same kind ends the process at once (SA_RESETHAND).
void stop_on_signals() {
  struct sigaction action {};
  action.sa_handler = [](int signal) { quench::request_stop(signal); };
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // interrupted reads and writes resume
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGINT, SIGTERM}) sigaction(signal, &action, nullptr);
}

int run_command(const std::string& file, const std::string& out_option, int threads, bool progress,
                const std::vector<std::string>& plugin_paths, bool allow_pipeline_plugins,
                const std::vector<std::string>& command_line) {
  quench::Provenance provenance;
  provenance.command_line = command_line;
  provenance.started = quench::iso8601_utc(std::chrono::system_clock::now());
  const auto pipeline = quench::Pipeline::from_file(file);
  const auto plugins = pipeline_plugins(pipeline, file, allow_pipeline_plugins,
                                        "without --allow-pipeline-plugins; pass it only for "
                                        "a pipeline you trust, or use --plugin-path");
  const auto registry = quench::Registry::discover(plugin_paths, plugins.searched);
  print_load_failures(registry);
  validate_pipeline(pipeline, registry, plugins);
  std::string out = out_option;
  if (out.empty()) out = pipeline.output_directory();
  if (out.empty()) out = (std::filesystem::path("results") / pipeline.name()).string();
  quench::check_report_directory(out);  // before any work: a run never replaces a non-report

  quench::RunOptions options;
  options.threads = threads;
  options.progress = progress;
  const auto runs = pipeline.run(registry, options, provenance);
  provenance.finished = quench::iso8601_utc(std::chrono::system_clock::now());

  quench::ReportOptions report;
  report.pipeline_name = pipeline.name();
  report.seed = pipeline.seed();
  report.plots = pipeline.writes_plots();
  report.tables = pipeline.writes_tables();
  report.provenance = &provenance;
  const auto files = quench::write_report(runs, out, report);
  std::cout << quench::summarize(runs) << "\n";
  for (const auto& w : files.warnings) std::cerr << "quench: warning: " << w << "\n";
  std::cout << "results: " << files.results_json << "\n";
  std::cout << "tables:  " << (std::filesystem::path(out) / "tables").string() << " ("
            << files.tables.size() << " files)\n";
  for (const auto& p : files.plots) std::cout << "plot:    " << p << "\n";
  for (const auto& m : files.models) std::cout << "model:   " << m << "\n";
  for (const auto& r : runs)
    if (r.status.code != quench::RunStatus::ok) return 3;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quench: approximate Bayesian inference and resampling averages"};
  app.set_version_flag("--version", std::string(quench::kVersion));
  app.require_subcommand(1);
  std::vector<std::string> plugin_paths;
  app.add_option("--plugin-path", plugin_paths,
                 "directory or library searched for plugins first (repeatable)");

  std::string file, out;
  int threads = 0;
  bool no_progress = false;
  auto* run = app.add_subcommand("run", "validate and run a pipeline, write results");
  run->add_option("file", file, "pipeline YAML file")->required();
  run->add_option("--out", out, "output directory (default: the pipeline's outputs.dir)");
  run->add_option("--threads", threads, "worker threads (0 = all cores)")
      ->check(CLI::Range(0, 4096));
  run->add_flag("--no-progress", no_progress, "no progress bar");
  bool allow_pipeline_plugins = false;
  run->add_flag("--allow-pipeline-plugins", allow_pipeline_plugins,
                "also load plugins from the pipeline's plugin_paths (runs their code: only for "
                "pipelines you trust)");
  run->add_option("--plugin-path", plugin_paths, "plugin directory searched first (repeatable)");

  auto* validate = app.add_subcommand("validate", "check a pipeline against the plugins' schemas");
  validate->add_option("file", file, "pipeline YAML file")->required();
  validate->add_option("--plugin-path", plugin_paths,
                       "plugin directory searched first (repeatable)");

  auto* plugins = app.add_subcommand("plugins", "list the plugins found, with their parameters");
  plugins->add_option("--plugin-path", plugin_paths,
                      "plugin directory searched first (repeatable)");

  std::string model_file, data_file, predictions_file;
  bool ignore_extra_columns = false;
  auto* predict = app.add_subcommand("predict", "predict new rows with a saved model");
  predict->add_option("model", model_file, "model file (models/*.h5 of a run)")->required();
  predict->add_option("data", data_file, "CSV file with the model's input columns")->required();
  predict->add_option("--out", predictions_file, "CSV file to write")->required();
  predict->add_flag("--ignore-extra-columns", ignore_extra_columns,
                    "skip columns that are neither inputs nor the target");
  predict->add_option("--plugin-path", plugin_paths,
                      "plugin directory searched first (repeatable)");
  auto* info = app.add_subcommand("info", "print what a saved model is and how it was trained");
  info->add_option("model", model_file, "model file")->required();
  info->add_option("--plugin-path", plugin_paths, "plugin directory searched first (repeatable)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "quench: " << quench::printable(e.what())
              << "\nRun with --help for more information.\n";
    return 2;
  }
  try {
    if (*run) {
      stop_on_signals();
      return run_command(file, out, threads, !no_progress, plugin_paths, allow_pipeline_plugins,
                         std::vector<std::string>(argv, argv + argc));
    }
    if (*validate) {
      const auto pipeline = quench::Pipeline::from_file(file);
      const auto plugins =
          pipeline_plugins(pipeline, file, false, "by `quench validate`; use --plugin-path");
      const auto registry = quench::Registry::discover(plugin_paths, plugins.searched);
      print_load_failures(registry);
      validate_pipeline(pipeline, registry, plugins);
      std::cout << file << ": valid\n";
      return 0;
    }
    if (*predict)
      return quench::cli::predict_command(model_file, data_file, predictions_file,
                                          ignore_extra_columns, plugin_paths);
    if (*info) return quench::cli::info_command(model_file, plugin_paths);
    if (*plugins) {
      const auto registry = quench::Registry::discover(plugin_paths);
      std::cout << quench::describe_plugins(registry);
      return 0;
    }
  } catch (const quench::Interrupted& e) {
    std::cerr << "quench: " << e.what() << "; nothing written\n";
    return 128 + e.signal();
  } catch (const quench::ConfigError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    if (e.diagnostics().empty()) std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "quench: error: " << quench::printable(e.what(), 1000) << "\n";
    return 1;
  } catch (...) {
    std::cerr << "quench: error: unknown exception\n";
    return 1;
  }
  return 0;
}
