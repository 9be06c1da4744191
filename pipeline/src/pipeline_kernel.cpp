// A pipeline's kernel: a plugin's or a composite tree (components.kernel: {sum: [...]}), built
// through build_kernel (quench/kernel_record.h) as a saved model rebuilds it.
#include <algorithm>

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

std::vector<Diagnostic> kernel_diagnostics(const PipelineSpec& spec, const Dataset& data) {
  std::vector<Diagnostic> found;
  if (spec.kernel_tree) check_columns(*spec.kernel_tree, data, found);
  return found;
}

ComponentRecord kernel_tree_record(const ResolvedKernel& tree,
                                   const std::optional<LearningReport>& learned) {
  ComponentRecord r;
  if (tree.combine.empty()) {
    const PluginInfo& info = *tree.plugin.entry->info;
    r.plugin = info.name;
    r.version = info.version;
    r.params = Params(info.schema, tree.plugin.fixed).values();
  } else {
    r.combine = tree.combine;
    for (const ResolvedKernel& part : tree.parts)
      r.parts.push_back(kernel_tree_record(part, std::nullopt));
  }
  r.columns = tree.columns;
  if (learned)
    for (const LearnedValue& v : learned->learned)
      if (v.key.rfind("kernel.", 0) == 0) r.learned[v.key.substr(7)] = v.value;
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
