// The optimizers library's descriptor.
#include "lbfgs_optimizer.h"
#include "quench/plugin.h"

namespace quench::optimizers {

const LibraryDescriptor* describe() {
  static const LibraryDescriptor descriptor = [] {
    LibraryDescriptor d;
    d.library_name = "quench_optimizers";
    d.library_version = "0.1.0";
    d.plugins.push_back({Family::optimizer,
                         "lbfgs",
                         "0.1.0",
                         "L-BFGS for smooth objectives (Ceres Solver)",
                         LbfgsOptimizer::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<LbfgsOptimizer>(p);
                         },
                         {}});
    return d;
  }();
  return &descriptor;
}

}  // namespace quench::optimizers

QUENCH_PLUGIN_LIBRARY(quench::optimizers::describe)
