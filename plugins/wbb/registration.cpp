// The WBB library's descriptor.
#include "quench/plugin.h"
#include "wbb_engine.h"

namespace quench::wbb {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_wbb", "0.1.0",
      {make_plugin<WbbEngine>(Family::engine, "wbb", "0.1.0",
                              "weighted Bayesian bootstrap: posterior draws as weighted posterior "
                              "modes (004 eq 4, Algorithm 1)",
                              WbbEngine::schema(), {Family::resampler, Family::optimizer})});
  return &descriptor;
}

}  // namespace quench::wbb

QUENCH_PLUGIN_LIBRARY(quench::wbb::describe)
