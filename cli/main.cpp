// The quench command line: run, validate, list plugins, use saved models.
//   quench run FILE [--out DIR] [--threads N] [--blas-threads N] [--plugin-path DIR]...
//              [--allow-pipeline-plugins]   (also under mpirun / srun: docs/distributed.md)
//   quench validate FILE [--plugin-path DIR]...
//   quench plugins [FAMILY|NAME] [--plugin-path DIR]...
//   quench predict MODEL DATA.csv --out PREDICTIONS.csv [--ignore-extra-columns]
//                  [--quantiles Q,Q,...] [--max-count K]
//   quench info MODEL
// Exit codes: 0 success (also --help, --version); 1 data, plugin or I/O error (also an output
// directory that is not a quench report); 2 invalid pipeline (its data included) or
// command-line usage (CLI11's own parse-error codes are mapped to it); 3 a run finished with a
// failed or non-converged status (results are still written); 130 / 143 interrupted by
// SIGINT / SIGTERM (nothing written; or, stopped after the report was swapped into place, the
// report kept and said so).
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "model_commands.h"
#include "run_command.h"
#ifdef QUENCH_WITH_MPI
#include "mpi_run.h"
#include "quench/mpi_session.h"
#endif
#include "quench/cancellation.h"
#include "quench/errors.h"
#include "quench/pipeline.h"
#include "quench/printable.h"
#include "quench/registry.h"
#include "quench/report.h"
#include "quench/version.h"

namespace {

// SIGINT and SIGTERM request a stop; the run unwinds at its next check and writes nothing
// (after the report's swap into place, write_run keeps it and says so).
// A second signal of the same kind ends the process at once (SA_RESETHAND).
void stop_on_signals() {
  struct sigaction action {};
  action.sa_handler = [](int signal) { quench::request_stop(signal); };
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // interrupted reads and writes resume
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGINT, SIGTERM}) sigaction(signal, &action, nullptr);
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
  int threads = 0, blas = 0;
  bool no_progress = false;
  auto* run = app.add_subcommand("run", "validate and run a pipeline, write results");
  run->add_option("file", file, "pipeline YAML file")->required();
  // An empty name is refused rather than read as "not given" (it wrote to the default place).
  const CLI::Validator named(
      [](std::string& value) { return value.empty() ? std::string("is empty") : std::string(); },
      "NAME");
  run->add_option("--out", out, "output directory (default: the pipeline's outputs.dir)")
      ->check(named);
  run->add_option("--threads", threads, "worker threads (0 = all cores)")
      ->check(CLI::Range(0, 4096));
  run->add_option("--blas-threads", blas,
                  "BLAS threads outside the parallel units (0 = by the training rows: 1 for "
                  "small problems, the BLAS default for large ones; docs/performance.md); results "
                  "are bitwise reproducible at a fixed value (docs/distributed.md)")
      ->check(CLI::Range(0, 4096));
  std::string schedule = "dynamic";
  run->add_option("--schedule", schedule,
                  "under mpirun: units handed out on request (dynamic) or in equal shares "
                  "per rank (static, for comparison)")
      ->check(CLI::IsMember({"dynamic", "static"}));
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

  std::string plugin_filter;
  auto* plugins = app.add_subcommand("plugins", "list the plugins found, with their parameters");
  plugins->add_option("filter", plugin_filter,
                      "only this family (kernel, likelihood, resampler, engine, optimizer) or "
                      "the plugin of this name");
  plugins->add_option("--plugin-path", plugin_paths,
                      "plugin directory searched first (repeatable)");

  std::string model_file, data_file, predictions_file;
  quench::cli::PredictOptions predict_options;
  int max_count = 0;
  auto* predict = app.add_subcommand("predict", "predict new rows with a saved model");
  predict->add_option("model", model_file, "model file (models/*.h5 of a run)")->required();
  predict->add_option("data", data_file, "CSV file with the model's input columns")->required();
  predict->add_option("--out", predictions_file, "CSV file to write")->required()->check(named);
  predict->add_flag("--ignore-extra-columns", predict_options.ignore_extra_columns,
                    "skip columns that are neither inputs, the size nor the target");
  predict
      ->add_option("--quantiles", predict_options.quantiles,
                   "probabilities of the quantiles of y to give, e.g. 0.1,0.5,0.9 (default "
                   "0.05,0.5,0.95)")
      ->delimiter(',');
  auto* max_count_option =
      predict->add_option("--max-count", max_count, "give p(y = k) for k = 0..K (default 10)")
          ->check(CLI::Range(0, 100000));
  predict->add_option("--plugin-path", plugin_paths,
                      "plugin directory searched first (repeatable)");
  auto* info = app.add_subcommand("info", "print what a saved model is and how it was trained");
  info->add_option("model", model_file, "model file")->required();
  info->add_option("--plugin-path", plugin_paths, "plugin directory searched first (repeatable)");

  // Every command's --help ends with what its exit status means (the header above).
  const std::string exit_codes =
      "\nExit codes: 0 success; 1 data, plugin or I/O error; 2 invalid pipeline, data or "
      "command line; 3 a run finished with a failed or non-converged status (results written); "
      "130 / 143 interrupted by SIGINT / SIGTERM (nothing written).";
  app.footer(exit_codes);
  for (CLI::App* command : app.get_subcommands({})) command->footer(exit_codes);
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
      const quench::cli::RunRequest request{file,
                                            out,
                                            threads,
                                            blas,
                                            !no_progress,
                                            plugin_paths,
                                            allow_pipeline_plugins,
                                            std::vector<std::string>(argv, argv + argc),
                                            schedule == "static"};
#ifdef QUENCH_WITH_MPI
      if (quench::mpi::launched_by_mpi()) return quench::cli::mpi_run(request);
#endif
      return quench::cli::run_command(request);
    }
    if (*validate) return quench::cli::validate_command(file, plugin_paths);
    if (*predict) {
      if (*max_count_option) predict_options.max_count = max_count;
      predict_options.plugin_paths = plugin_paths;
      return quench::cli::predict_command(model_file, data_file, predictions_file, predict_options);
    }
    if (*info) return quench::cli::info_command(model_file, plugin_paths);
    if (*plugins) {
      const auto registry = quench::Registry::discover(plugin_paths);
      std::cout << quench::describe_plugins(registry, plugin_filter);
      return 0;
    }
  } catch (const quench::Interrupted& e) {
    return quench::cli::say_nothing_written(e);
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
