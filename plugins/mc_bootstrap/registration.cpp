// The Monte-Carlo bootstrap library's descriptor.
#include "mc_bootstrap.h"
#include "quench/plugin.h"

namespace quench::mc_bootstrap {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_mc_bootstrap", "0.1.0",
      {make_plugin<McBootstrap>(
          Family::engine, "mc_bootstrap", "0.1.0",
          "Monte-Carlo resampling: retrains an inner engine on resampled data (000 eq 21)",
          McBootstrap::schema(), {Family::kernel, Family::likelihood, Family::resampler},
          InducingUse::optional, {}, ClassKernelUse::takes)});
  return &descriptor;
}

}  // namespace quench::mc_bootstrap

QUENCH_PLUGIN_LIBRARY(quench::mc_bootstrap::describe)
