// The GP regression library's descriptor.
#include "exact_gp_regression.h"
#include "quench/plugin.h"

namespace quench::gp_regression {

const LibraryDescriptor* describe() {
  static const LibraryDescriptor descriptor = [] {
    LibraryDescriptor d;
    d.library_name = "quench_gp_regression";
    d.library_version = "0.1.0";
    d.plugins.push_back({Family::engine,
                         "exact_gp_regression",
                         "0.1.0",
                         "exact GP regression: posterior mean/variance, log marginal likelihood",
                         ExactGpRegression::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<ExactGpRegression>(p);
                         },
                         {Family::kernel, Family::likelihood}});
    return d;
  }();
  return &descriptor;
}

}  // namespace quench::gp_regression

QUENCH_PLUGIN_LIBRARY(quench::gp_regression::describe)
