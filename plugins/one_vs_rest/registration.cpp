// The one-vs-rest meta-engine's descriptor.
#include "one_vs_rest.h"
#include "quench/plugin.h"

namespace quench::one_vs_rest {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_one_vs_rest", "0.1.0",
      {make_plugin<OneVsRestEngine>(
          Family::engine, "one_vs_rest", "0.1.0",
          "one-vs-rest multi-class classifier over a binary engine, per-class built-in LOO",
          OneVsRestEngine::schema(), {Family::kernel, Family::likelihood}, InducingUse::none,
          TargetUse::reading(TargetKind::classes, {TargetKind::binary}), ClassKernelUse::splits)});
  return &descriptor;
}

}  // namespace quench::one_vs_rest

QUENCH_PLUGIN_LIBRARY(quench::one_vs_rest::describe)
