// The kernels library's descriptor.
#include "kernels.h"
#include "quench/plugin.h"

namespace quench::kernels {
namespace {

PluginInfo kernel(const char* name, const char* doc, ParamSchema schema,
                  std::unique_ptr<Kernel> (*make)(const Params&)) {
  PluginInfo info;
  info.family = Family::kernel;
  info.name = name;
  info.version = "0.1.0";
  info.doc = doc;
  info.schema = std::move(schema);
  info.factory = [make](const Params& p) -> std::unique_ptr<Component> { return make(p); };
  return info;
}

}  // namespace

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_kernels", "0.1.0",
      {kernel("gaussian",
              "squared-exponential v0 exp(-1/2 sum w_l (x_l - x'_l)^2) + v1 (001 App. B)",
              gaussian_schema(), make_gaussian),
       kernel("linear", "simple perceptron sum w_l x_l x'_l + v1 (001 App. B)", linear_schema(),
              make_linear),
       kernel("infinite_net", "infinite neural network, arcsin covariance (003 eq 1)",
              infinite_net_schema(), make_infinite_net),
       kernel("cauchy",
              "rational quadratic v0 / (1 + sum w_l (x_l - x'_l)^2)^beta + v1 (001 App. B)",
              cauchy_schema(), make_cauchy),
       kernel("matern",
              "Matern v0 f_nu(r) + v1, nu = 0.5, 1.5, 2.5, r^2 = sum w_l (x_l - x'_l)^2 (R&W eq "
              "4.17)",
              matern_schema(), make_matern),
       kernel("periodic",
              "exp-sine-squared v0 exp(-2 sum w_l sin^2(pi (x_l - x'_l) / p)) + v1 (R&W eq 4.31)",
              periodic_schema(), make_periodic),
       kernel("rational_quadratic",
              "v0 (1 + sum w_l (x_l - x'_l)^2 / (2 alpha))^-alpha + v1, alpha learnable (R&W eq "
              "4.19)",
              rational_quadratic_schema(), make_rational_quadratic),
       kernel("constant",
              "c for every pair, a learnable scale or bias (scikit-learn's ConstantKernel)",
              constant_schema(), make_constant),
       kernel("white", "noise I on the training Gram matrix, 0 across (scikit-learn's WhiteKernel)",
              white_schema(), make_white)});
  return &descriptor;
}

}  // namespace quench::kernels

QUENCH_PLUGIN_LIBRARY(quench::kernels::describe)
