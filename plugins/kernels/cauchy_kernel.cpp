#include "input_weights.h"
#include "kernels.h"

namespace quench::kernels {
namespace {

class CauchyKernel final : public Kernel {
 public:
  explicit CauchyKernel(const Params& p)
      : weights_(p),
        v0_(p.real("amplitude")),
        v1_(p.real("bias")),
        v2_(p.real("noise")),
        beta_(p.real("beta")) {}

  void prepare(const Eigen::MatrixXd& X) override { weights_.prepare(X); }

  // 001 App. B: v0 / (1 + sum_l w_l (x_l - x'_l)^2)^beta + v1.
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    const Eigen::VectorXd& w = weights_.weights(A.cols());
    const Eigen::MatrixXd D = squared_distances(scale_inputs(A, w), scale_inputs(B, w));
    return (v0_ * (1.0 + D.array()).pow(-beta_) + v1_).matrix();
  }
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override {
    return Eigen::VectorXd::Constant(X.rows(), v0_ + v1_);
  }
  double diagonal_noise() const override { return v2_; }

 private:
  InputWeights weights_;
  double v0_, v1_, v2_, beta_;
};

}  // namespace

ParamSchema cauchy_schema() {
  ParamSchema s;
  InputWeights::declare(s);
  declare_amplitude_bias_noise(s);
  s.real("beta", "exponent of the rational quadratic (1 in 001)", 1.0, 1e-12);
  return s;
}

std::unique_ptr<Kernel> make_cauchy(const Params& p) { return std::make_unique<CauchyKernel>(p); }

}  // namespace quench::kernels
