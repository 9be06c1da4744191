// Internal: the parsed form of a pipeline file and its resolution against the registry.
// pipeline_parse.cpp builds a PipelineSpec from YAML; pipeline_resolve.cpp checks it against
// the plugins' schemas; pipeline_run.cpp runs the resolved pipeline.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "quench/component.h"
#include "quench/dataset.h"
#include "quench/errors.h"
#include "quench/fitted_model.h"
#include "quench/inducing_points.h"
#include "quench/kernel.h"
#include "quench/kernel_record.h"
#include "quench/learning_report.h"
#include "quench/likelihood.h"
#include "quench/parameters.h"

#include "did_you_mean.h"

namespace quench {

class Registry;
struct PluginEntry;
struct Problem;

/// One parameter as written: its YAML value (interpreted later against the schema).
struct RawParam {
  YAML::Node node;
  SourceLocation at;  ///< position of the key
};

/// A component or an engine as written: `plugin: name` plus parameters.
struct PluginSpec {
  std::string plugin;
  SourceLocation at;  ///< position of the plugin name (or of the block)
  std::map<std::string, RawParam> params;
};

/// components.kernel when it is more than one plugin (docs/kernels.md): a sum or product of
/// nodes, a node on named input columns, or (a list, at the top) a kernel per class. A plain
/// plugin stays in PipelineSpec::components.
struct KernelNode {
  std::string combine;  ///< "sum", "product" or "per_class"; empty: `plugin`
  SourceLocation at;    ///< the node's mapping
  std::string path;     ///< "kernel", "kernel.1.0", "kernel.c2": the prefix of its learn paths
  PluginSpec plugin;
  std::vector<KernelNode> parts;
  std::vector<std::pair<std::string, SourceLocation>> columns;  ///< input names; empty: all
};

struct EngineSpec {
  std::string name;  ///< unique within the pipeline; defaults to the plugin name
  PluginSpec spec;
};

struct OutputSpec {
  std::string dir;  ///< resolved against the current directory; empty = results/<name>
  bool plots = true;
  bool tables = true;
  bool models = false;  ///< save each run's fitted model under models/ (docs/models.md)
};

/// `learn:` — hyperparameters learned once per pipeline run, before the engines.
struct LearnSpec {
  SourceLocation at;  ///< the `learn` key
  std::string objective = "evidence";
  SourceLocation objective_at;
  std::string engine;  ///< an engine name of the pipeline or an engine plugin; empty = default
  SourceLocation engine_at;
  std::vector<std::pair<std::string, SourceLocation>> parameters;  ///< "kernel.length_scales"
  std::map<std::string, std::pair<double, double>> bounds;
  std::map<std::string, SourceLocation> bounds_at;
  std::uint64_t restarts = 0;
  double restart_spread = 100.0;
  double stationarity = 1e-6;
  std::string optimizer = "lbfgs";
  SourceLocation optimizer_at;
};

struct PipelineSpec {
  std::string file;      ///< as given (for messages)
  std::string base_dir;  ///< directory relative paths resolve against
  std::string name;      ///< `name:` or the file stem
  std::uint64_t seed = 0;
  std::vector<std::string> plugin_paths;
  DataSpec data;                                  ///< paths resolved against base_dir
  std::map<std::string, SourceLocation> data_at;  ///< `data` ("data") and its keys, for messages
  std::map<Family, PluginSpec> components;        ///< kernel, likelihood, resampler, optimizer
  std::optional<KernelNode> kernel_tree;  ///< a composite kernel (then no components.kernel)
  /// Whether components.kernel is a list: a kernel per class (quench/class_kernels.h).
  bool per_class_kernel() const { return kernel_tree && kernel_tree->combine == kPerClass; }
  /// Families whose definition was present but broken (already reported): an engine needing
  /// one is not reported again as missing it.
  std::vector<Family> broken_components;
  std::vector<EngineSpec> engines;
  OutputSpec outputs;
  std::optional<LearnSpec> learn;
  /// `inducing:` — the inducing-point prior of every engine that takes one.
  std::optional<InducingSpec> inducing;
  SourceLocation inducing_at;  ///< the `inducing` key
  /// Problems found while parsing a spec that is still usable (parse_pipeline with
  /// keep_going); resolve_pipeline reports them together with its own.
  std::vector<Diagnostic> diagnostics;

  /// Whether the pipeline defines a component of the family (a composite kernel counts).
  bool has(Family family) const {
    return components.count(family) != 0 || (family == Family::kernel && kernel_tree);
  }
};

/// Parses YAML text. Collects every structural problem (YAML syntax, unknown top-level,
/// data or output keys with did-you-mean, wrong types of those fields, missing `plugin`,
/// duplicate engine names) and throws one ConfigError holding all of them.
/// With keep_going, problems are stored in PipelineSpec::diagnostics instead of thrown,
/// unless the text itself is refused (load_yaml: syntax, depth, recursive aliases, an open
/// quote) or is not a YAML mapping, so that validation against the plugins can report them
/// all at once.
PipelineSpec parse_pipeline(const std::string& yaml, const std::string& file,
                            const std::string& base_dir, bool keep_going = false);

/// A swept parameter: one run per value.
struct Sweep {
  std::string key;    ///< "resampler.ratio" or "<engine name>.samples"
  std::string param;  ///< "ratio"
  std::vector<ParamValue> values;
  SourceLocation at;  ///< the list's position
};

/// A plugin with its parameters interpreted against the schema.
struct ResolvedPlugin {
  const PluginEntry* entry = nullptr;
  std::map<std::string, ParamValue> fixed;  ///< single values (defaults not included)
  std::vector<Sweep> sweeps;                ///< list values of scalar parameters
};

/// The engine whose objective `learn:` maximizes, and the optimizer doing it.
struct ResolvedLearning {
  std::string engine_name;  ///< as in the pipeline, or the plugin name
  ResolvedPlugin engine;    ///< the pipeline engine's parameters, or the plugin's defaults
  const PluginEntry* optimizer = nullptr;
};

/// A composite kernel resolved: each plugin part with its fixed parameters (parts are not
/// swept).
struct ResolvedKernel {
  std::string combine;  ///< "sum" or "product"; empty: `plugin`
  ResolvedPlugin plugin;
  std::vector<ResolvedKernel> parts;
  std::vector<std::string> columns;
};

/// How the data's target is read: as the likelihood declares it (Likelihood::target_kind), or
/// as an engine that reads it itself declares (PluginInfo::targets).
struct ResolvedTarget {
  TargetKind kind = TargetKind::any;
  std::string reader = "the likelihood";  ///< who reads it, for the loader's messages
  std::string size_column;  ///< the likelihood's size column, when its reading is the data's
};

/// The most runs (sweep points times engines' sweep points) a pipeline may ask for: each run
/// keeps its results in memory until the report is written.
inline constexpr double kMaxRuns = 1e6;

struct ResolvedPipeline {
  std::map<Family, ResolvedPlugin> components;
  ResolvedTarget target;
  std::optional<ResolvedKernel> kernel_tree;                    ///< for PipelineSpec::kernel_tree
  std::vector<std::pair<std::string, ResolvedPlugin>> engines;  ///< (engine name, plugin)
  std::optional<ResolvedLearning> learning;
};

/// Checks the spec against the registry: unknown plugins (with did-you-mean among that
/// family's names), unknown parameters (did-you-mean among the schema's names), wrong types,
/// out-of-range values and choices, missing required parameters, plugin-valued parameters
/// naming unknown plugins, components an engine needs (PluginInfo::needs) that the pipeline
/// does not define, and the target: a likelihood that declares no kind, an engine (or an
/// engine it names) that cannot fit the likelihood's kind (PluginInfo::targets), engines that
/// read the target as different kinds, sweeps of more than kMaxRuns runs. Throws one ConfigError
/// with every diagnostic, in file order. `target`, when given, receives the target as far as it was
/// resolved, also when a ConfigError is thrown (so that validation checks the data against it).
ResolvedPipeline resolve_pipeline(const PipelineSpec& spec, const Registry& registry,
                                  ResolvedTarget* target = nullptr);

/// The data spec as loaded: the pipeline's seed for a fraction split, and how the target is
/// read (ResolvedTarget).
DataSpec data_spec_for(const PipelineSpec& spec, const ResolvedTarget& target);

/// Data problems (check_dataset) as diagnostics at the YAML key naming the file or column,
/// the data file, row and column in the message; when there are none and the pipeline names a
/// data file, `loaded` receives the data set (the files read once).
std::vector<Diagnostic> data_diagnostics(const PipelineSpec& spec, const ResolvedTarget& target,
                                         std::optional<Dataset>& loaded);

/// Learns the hyperparameters `learn:` asks for on the training rows of `data` (kernel and
/// likelihood built from their fixed parameters and prepared on the training inputs).
/// Parameter names or bounds the prepared components reject are a ConfigError with the
/// positions of the offending entries (all of them); numerical trouble is the report's status.
/// With `progress`, each evaluation of the objective is reported to it (its count, the value).
LearningReport learn_for_pipeline(
    const PipelineSpec& spec, const ResolvedPipeline& resolved, const Registry& registry,
    const Dataset& data, int threads,
    const std::function<void(int evaluations, double value)>& progress = {});

/// Diagnostics for learn.parameters and learn.bounds checked against the prepared kernel and
/// likelihood (for validate, once the data loads); empty without `learn:`.
std::vector<Diagnostic> learning_diagnostics(const PipelineSpec& spec,
                                             const ResolvedPipeline& resolved,
                                             const Registry& registry, const Dataset& data);

/// A composite kernel's columns that are not inputs of `data`, as diagnostics at each name;
/// with `resolved`, a kernel that cannot be built for the data as a run builds it (at each
/// value of a swept parameter: a list of length scales not one per input), at the kernel.
std::vector<Diagnostic> kernel_diagnostics(const PipelineSpec& spec,
                                           const ResolvedPipeline* resolved,
                                           const Registry& registry, const Dataset& data);

/// What each engine checks before numerics (InferenceEngine::check) on the problem a run
/// builds from `data` (components at their first sweep values; the engine at each sweep value
/// of its own parameters; the inducing count M of `inducing:`), as diagnostics at the engine.
std::vector<Diagnostic> engine_diagnostics(const PipelineSpec& spec,
                                           const ResolvedPipeline& resolved,
                                           const Registry& registry, const Dataset& data);

/// A component as built for a run: plugin, version, parameters, and the learned blocks of
/// `learned` that belong to its family ("kernel.length_scales" -> kernel's "length_scales").
ComponentRecord component_record(const PluginEntry& entry, const Params& params,
                                 const std::optional<LearningReport>& learned);

/// The record of a composite kernel: its parts' plugins and fixed parameters, and on the
/// outermost record the learned kernel.* values.
ComponentRecord kernel_tree_record(const ResolvedKernel& tree,
                                   const std::optional<LearningReport>& learned);

/// The kernel `record` describes (a plugin's or a composite) built from the registry's plugins
/// for `data`'s inputs, prepared on its training rows, with the record's learned blocks set.
std::shared_ptr<Kernel> build_pipeline_kernel(const ComponentRecord& record,
                                              const Registry& registry, const Dataset& data);

/// One sweep point's components built into `problem` as a run builds them (and validation
/// checks them): `swept[c]` holds the swept parameters' values of the c-th entry of
/// resolved.components (map order; the other parameters fixed), the kernel from its record as a
/// saved model rebuilds it (a composite kernel's tree too), the likelihood with its learned
/// blocks, the resampler prepared on the training rows, the optimizer. Returns the records a
/// fitted model is rebuilt with (kernel, likelihood, resampler). Throws what a component throws.
std::vector<ComponentRecord> build_point_components(
    const ResolvedPipeline& resolved, const std::vector<std::map<std::string, ParamValue>>& swept,
    const std::optional<LearningReport>& learned, const Registry& registry, const Dataset& data,
    Problem& problem);

/// `inducing.count` above the training rows, as a diagnostic at the `inducing` key.
std::vector<Diagnostic> inducing_diagnostics(const PipelineSpec& spec, const Dataset& data);

/// The pipeline's inducing inputs chosen with `kernel` (prepared, at its current
/// hyperparameters) among the training rows, seeded by the pipeline seed; null without
/// `inducing:`.
std::shared_ptr<const InducingInputs> choose_inducing(const PipelineSpec& spec,
                                                      const Kernel& kernel, const Dataset& data);

/// One line for reports: "1000 inputs by greedy_variance among 10000 training rows, fitc prior".
std::string describe_inducing(const InducingInputs& inducing);

/// Orders diagnostics by line, then column (stable), keeping one of exact repeats (a node
/// shared through YAML aliases is checked at each place that uses it).
void sort_diagnostics(std::vector<Diagnostic>& diagnostics);

/// How a YAML node reads in a message: "'text'", "quoted string \"text\"", "a list",
/// "a mapping" or "nothing".
std::string describe(const YAML::Node& node);

}  // namespace quench
