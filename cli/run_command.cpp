#include "run_command.h"

#include <chrono>
#include <filesystem>
#include <iostream>

#include "quench/cancellation.h"
#include "quench/errors.h"
#include "quench/printable.h"
#include "quench/report.h"

namespace quench::cli {

namespace {

void print_load_failures(const Registry& registry) {
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

PipelinePlugins pipeline_plugins(const Pipeline& pipeline, const std::string& file, bool allowed,
                                 const char* how_to_allow) {
  if (allowed || pipeline.plugin_paths().empty()) return {pipeline.plugin_paths(), {}};
  const std::string ignored = "plugin_paths (" + joined(pipeline.plugin_paths()) +
                              ") ignored: a pipeline's plugin libraries are not loaded " +
                              how_to_allow;
  std::cerr << "quench: warning: " << file << ": " << ignored << "\n";
  return {{}, ignored};
}

bool is_unknown_plugin(const Diagnostic& d) {
  return d.message.rfind("unknown ", 0) == 0 && d.message.find(" plugin '") != std::string::npos;
}

// Validates the pipeline; when it names an unknown plugin and its plugin_paths were ignored,
// the error says so.
void validate_pipeline(const Pipeline& pipeline, const Registry& registry,
                       const PipelinePlugins& plugins) {
  try {
    pipeline.validate(registry);
  } catch (const ConfigError& e) {
    if (plugins.ignored.empty()) throw;
    std::vector<Diagnostic> diagnostics = e.diagnostics();
    for (auto& d : diagnostics)
      if (is_unknown_plugin(d)) d.message += "; the pipeline's " + plugins.ignored;
    throw ConfigError(std::move(diagnostics));
  }
}

}  // namespace

PreparedRun prepare_run(const RunRequest& request, bool check_output) {
  Provenance provenance;
  provenance.command_line = request.command_line;
  provenance.started = iso8601_utc(std::chrono::system_clock::now());
  auto pipeline = Pipeline::from_file(request.file);
  const auto plugins = pipeline_plugins(pipeline, request.file, request.allow_pipeline_plugins,
                                        "without --allow-pipeline-plugins; pass it only for "
                                        "a pipeline you trust, or use --plugin-path");
  auto registry = Registry::discover(request.plugin_paths, plugins.searched);
  print_load_failures(registry);
  validate_pipeline(pipeline, registry, plugins);
  std::string out = request.out;
  if (out.empty()) out = pipeline.output_directory();
  if (out.empty()) out = (std::filesystem::path("results") / pipeline.name()).string();
  if (check_output) check_report_directory(out);  // before any work: never replace a non-report
  return {std::move(pipeline), std::move(registry), std::move(out), std::move(provenance)};
}

int write_run(PreparedRun& prepared, const std::vector<Results>& runs) {
  prepared.provenance.finished = iso8601_utc(std::chrono::system_clock::now());
  ReportOptions report;
  report.pipeline_name = prepared.pipeline.name();
  report.seed = prepared.pipeline.seed();
  report.plots = prepared.pipeline.writes_plots();
  report.tables = prepared.pipeline.writes_tables();
  report.provenance = &prepared.provenance;
  const auto files = write_report(runs, prepared.out, report);
  std::cout << summarize(runs) << "\n";
  for (const auto& w : files.warnings) std::cerr << "quench: warning: " << w << "\n";
  std::cout << "results: " << files.results_json << "\n";
  std::cout << "tables:  " << (std::filesystem::path(prepared.out) / "tables").string() << " ("
            << files.tables.size() << " files)\n";
  for (const auto& p : files.plots) std::cout << "plot:    " << p << "\n";
  for (const auto& m : files.models) std::cout << "model:   " << m << "\n";
  // A stop request seen before the report is swapped into place discards it (Interrupted);
  // one arriving later, during the swap or while the lines above reach a slow reader, finds
  // the report whole: it is kept, and the exit code still says the run was stopped.
  std::cout.flush();
  if (const int signal = stop_requested()) {
    std::cerr << "quench: " << Interrupted(signal).what() << " after the report was written; kept "
              << printable(prepared.out) << "\n";
    return 128 + signal;
  }
  for (const auto& r : runs)
    if (r.status.code != RunStatus::ok) return 3;
  return 0;
}

int say_nothing_written(const Interrupted& stop) {
  std::cerr << "quench: " << stop.what() << "; nothing written\n";
  return 128 + stop.signal();
}

int validate_command(const std::string& file, const std::vector<std::string>& plugin_paths) {
  const auto pipeline = Pipeline::from_file(file);
  const auto plugins =
      pipeline_plugins(pipeline, file, false, "by `quench validate`; use --plugin-path");
  const auto registry = Registry::discover(plugin_paths, plugins.searched);
  print_load_failures(registry);
  validate_pipeline(pipeline, registry, plugins);
  std::cout << file << ": valid\n";
  return 0;
}

int run_command(const RunRequest& request) {
  PreparedRun prepared = prepare_run(request, true);
  RunOptions options;
  options.threads = request.threads;
  options.blas_threads = request.blas_threads;
  options.progress = request.progress;
  const auto runs = prepared.pipeline.run(prepared.registry, options, prepared.provenance);
  return write_run(prepared, runs);
}

}  // namespace quench::cli
