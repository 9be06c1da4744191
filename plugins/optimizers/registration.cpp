// The optimizers library's descriptor.
#include "adam_optimizer.h"
#include "lbfgs_optimizer.h"
#include "quench/plugin.h"

namespace quench::optimizers {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_optimizers", "0.1.0",
      {make_plugin<LbfgsOptimizer>(
           Family::optimizer, "lbfgs", "0.1.0",
           "L-BFGS for smooth objectives (Ceres Solver; projected within bounds)",
           LbfgsOptimizer::schema()),
       make_plugin<AdamOptimizer>(Family::optimizer, "adam", "0.1.0",
                                  "Adam with shuffled mini-batches", AdamOptimizer::schema())});
  return &descriptor;
}

}  // namespace quench::optimizers

QUENCH_PLUGIN_LIBRARY(quench::optimizers::describe)
