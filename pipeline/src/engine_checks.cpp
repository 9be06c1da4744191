// Validation of what each engine checks before numerics (InferenceEngine::check), on the
// problem a run builds: the components at their first sweep values, prepared on the data, and
// every sweep value of the engine's own parameters.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pipeline_spec.h"
#include "quench/errors.h"
#include "quench/inference_engine.h"
#include "quench/registry.h"
#include "quench/registry_models.h"

namespace quench {
namespace {

using Values = std::map<std::string, ParamValue>;

/// The plugin's parameters with each sweep at its first value.
Values first_values(const ResolvedPlugin& plugin) {
  Values values = plugin.fixed;
  for (const Sweep& s : plugin.sweeps) values[s.param] = s.values.front();
  return values;
}

/// Each sweep value on its own, the other sweeps at their first (as the resolver builds
/// plugins): one variant when nothing is swept.
std::vector<Values> sweep_variants(const ResolvedPlugin& plugin) {
  const Values base = first_values(plugin);
  std::vector<Values> variants{base};
  for (const Sweep& s : plugin.sweeps)
    for (std::size_t k = 1; k < s.values.size(); ++k) {
      variants.push_back(base);
      variants.back()[s.param] = s.values[k];
    }
  return variants;
}

/// The problem's components as a run builds them at the first sweep point; throws what a
/// component throws (reported where the component is checked).
Problem build_problem(const PipelineSpec& spec, const ResolvedPipeline& resolved,
                      const Registry& registry, const Dataset& data) {
  Problem problem;
  problem.data = &data;
  problem.seed = spec.seed;
  problem.context.make_engine = registry_engines(registry);
  problem.make_model = spec.outputs.models;
  std::vector<Values> first_point;
  for (const auto& entry : resolved.components) {
    first_point.emplace_back();
    for (const Sweep& s : entry.second.sweeps) first_point.back()[s.param] = s.values.front();
  }
  build_point_components(resolved, first_point, std::nullopt, registry, data, problem);
  return problem;
}

}  // namespace

std::vector<Diagnostic> engine_diagnostics(const PipelineSpec& spec,
                                           const ResolvedPipeline& resolved,
                                           const Registry& registry, const Dataset& data) {
  std::vector<Diagnostic> found;
  Problem problem;
  try {
    problem = build_problem(spec, resolved, registry, data);
  } catch (const std::exception&) {
    return found;  // a component that cannot be built is reported where it is checked
  }
  const Eigen::Index inducing =
      spec.inducing ? std::min<Eigen::Index>(spec.inducing->count, data.X_train.rows()) : 0;
  for (const auto& engine : resolved.engines) {
    const std::string& engine_name = engine.first;  // (a lambda cannot capture a binding)
    const ResolvedPlugin& plugin = engine.second;
    const auto engine_spec =
        std::find_if(spec.engines.begin(), spec.engines.end(),
                     [&](const EngineSpec& e) { return e.name == engine_name; });
    const SourceLocation where =
        engine_spec != spec.engines.end() ? engine_spec->spec.at : SourceLocation{spec.file, 0, 0};
    for (const Values& values : sweep_variants(plugin)) {
      try {
        registry
            .create_as<InferenceEngine>(Family::engine, plugin.entry->info->name,
                                        Params(plugin.entry->info->schema, values))
            ->check(problem, inducing);
      } catch (const std::exception& e) {
        const auto* config = dynamic_cast<const ConfigError*>(&e);
        const std::string message = config && !config->diagnostics().empty()
                                        ? config->diagnostics().front().message
                                        : std::string(e.what());
        found.push_back(
            {where, "engine '" + engine_name + "' (" + plugin.entry->info->name + "): " + message});
        break;
      }
    }
  }
  return found;
}

}  // namespace quench
