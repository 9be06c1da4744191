// The multi-class engine's descriptor: nested EP on C latent GPs (Riihimaki et al. 2013).
#include "multiclass_ep.h"
#include "quench/plugin.h"

namespace quench::multiclass {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_multiclass", "0.1.0",
      {make_plugin<MulticlassEpEngine>(
          Family::engine, "multiclass_ep", "0.1.0",
          "multi-class GP classifier: nested EP, multinomial probit, built-in LOO (FITC/VFE/SoR "
          "with inducing:)",
          MulticlassEpEngine::schema(), {Family::kernel, Family::likelihood}, InducingUse::optional,
          TargetUse::fitting({TargetKind::classes}), ClassKernelUse::takes)});
  return &descriptor;
}

}  // namespace quench::multiclass

QUENCH_PLUGIN_LIBRARY(quench::multiclass::describe)
