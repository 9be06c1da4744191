// The weighted solvers library's descriptor.
#include "coordinate_descent.h"
#include "quench/plugin.h"
#include "trend_filter_admm.h"

namespace quench::weighted_solvers {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_weighted_solvers", "0.1.0",
      {make_plugin<CoordinateDescent>(
           Family::optimizer, "coordinate_descent", "0.1.0",
           "weighted elastic net / LASSO / ridge by coordinate descent with warm starts",
           CoordinateDescent::schema()),
       make_plugin<TrendFilterAdmm>(
           Family::optimizer, "trend_filter_admm", "0.1.0",
           "weighted trend filtering by specialised ADMM (Ramdas & Tibshirani), duality-gap stop",
           TrendFilterAdmm::schema())});
  return &descriptor;
}

}  // namespace quench::weighted_solvers

QUENCH_PLUGIN_LIBRARY(quench::weighted_solvers::describe)
