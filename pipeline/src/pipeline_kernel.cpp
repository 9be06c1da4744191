// What a run builds its components from: records of plugins and of a composite kernel tree
// (components.kernel: {sum: [...]}), which a saved model keeps, and the kernel built from its
// record through build_kernel (quench/kernel_record.h), as a saved model rebuilds it.
#include <algorithm>
#include <map>
#include <string>

#include "pipeline_spec.h"
#include "quench/kernel_record.h"
#include "quench/registry.h"
#include "quench/registry_models.h"

namespace quench {
namespace {

void check_columns(const KernelNode& node, const Dataset& data, std::vector<Diagnostic>& out) {
  for (const auto& [name, where] : node.columns)
    if (std::find(data.input_names.begin(), data.input_names.end(), name) == data.input_names.end())
      out.push_back({where, "'" + name + "' in " + node.path +
                                ".columns is not an input column of the data" +
                                suggestion(name, data.input_names)});
  for (const KernelNode& part : node.parts) check_columns(part, data, out);
}

}  // namespace

std::vector<Diagnostic> kernel_diagnostics(const PipelineSpec& spec,
                                           const ResolvedPipeline* resolved,
                                           const Registry& registry, const Dataset& data) {
  std::vector<Diagnostic> found;
  if (spec.kernel_tree) check_columns(*spec.kernel_tree, data, found);
  if (spec.per_class_kernel() &&
      static_cast<Eigen::Index>(spec.kernel_tree->parts.size()) != data.classes)
    found.push_back({spec.kernel_tree->at,
                     "components.kernel is a list of " +
                         std::to_string(spec.kernel_tree->parts.size()) +
                         " kernels, one per class, but the data's target " +
                         (data.classes > 0 ? "has " + std::to_string(data.classes) + " classes"
                                           : std::string("is not a classes target"))});
  if (!found.empty() || !resolved) return found;
  const auto built = [&](const ComponentRecord& record, const SourceLocation& where) {
    try {
      build_pipeline_kernel(record, registry, data);
      return true;
    } catch (const std::exception& e) {
      found.push_back({where, "components.kernel: " + std::string(e.what())});
      return false;
    }
  };
  if (resolved->kernel_tree) {
    built(kernel_tree_record(*resolved->kernel_tree, std::nullopt), spec.kernel_tree->at);
    return found;
  }
  const auto plain = resolved->components.find(Family::kernel);
  if (plain == resolved->components.end()) return found;
  const ResolvedPlugin& kernel = plain->second;
  // Each sweep value with the other sweeps at their first (as the resolver builds plugins).
  std::map<std::string, ParamValue> base = kernel.fixed;
  for (const Sweep& s : kernel.sweeps) base[s.param] = s.values.front();
  std::vector<std::pair<std::map<std::string, ParamValue>, SourceLocation>> variants{
      {base, spec.components.at(Family::kernel).at}};
  for (const Sweep& s : kernel.sweeps)
    for (std::size_t k = 1; k < s.values.size(); ++k) {
      variants.emplace_back(base, s.at);
      variants.back().first[s.param] = s.values[k];
    }
  for (const auto& [values, where] : variants)
    if (!built(component_record(*kernel.entry, Params(kernel.entry->info->schema, values),
                                std::nullopt),
               where))
      break;
  return found;
}

namespace {

// The learned values of `family`'s blocks, by block ("kernel.1.0.period" -> "1.0.period").
std::map<std::string, Eigen::VectorXd> learned_blocks(
    Family family, const std::optional<LearningReport>& learned) {
  std::map<std::string, Eigen::VectorXd> blocks;
  if (!learned) return blocks;
  const std::string prefix = std::string(to_string(family)) + ".";
  for (const LearnedValue& v : learned->learned)
    if (v.key.compare(0, prefix.size(), prefix) == 0) blocks[v.key.substr(prefix.size())] = v.value;
  return blocks;
}

}  // namespace

ComponentRecord component_record(const PluginEntry& entry, const Params& params,
                                 const std::optional<LearningReport>& learned) {
  ComponentRecord r;
  r.family = entry.info->family;
  r.plugin = entry.info->name;
  r.version = entry.info->version;
  r.params = params.values();
  r.learned = learned_blocks(r.family, learned);
  return r;
}

ComponentRecord kernel_tree_record(const ResolvedKernel& tree,
                                   const std::optional<LearningReport>& learned) {
  ComponentRecord r;
  if (tree.combine.empty()) {
    r = component_record(*tree.plugin.entry,
                         Params(tree.plugin.entry->info->schema, tree.plugin.fixed), learned);
  } else {
    r.combine = tree.combine;
    for (const ResolvedKernel& part : tree.parts)
      r.parts.push_back(kernel_tree_record(part, std::nullopt));
    r.learned = learned_blocks(Family::kernel, learned);
  }
  r.columns = tree.columns;
  return r;
}

std::shared_ptr<Kernel> build_pipeline_kernel(const ComponentRecord& record,
                                              const Registry& registry, const Dataset& data) {
  std::shared_ptr<Kernel> kernel =
      build_kernel(record, RegistryComponentSource(registry), data.input_names);
  kernel->prepare(data.X_train);
  for (const auto& [block, value] : record.learned) kernel->set_hyperparameter(block, value);
  return kernel;
}

}  // namespace quench
