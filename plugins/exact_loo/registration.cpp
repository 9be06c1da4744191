// The exact leave-one-out meta-engine's descriptor.
#include "exact_loo.h"
#include "quench/plugin.h"

namespace quench::exact_loo {

const LibraryDescriptor* describe() {
  static const auto descriptor =
      make_library("quench_exact_loo", "0.1.0",
                   {make_plugin<ExactLooEngine>(
                       Family::engine, "exact_loo", "0.1.0",
                       "exact leave-one-out by N retrains of an engine (the inducing inputs, "
                       "when set, kept for every retrain)",
                       ExactLooEngine::schema(), {Family::kernel, Family::likelihood},
                       InducingUse::optional, {}, ClassKernelUse::takes)});
  return &descriptor;
}

}  // namespace quench::exact_loo

QUENCH_PLUGIN_LIBRARY(quench::exact_loo::describe)
