// The GP regression library's descriptor.
#include "exact_gp_regression.h"
#include "quench/plugin.h"

namespace quench::gp_regression {

const LibraryDescriptor* describe() {
  static const auto descriptor =
      make_library("quench_gp_regression", "0.1.0",
                   {make_plugin<ExactGpRegression>(
                       Family::engine, "exact_gp_regression", "0.1.0",
                       "exact GP regression: posterior mean/variance, log marginal likelihood",
                       ExactGpRegression::schema(), {Family::kernel, Family::likelihood})});
  return &descriptor;
}

}  // namespace quench::gp_regression

QUENCH_PLUGIN_LIBRARY(quench::gp_regression::describe)
