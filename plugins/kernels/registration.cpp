// The kernels library's descriptor.
#include "kernels.h"
#include "quench/plugin.h"

namespace quench::kernels {

const LibraryDescriptor* describe() {
  static const LibraryDescriptor descriptor = [] {
    LibraryDescriptor d;
    d.library_name = "quench_kernels";
    d.library_version = "0.1.0";
    auto add = [&](const char* name, const char* doc, ParamSchema schema, auto make) {
      d.plugins.push_back(
          {Family::kernel,
           name,
           "0.1.0",
           doc,
           std::move(schema),
           [make](const Params& p) -> std::unique_ptr<Component> { return make(p); },
           {}});
    };
    add("gaussian", "squared-exponential v0 exp(-1/2 sum w_l (x_l - x'_l)^2) + v1 (001 App. B)",
        gaussian_schema(), make_gaussian);
    add("linear", "simple perceptron sum w_l x_l x'_l + v1 (001 App. B)", linear_schema(),
        make_linear);
    add("infinite_net", "infinite neural network, arcsin covariance (003 eq 1)",
        infinite_net_schema(), make_infinite_net);
    add("cauchy", "rational quadratic v0 / (1 + sum w_l (x_l - x'_l)^2)^beta + v1 (001 App. B)",
        cauchy_schema(), make_cauchy);
    return d;
  }();
  return &descriptor;
}

}  // namespace quench::kernels

QUENCH_PLUGIN_LIBRARY(quench::kernels::describe)
