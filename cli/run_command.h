// `quench run` in three steps shared by the single-process and the MPI driver (mpi_run.h):
// prepare (parse, load plugins, validate, check the output directory), execute, write.
#pragma once

#include <string>
#include <vector>

#include "quench/cancellation.h"
#include "quench/pipeline.h"
#include "quench/provenance.h"
#include "quench/registry.h"

namespace quench::cli {

struct RunRequest {
  std::string file, out;  ///< the pipeline; --out (empty: the pipeline's outputs.dir)
  int threads = 0;
  int blas_threads = 0;  ///< --blas-threads (0: the policy, quench/blas_thread_policy.h)
  bool progress = true;
  std::vector<std::string> plugin_paths;
  bool allow_pipeline_plugins = false;
  std::vector<std::string> command_line;
  bool static_schedule = false;  ///< under MPI: --schedule static (benchmarks)
};

/// A validated pipeline with its plugins and output directory, ready to run.
struct PreparedRun {
  Pipeline pipeline;
  Registry registry;
  std::string out;
  Provenance provenance;
};

/// Parses and validates the pipeline, loads the plugins (printing refusals) and, with
/// `check_output`, checks the output directory before any work. Throws like the steps it runs.
PreparedRun prepare_run(const RunRequest& request, bool check_output);

/// Writes the report of `runs` into the output directory and prints what was written; returns
/// 128 + the signal when a stop request arrived after the report was swapped into place (it
/// is kept; one arriving before discards it: Interrupted), else 3 when a run did not finish
/// ok, else 0.
int write_run(PreparedRun& prepared, const std::vector<Results>& runs);

/// Says on stderr that the run stopped before its report was swapped into place (nothing
/// written); returns the exit code, 128 + the signal.
int say_nothing_written(const Interrupted& stop);

/// The whole run in one process.
int run_command(const RunRequest& request);

/// `quench validate`: the pipeline against the plugins' schemas (its plugin_paths ignored).
int validate_command(const std::string& file, const std::vector<std::string>& plugin_paths);

}  // namespace quench::cli
