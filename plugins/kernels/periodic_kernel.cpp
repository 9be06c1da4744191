#include <cmath>

#include "kernels.h"
#include "stationary_kernel.h"

namespace quench::kernels {
namespace {

// MacKay (1998), R&W eq 4.31 with ARD weights (scikit-learn's ExpSineSquared):
//   v0 exp(-2 sum_l w_l sin^2(pi (x_l - x'_l) / p)) + v1,  w_l = 1/l_l^2,
// the gaussian profile exp(-D/2) of the inputs embedded as u(x) = (cos t, sin t), t = 2 pi x / p,
// for which |u(x) - u(x')|^2 = 2 - 2 cos(t - t') = 4 sin^2(pi (x - x') / p) (R&W Sec. 4.2.3):
// the distances come from one product of the 2d embedded columns, as those of the gaussian.
class PeriodicKernel final : public StationaryKernel {
 public:
  explicit PeriodicKernel(const Params& p) : StationaryKernel(p) {
    add_shape_parameter("period", p.real("period"), 1e-5, 1e5);  // scikit-learn's bounds
  }

 private:
  double period() const { return shape_parameter(0); }

  void profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope) const override {
    gaussian_profile(G, slope);
  }

  Eigen::MatrixXd embed(const Eigen::MatrixXd& X) const override {
    const Eigen::ArrayXXd t = (2.0 * M_PI / period()) * X.array();
    Eigen::MatrixXd U(X.rows(), 2 * X.cols());
    U << t.cos().matrix(), t.sin().matrix();
    return U;
  }

  // dg/dp = g'(D) dD/dp with D = sum_l w_l (2 - 2 cos(t_l - t'_l)), dt/dp = -t/p:
  //   dD/dp = -(4 pi / p^2) sum_l w_l d_l sin(2 pi d_l / p),  d_l = a_l - b_l.
  // With sin(t_a - t_b) = s_a c_b - c_a s_b (s, c the embedded columns) this is one product
  // [a s_a, -a c_a, -s_a, c_a] diag(w) [c_b, s_b, b c_b, b s_b]^T. Far from the origin its four
  // terms cancel to the rounding of the angles t themselves, which limits K there anyway.
  std::vector<Eigen::MatrixXd> profile_parameter_derivatives(const Pairs& p) const override {
    const Eigen::Index d = p.A.cols();
    const auto a = p.A.array(), b = p.B.array();
    const auto ca = p.EA.leftCols(d).array(), sa = p.EA.rightCols(d).array();
    const auto cb = p.EB.leftCols(d).array(), sb = p.EB.rightCols(d).array();
    Eigen::MatrixXd L(a.rows(), 4 * d), R(b.rows(), 4 * d);
    L << (a * sa).matrix(), -(a * ca).matrix(), -sa.matrix(), ca.matrix();
    R << cb.matrix(), sb.matrix(), (b * cb).matrix(), (b * sb).matrix();
    const double q = period();
    L = L * ((-4.0 * M_PI / (q * q)) * input_weights().weights(d).replicate(4, 1)).asDiagonal();
    return {p.slope.cwiseProduct(L * R.transpose())};
  }
};

}  // namespace

ParamSchema periodic_schema() {
  ParamSchema s;
  InputWeights::declare(s);
  declare_amplitude_bias_noise(s);
  s.real("period", "period p > 0 in every input dimension (R&W eq 4.31)", 1.0, 1e-300);
  return s;
}

std::unique_ptr<Kernel> make_periodic(const Params& p) {
  return std::make_unique<PeriodicKernel>(p);
}

}  // namespace quench::kernels
