// Pipelines: a YAML file naming the data, the components (plugin + parameters), one or more
// engines run on the same data, the outputs and the seed. Validated against the plugins'
// schemas before any work starts; every problem is reported at once as file:line:col.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quench/dataset.h"
#include "quench/export.h"
#include "quench/provenance.h"
#include "quench/results.h"
#include "quench/units.h"

namespace quench {

class Registry;
struct PipelineSpec;  // parsed form (internal)

struct RunOptions {
  int threads = 0;  ///< worker threads; 0 = all cores (per process under MPI)
  /// BLAS threads outside the units; 0 = the policy of quench/blas_thread_policy.h (one below
  /// a measured number of training rows, the backend's current count from there on).
  int blas_threads = 0;
  bool progress = false;  ///< progress bar on stderr
  /// The data loader's notes and the learned hyperparameters as lines on stderr (the CLI);
  /// a host that reads them from the results (Python's estimators) turns this off.
  bool report = true;
  /// Where the engines' independent units run (quench/units.h); null: threads here.
  std::shared_ptr<const UnitExecutor> executor;
  int processes = 1;  ///< processes sharing the units (MPI ranks), for the provenance
  /// Data already in memory (a host's arrays), read instead of the pipeline's data.file and
  /// data.test_file (DataSpec::train_table); those names then only label it in messages.
  std::shared_ptr<const CsvTable> train_table, test_table;
};

class QUENCH_API Pipeline {
 public:
  /// Parses a pipeline file. Throws ConfigError for YAML syntax errors and structural
  /// problems that need no plugin knowledge (all collected).
  static Pipeline from_file(const std::string& path);
  /// Parses YAML text; relative data paths resolve against base_directory.
  static Pipeline from_string(const std::string& yaml, const std::string& name = "<string>",
                              const std::string& base_directory = ".");

  Pipeline(Pipeline&&) noexcept;
  Pipeline& operator=(Pipeline&&) noexcept;
  ~Pipeline();

  /// The pipeline's plugin_paths (resolved against its directory).
  const std::vector<std::string>& plugin_paths() const;
  /// The output directory named by the pipeline (outputs.dir), resolved; empty if none.
  const std::string& output_directory() const;
  const std::string& name() const;
  /// outputs.plots and outputs.tables (both default to true).
  bool writes_plots() const;
  bool writes_tables() const;
  /// The pipeline's seed (every random draw derives from it).
  std::uint64_t seed() const;

  /// Checks every component and engine against the registry: unknown plugins and keys
  /// (with did-you-mean), types, ranges, missing required parameters, missing components.
  /// Throws ConfigError holding all diagnostics.
  void validate(const Registry& registry) const;

  /// Validates, loads the data and runs every engine for every sweep point. A failing
  /// engine yields Results with status failed (the others still run).
  std::vector<Results> run(const Registry& registry, const RunOptions& options = {}) const;
  /// The same, also recording in `provenance` the plugins (every parameter, defaults
  /// included), the data files (SHA-256), rows and columns used, seed and threads.
  std::vector<Results> run(const Registry& registry, const RunOptions& options,
                           Provenance& provenance) const;

  const PipelineSpec& spec() const;

 private:
  explicit Pipeline(std::unique_ptr<PipelineSpec> spec);
  std::unique_ptr<PipelineSpec> spec_;
};

}  // namespace quench
