#include "kernels.h"
#include "weighted_kernel.h"

namespace quench::kernels {
namespace {

class LinearKernel final : public WeightedKernel {
 public:
  explicit LinearKernel(const Params& p) : WeightedKernel(p, false) {}

 private:
  // 001 App. B: sum_l w_l x_l x'_l + v1 (no amplitude: it would duplicate the weights).
  Eigen::MatrixXd shape(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                        const Eigen::VectorXd& w) const override {
    return A * w.asDiagonal() * B.transpose();
  }
  Eigen::VectorXd shape_diagonal(const Eigen::MatrixXd& X,
                                 const Eigen::VectorXd& w) const override {
    return X.array().square().matrix() * w;
  }
  // dK/dw_l = a_l b_l.
  Eigen::MatrixXd weight_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                    const Eigen::VectorXd& /*w*/,
                                    const Eigen::VectorXd& c) const override {
    return shape(A, B, c);
  }
  Contractions contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                            const Eigen::MatrixXd& W, const Eigen::VectorXd& /*w*/) const override {
    return {product_contractions(A, B, W), 0.0};  // no amplitude block
  }
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
