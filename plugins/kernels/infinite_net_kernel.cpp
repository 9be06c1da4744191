#include <cmath>

#include "input_weights.h"
#include "kernels.h"

namespace quench::kernels {
namespace {

class InfiniteNetKernel final : public Kernel {
 public:
  explicit InfiniteNetKernel(const Params& p)
      : weights_(p), v0_(p.real("amplitude")), v1_(p.real("bias")), v2_(p.real("noise")) {}

  void prepare(const Eigen::MatrixXd& X) override { weights_.prepare(X); }

  // 003 eq 1: v0 (2/pi) arcsin(S(x,x') / sqrt(S(x,x) S(x',x'))) + v1, S = 1 + sum w x x'.
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    const Eigen::VectorXd& w = weights_.weights(A.cols());
    Eigen::MatrixXd S = (A * w.asDiagonal() * B.transpose()).array() + 1.0;
    const Eigen::ArrayXd sa = self(A, w).array().sqrt(), sb = self(B, w).array().sqrt();
    Eigen::ArrayXXd r = S.array();
    r.colwise() /= sa;
    r.rowwise() /= sb.transpose();
    return (v0_ * (2.0 / M_PI) * r.min(1.0).max(-1.0).asin() + v1_).matrix();
  }
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override {
    // The arcsin argument is 1 on the diagonal: v0 (2/pi)(pi/2) + v1.
    return Eigen::VectorXd::Constant(X.rows(), v0_ + v1_);
  }
  double diagonal_noise() const override { return v2_; }

 private:
  static Eigen::VectorXd self(const Eigen::MatrixXd& X, const Eigen::VectorXd& w) {
    return (X.array().square().matrix() * w).array() + 1.0;
  }
  InputWeights weights_;
  double v0_, v1_, v2_;
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
