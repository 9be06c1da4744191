#include "input_weights.h"
#include "kernels.h"

namespace quench::kernels {
namespace {

class LinearKernel final : public Kernel {
 public:
  explicit LinearKernel(const Params& p) : weights_(p), v1_(p.real("bias")), v2_(p.real("noise")) {}

  void prepare(const Eigen::MatrixXd& X) override { weights_.prepare(X); }

  // 001 App. B: sum_l w_l x_l x'_l + v1.
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    const Eigen::VectorXd& w = weights_.weights(A.cols());
    Eigen::MatrixXd K = A * w.asDiagonal() * B.transpose();
    K.array() += v1_;
    return K;
  }
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override {
    const Eigen::VectorXd& w = weights_.weights(X.cols());
    return (X.array().square().matrix() * w).array() + v1_;
  }
  double diagonal_noise() const override { return v2_; }

 private:
  InputWeights weights_;
  double v1_, v2_;
};

}  // namespace

ParamSchema linear_schema() {
  ParamSchema s;
  InputWeights::declare(s);
  s.real("bias", "v1, a constant added to every covariance", 0.0, 0.0)
      .real("noise", "v2, a variance added to the diagonal of the training Gram matrix", 0.0, 0.0);
  return s;
}

std::unique_ptr<Kernel> make_linear(const Params& p) { return std::make_unique<LinearKernel>(p); }

}  // namespace quench::kernels
