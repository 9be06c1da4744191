#include "kernels.h"
#include "scalar_hyperparameters.h"

namespace quench::kernels {
namespace {

// scikit-learn's WhiteKernel: K(X, X) = noise I on the training rows, K(X, Y) = 0 otherwise. As
// the "noise" v2 of the other kernels, the variance enters only through diagonal_noise(), which
// Kernel::gram adds to the training Gram matrix (and gram_derivative differentiates, as I, for the
// block named "noise"); cross() is 0 for every pair of row sets, the same rows included.
class WhiteKernel final : public Kernel {
 public:
  explicit WhiteKernel(const Params& p) : noise_(p.real("noise")) {}

  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    return Eigen::MatrixXd::Zero(A.rows(), B.rows());
  }
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override {
    return Eigen::VectorXd::Zero(X.rows());
  }
  double diagonal_noise() const override { return noise_; }

  std::vector<Hyperparameter> hyperparameters() const override {
    return {scalar_block("noise", noise_, 1e-10, 1e6)};  // the other kernels' noise bounds
  }
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override {
    if (name != "noise") return Kernel::set_hyperparameter(name, value);  // names the block
    noise_ = checked_scalar(name, value, false);
  }
  // cross() does not depend on the noise: every derivative and contraction is 0.
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override {
    check_flat_entry(j, 1);
    return Eigen::MatrixXd::Zero(A.rows(), B.rows());
  }
  Eigen::VectorXd cross_derivative_contractions(const Eigen::MatrixXd& /*A*/,
                                                const Eigen::MatrixXd& /*B*/,
                                                const Eigen::MatrixXd& /*W*/) const override {
    return Eigen::VectorXd::Zero(1);
  }
  Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& /*X*/,
                                                   const Eigen::VectorXd& /*w*/) const override {
    return Eigen::VectorXd::Zero(1);
  }

 private:
  double noise_;
};

}  // namespace

ParamSchema white_schema() {
  ParamSchema s;
  s.real("noise",
         "variance added to the diagonal of the training Gram matrix; the default 1 is "
         "scikit-learn's noise_level (a unit variance on standardized targets, a start on the log "
         "scale that learning moves down)",
         1.0, 0.0);
  return s;
}

std::unique_ptr<Kernel> make_white(const Params& p) { return std::make_unique<WhiteKernel>(p); }

}  // namespace quench::kernels
