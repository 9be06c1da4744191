#include <cmath>
#include <limits>

#include "kernels.h"
#include "weighted_kernel.h"

namespace quench::kernels {
namespace {

// 003 eq 1: S = (2/pi) arcsin(r), r = s(x,x') / sqrt(s(x,x) s(x',x')), s(x,x') = 1 + sum w x x'.
// By the weights, dr/dw_l = a_l b_l / sqrt(s_a s_b) - (r/2) (a_l^2 / s_a + b_l^2 / s_b) and
// dS/dr = (2/pi) / sqrt(1 - r^2).
class InfiniteNetKernel final : public WeightedKernel {
 public:
  explicit InfiniteNetKernel(const Params& p) : WeightedKernel(p, true) {}

 private:
  // r and the pieces of its derivative for the rows of A and B.
  struct Correlation {
    Eigen::ArrayXd sa, sb;          // s(a, a), s(b, b)
    Eigen::ArrayXXd inverse_norms;  // 1 / sqrt(s_a s_b)
    Eigen::ArrayXXd r;
  };
  // sum_l c_l x_l^2 for each row x of X.
  static Eigen::ArrayXd quadratic(const Eigen::MatrixXd& X, const Eigen::VectorXd& c) {
    return (X.array().square().matrix() * c).array();
  }
  static Eigen::ArrayXd self(const Eigen::MatrixXd& X, const Eigen::VectorXd& w) {
    return quadratic(X, w) + 1.0;
  }
  static Correlation correlation(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                 const Eigen::VectorXd& w) {
    Correlation c{self(A, w), self(B, w), {}, {}};
    c.inverse_norms =
        (c.sa.sqrt().inverse().matrix() * c.sb.sqrt().inverse().matrix().transpose()).array();
    c.r = ((A * w.asDiagonal() * B.transpose()).array() + 1.0) * c.inverse_norms;
    c.r = c.r.min(1.0).max(-1.0);
    return c;
  }
  // v0 dS/dr. Where 1 - |r| is at the rounding level of r (the diagonal of a Gram matrix, or
  // duplicate inputs) dr/dw is 0 analytically but rounding times 1/sqrt(1 - r^2) is not: there
  // the product is taken as its limit 0 (the true value is O(sqrt(1 - |r|)) <= 1e-6 relative).
  Eigen::ArrayXXd slope(const Eigen::ArrayXXd& r) const {
    const double a = amplitude() * 2.0 / M_PI;
    return (1.0 - r.abs() > 1e-12).select(a / (1.0 - r.square()).sqrt(), 0.0);
  }

  Eigen::MatrixXd shape(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                        const Eigen::VectorXd& w) const override {
    return ((2.0 / M_PI) * correlation(A, B, w).r.asin()).matrix();
  }
  Eigen::VectorXd shape_diagonal(const Eigen::MatrixXd& X,
                                 const Eigen::VectorXd& /*w*/) const override {
    return Eigen::VectorXd::Ones(X.rows());  // r = 1: (2/pi)(pi/2)
  }
  Eigen::MatrixXd weight_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                    const Eigen::VectorXd& w,
                                    const Eigen::VectorXd& c) const override {
    const Correlation k = correlation(A, B, w);
    Eigen::ArrayXXd half = Eigen::ArrayXXd::Zero(A.rows(), B.rows());
    half.colwise() += quadratic(A, c) / k.sa;
    half.rowwise() += (quadratic(B, c) / k.sb).transpose();
    const Eigen::ArrayXXd dr =
        (A * c.asDiagonal() * B.transpose()).array() * k.inverse_norms - 0.5 * k.r * half;
    return (slope(k.r) * dr).matrix();
  }
  // With G = W o v0 dS/dr, Q = G o r and N_ab = 1/sqrt(s_a s_b): sum_ab G_ab dr_ab/dw_l =
  //   [A^T (G o N) B]_ll - 1/2 sum_a a_l^2 (Q 1)_a / s_a - 1/2 sum_b b_l^2 (Q^T 1)_b / s_b.
  Contractions contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                            const Eigen::MatrixXd& W, const Eigen::VectorXd& w) const override {
    const Correlation k = correlation(A, B, w);
    const Eigen::ArrayXXd G = W.array() * slope(k.r), Q = G * k.r;
    const Eigen::VectorXd qa = (Q.rowwise().sum() / k.sa).matrix(),
                          qb = (Q.colwise().sum().transpose() / k.sb).matrix();
    const Eigen::VectorXd weights = product_contractions(A, B, (G * k.inverse_norms).matrix()) -
                                    0.5 * (A.array().square().matrix().transpose() * qa) -
                                    0.5 * (B.array().square().matrix().transpose() * qb);
    return {weights, (2.0 / M_PI) * (W.array() * k.r.asin()).sum()};
  }
};

}  // namespace

ParamSchema infinite_net_schema() {
  ParamSchema s;
  InputWeights::declare(s);
  declare_amplitude_bias_noise(s);
  return s;
}

std::unique_ptr<Kernel> make_infinite_net(const Params& p) {
  return std::make_unique<InfiniteNetKernel>(p);
}

}  // namespace quench::kernels
