// The GP regression library's descriptor.
#include "exact_gp_regression.h"
#include "quench/plugin.h"
#include "sparse_gp_regression.h"

namespace quench::gp_regression {

const LibraryDescriptor* describe() {
  static const auto descriptor =
      make_library("quench_gp_regression", "0.1.0",
                   {make_plugin<ExactGpRegression>(
                        Family::engine, "exact_gp_regression", "0.1.0",
                        "exact GP regression: posterior mean/variance, log marginal likelihood",
                        ExactGpRegression::schema(), {Family::kernel, Family::likelihood},
                        InducingUse::none, TargetUse::fitting({TargetKind::real}, true)),
                    make_plugin<SparseGpRegression>(
                        Family::engine, "sparse_gp_regression", "0.1.0",
                        "inducing-point GP regression (FITC, VFE, SoR): posterior mean/variance, "
                        "log evidence or its VFE bound, O(N M^2)",
                        SparseGpRegression::schema(), {Family::kernel, Family::likelihood},
                        InducingUse::required, TargetUse::fitting({TargetKind::real}, true))});
  return &descriptor;
}

}  // namespace quench::gp_regression

QUENCH_PLUGIN_LIBRARY(quench::gp_regression::describe)
