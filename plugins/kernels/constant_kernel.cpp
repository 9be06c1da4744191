#include "kernels.h"
#include "scalar_hyperparameters.h"

namespace quench::kernels {
namespace {

// scikit-learn's ConstantKernel: k(x, x') = c for every pair, the learnable block "value" c.
class ConstantKernel final : public Kernel {
 public:
  explicit ConstantKernel(const Params& p) : c_(p.real("value")) {}

  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    return Eigen::MatrixXd::Constant(A.rows(), B.rows(), c_);
  }
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override {
    return Eigen::VectorXd::Constant(X.rows(), c_);
  }

  std::vector<Hyperparameter> hyperparameters() const override {
    return {scalar_block("value", c_, 1e-10, 1e6)};  // the bounds of a bias, down to none
  }
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override {
    if (name != "value") return Kernel::set_hyperparameter(name, value);  // names the block
    c_ = checked_scalar(name, value, false);
  }
  // dK/dc = 1 everywhere: the contractions are sum_ab W_ab and sum_i w_i.
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override {
    check_flat_entry(j, 1);
    return Eigen::MatrixXd::Ones(A.rows(), B.rows());
  }
  Eigen::VectorXd cross_derivative_contractions(const Eigen::MatrixXd& /*A*/,
                                                const Eigen::MatrixXd& /*B*/,
                                                const Eigen::MatrixXd& W) const override {
    return Eigen::VectorXd::Constant(1, W.sum());
  }
  Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& /*X*/,
                                                   const Eigen::VectorXd& w) const override {
    return Eigen::VectorXd::Constant(1, w.sum());
  }

 private:
  double c_;
};

}  // namespace

ParamSchema constant_schema() {
  ParamSchema s;
  s.real("value", "c, the covariance of every pair (a scale in products, a bias in sums)", 1.0,
         0.0);
  return s;
}

std::unique_ptr<Kernel> make_constant(const Params& p) {
  return std::make_unique<ConstantKernel>(p);
}

}  // namespace quench::kernels
