// One sweep point's components, built the same way for a run and for validation's engine
// checks.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pipeline_spec.h"
#include "quench/inference_engine.h"
#include "quench/registry.h"
#include "quench/resampler.h"

namespace quench {

std::vector<ComponentRecord> build_point_components(
    const ResolvedPipeline& resolved, const std::vector<std::map<std::string, ParamValue>>& swept,
    const std::optional<LearningReport>& learned, const Registry& registry, const Dataset& data,
    Problem& problem) {
  std::vector<ComponentRecord> records;
  std::size_t c = 0;
  for (const auto& [family, plugin] : resolved.components) {
    std::map<std::string, ParamValue> values = plugin.fixed;
    for (const auto& [name, value] : swept.at(c++)) values[name] = value;
    const Params params(plugin.entry->info->schema, values);
    const std::string& name = plugin.entry->info->name;
    if (family == Family::kernel || family == Family::likelihood || family == Family::resampler)
      records.push_back(component_record(*plugin.entry, params, learned));
    switch (family) {
      case Family::kernel:  // as a saved model rebuilds it, from its record
        problem.kernel = build_pipeline_kernel(records.back(), registry, data);
        break;
      case Family::likelihood: {
        auto likelihood = registry.create_as<Likelihood>(Family::likelihood, name, params);
        for (const auto& [block, value] : records.back().learned)
          likelihood->set_hyperparameter(block, value);
        problem.likelihood = likelihood;
        break;
      }
      case Family::resampler: {
        auto resampler = registry.create_as<Resampler>(Family::resampler, name, params);
        resampler->prepare(data.X_train.rows());
        problem.resampler = resampler;
        break;
      }
      case Family::optimizer:
        problem.optimizer = registry.create_as<Optimizer>(Family::optimizer, name, params);
        break;
      case Family::engine:
        break;
    }
  }
  if (resolved.kernel_tree) {
    records.push_back(kernel_tree_record(*resolved.kernel_tree, learned));
    problem.kernel = build_pipeline_kernel(records.back(), registry, data);
  }
  return records;
}

}  // namespace quench
