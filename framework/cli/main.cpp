// The quench command line: run, validate and list plugins.
//   quench run FILE [--out DIR] [--threads N] [--plugin-path DIR]...
//   quench validate FILE [--plugin-path DIR]...
//   quench plugins [--plugin-path DIR]...
// Exit codes: 0 success (also --help, --version); 1 data, plugin or I/O error; 2 invalid
// pipeline or command-line usage (CLI11's own parse-error codes are mapped to it); 3 a run
// finished with a failed or non-converged status (results are still written).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

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

int run_command(const std::string& file, const std::string& out_option, int threads, bool progress,
                const std::vector<std::string>& plugin_paths) {
  const auto pipeline = quench::Pipeline::from_file(file);
  const auto registry = quench::Registry::discover(plugin_paths, pipeline.plugin_paths());
  print_load_failures(registry);
  pipeline.validate(registry);
  std::string out = out_option;
  if (out.empty()) out = pipeline.output_directory();
  if (out.empty()) out = (std::filesystem::path("results") / pipeline.name()).string();

  quench::RunOptions options;
  options.threads = threads;
  options.progress = progress;
  const auto runs = pipeline.run(registry, options);

  quench::ReportOptions report;
  report.pipeline_name = pipeline.name();
  report.seed = pipeline.seed();
  report.plots = pipeline.writes_plots();
  report.tables = pipeline.writes_tables();
  const auto files = quench::write_report(runs, out, report);
  std::cout << quench::summarize(runs) << "\n";
  for (const auto& w : files.warnings) std::cerr << "quench: warning: " << w << "\n";
  std::cout << "results: " << files.results_json << "\n";
  std::cout << "tables:  " << (std::filesystem::path(out) / "tables").string() << " ("
            << files.tables.size() << " files)\n";
  for (const auto& p : files.plots) std::cout << "plot:    " << p << "\n";
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
  run->add_option("--plugin-path", plugin_paths, "plugin directory searched first (repeatable)");

  auto* validate = app.add_subcommand("validate", "check a pipeline against the plugins' schemas");
  validate->add_option("file", file, "pipeline YAML file")->required();
  validate->add_option("--plugin-path", plugin_paths,
                       "plugin directory searched first (repeatable)");

  auto* plugins = app.add_subcommand("plugins", "list the plugins found, with their parameters");
  plugins->add_option("--plugin-path", plugin_paths,
                      "plugin directory searched first (repeatable)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "quench: " << quench::printable(e.what())
              << "\nRun with --help for more information.\n";
    return 2;
  }
  try {
    if (*run) return run_command(file, out, threads, !no_progress, plugin_paths);
    if (*validate) {
      const auto pipeline = quench::Pipeline::from_file(file);
      const auto registry = quench::Registry::discover(plugin_paths, pipeline.plugin_paths());
      print_load_failures(registry);
      pipeline.validate(registry);
      std::cout << file << ": valid\n";
      return 0;
    }
    if (*plugins) {
      const auto registry = quench::Registry::discover(plugin_paths);
      std::cout << quench::describe_plugins(registry);
      return 0;
    }
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
