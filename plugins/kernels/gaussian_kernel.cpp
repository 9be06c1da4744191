#include "input_weights.h"
#include "kernels.h"

namespace quench::kernels {
namespace {

class GaussianKernel final : public Kernel {
 public:
  explicit GaussianKernel(const Params& p)
      : weights_(p), v0_(p.real("amplitude")), v1_(p.real("bias")), v2_(p.real("noise")) {}

  void prepare(const Eigen::MatrixXd& X) override { weights_.prepare(X); }

  // 001 App. B: v0 exp(-1/2 sum_l w_l (x_l - x'_l)^2) + v1.
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    const Eigen::VectorXd& w = weights_.weights(A.cols());
    Eigen::MatrixXd K = squared_distances(scale_inputs(A, w), scale_inputs(B, w));
    K = (v0_ * (-0.5 * K.array()).exp() + v1_).matrix();
    return K;
  }
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override {
    return Eigen::VectorXd::Constant(X.rows(), v0_ + v1_);
  }
  double diagonal_noise() const override { return v2_; }

 private:
  InputWeights weights_;
  double v0_, v1_, v2_;
};

}  // namespace

ParamSchema gaussian_schema() {
  ParamSchema s;
  InputWeights::declare(s);
  declare_amplitude_bias_noise(s);
  return s;
}

std::unique_ptr<Kernel> make_gaussian(const Params& p) {
  return std::make_unique<GaussianKernel>(p);
}

}  // namespace quench::kernels
