#include "kernels.h"
#include "stationary_kernel.h"

namespace quench::kernels {
namespace {

// R&W eq 4.19 with ARD weights (scikit-learn's RationalQuadratic): v0 (1 + D / (2 alpha))^-alpha
// + v1, D = sum_l w_l (x_l - x'_l)^2, w_l = 1/l_l^2. With x = D / (2 alpha):
//   g = exp(-alpha log(1 + x)),  dg/dD = -g / (2 (1 + x)),
//   dg/dalpha = g (-log(1 + x) + x / (1 + x)) = g (-log(1 + D / (2 alpha)) + D / (2 alpha + D)).
// log1p keeps g and dg/dalpha accurate for large alpha (x << 1), where g -> exp(-D/2).
class RationalQuadraticKernel final : public StationaryKernel {
 public:
  explicit RationalQuadraticKernel(const Params& p) : StationaryKernel(p) {
    add_shape_parameter("alpha", p.real("alpha"), 1e-5, 1e5);  // scikit-learn's alpha_bounds
  }

 private:
  double alpha() const { return shape_parameter(0); }

  void profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope) const override {
    const double a = alpha();
    G.array() /= 2.0 * a;  // x
    if (slope) *slope = (G.array() + 1.0).matrix();
    G.array() = (-a * G.array().log1p()).exp();
    if (slope) slope->array() = -0.5 * G.array() / slope->array();
  }

  std::vector<Eigen::MatrixXd> profile_parameter_derivatives(const Pairs& p) const override {
    const double a = alpha();
    const auto D = p.D.array();
    return {(p.G.array() * (D / (2.0 * a + D) - (D / (2.0 * a)).log1p())).matrix()};
  }
};

}  // namespace

ParamSchema rational_quadratic_schema() {
  ParamSchema s;
  InputWeights::declare(s);
  declare_amplitude_bias_noise(s);
  s.real("alpha", "shape alpha > 0 of the scale mixture (R&W eq 4.19); -> infinity: gaussian", 1.0,
         1e-300);
  return s;
}

std::unique_ptr<Kernel> make_rational_quadratic(const Params& p) {
  return std::make_unique<RationalQuadraticKernel>(p);
}

}  // namespace quench::kernels
