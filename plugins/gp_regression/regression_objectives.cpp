#include "regression_objectives.h"

#include <cmath>

#include "quench/cholesky.h"
#include "quench/errors.h"

namespace quench::gp_regression {
namespace {

// Ky = K + (sigma^2 + v2) I factorized, with alpha = Ky^{-1} y.
struct Factorized {
  Cholesky chol;
  Eigen::VectorXd alpha;
};

Factorized factorize(const Kernel& kernel, const Likelihood& likelihood, const Eigen::MatrixXd& X,
                     const Eigen::VectorXd& y) {
  const auto noise = likelihood.gaussian_noise_variance();
  if (!noise) throw ConfigError({}, "exact GP regression objectives need a Gaussian likelihood");
  Eigen::MatrixXd Ky = kernel.gram(X);
  Ky.diagonal().array() += *noise;
  Cholesky chol(std::move(Ky), JitterPolicy{0, 0, 0}, "K + sigma^2 I");
  Eigen::VectorXd alpha = chol.solve(y);
  return {std::move(chol), std::move(alpha)};
}

// The gradient entries from sum_ab W_ab dKy_ab/dtheta_j: the kernel's (noise included) and the
// likelihood's noise variance sigma^2 (dKy/dsigma^2 = I). Other likelihood parameters do not
// enter exact regression.
Eigen::VectorXd gradient(const Kernel& kernel, const Likelihood& likelihood,
                         const Eigen::MatrixXd& X, const Eigen::MatrixXd& W) {
  const Eigen::VectorXd gk = kernel.gram_derivative_contractions(X, W);
  const auto lik_blocks = likelihood.hyperparameters();
  Eigen::VectorXd g = Eigen::VectorXd::Zero(gk.size() + flat_size(lik_blocks));
  g.head(gk.size()) = gk;
  Eigen::Index offset = gk.size();
  for (const Hyperparameter& h : lik_blocks) {
    if (h.name != "noise")
      throw ConfigError({}, "exact GP regression cannot learn the likelihood's '" + h.name + "'");
    g(offset) = W.trace();
    offset += h.value.size();
  }
  return g;
}

template <class F>
ObjectiveValue guarded(F&& f) {
  try {
    return f();
  } catch (const NumericalError& e) {
    ObjectiveValue v;
    v.status = {RunStatus::failed, e.what(), 0};
    return v;
  }
}

// log p(y | X, theta) = -1/2 y^T alpha - 1/2 log det Ky - n/2 log 2 pi      (R&W eq 5.8)
// d/dtheta_j = 1/2 tr((alpha alpha^T - Ky^{-1}) dKy/dtheta_j)                 (R&W eq 5.9)
// One factorization, one inverse (dpotri), and the kernel's O(n^2 d) contraction.
class Evidence final : public HyperparameterObjective {
 public:
  Evidence(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) : X_(X), y_(y) {}
  std::string quantity() const override { return "log_evidence"; }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override {
    return guarded([&] {
      const Factorized f = factorize(kernel, likelihood, X_, y_);
      ObjectiveValue v;
      const double n = static_cast<double>(y_.size());
      v.value =
          -0.5 * y_.dot(f.alpha) - 0.5 * f.chol.log_determinant() - 0.5 * n * std::log(2 * M_PI);
      Eigen::MatrixXd W = f.chol.inverse();
      W *= -0.5;
      W.noalias() += 0.5 * f.alpha * f.alpha.transpose();
      v.gradient = gradient(kernel, likelihood, X_, W);
      return v;
    });
  }

 private:
  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
};

// Leave-one-out predictive of y_i from the other points (R&W eqs 5.10-5.12), c = diag Ky^{-1}:
//   mu_i = y_i - alpha_i / c_i,  s2_i = 1 / c_i,
//   L = (1/n) sum_i [-1/2 log s2_i - (y_i - mu_i)^2 / (2 s2_i) - 1/2 log 2 pi]
// (R&W's L_LOO of eq 5.11, divided by n: a mean per point). Eq 5.13 with Z_j = Ky^{-1} dKy_j:
//   dL/dtheta_j = (1/n) sum_i [alpha_i [Z_j alpha]_i - 1/2 (1 + alpha_i^2/c_i) [Z_j Ky^{-1}]_ii] /
//   c_i
//              = (1/n) sum_ab W_ab [dKy_j]_ab,  W = Ky^{-1} a alpha^T - Ky^{-1} diag(b) Ky^{-1},
// a_i = alpha_i / c_i, b_i = (1 + alpha_i^2 / c_i) / (2 c_i). One factorization, one inverse and
// one n x n x n product.
class LeaveOneOut final : public HyperparameterObjective {
 public:
  LeaveOneOut(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) : X_(X), y_(y) {}
  std::string quantity() const override { return "loo_log_predictive"; }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override {
    return guarded([&] {
      const Factorized f = factorize(kernel, likelihood, X_, y_);
      const Eigen::MatrixXd Kinv = f.chol.inverse();
      const Eigen::VectorXd c = Kinv.diagonal();
      const double n = static_cast<double>(y_.size());
      ObjectiveValue v;
      v.value = (0.5 * c.array().log() - 0.5 * f.alpha.array().square() / c.array() -
                 0.5 * std::log(2 * M_PI))
                    .sum() /
                n;
      const Eigen::VectorXd a = f.alpha.cwiseQuotient(c);
      const Eigen::VectorXd b =
          ((1.0 + f.alpha.array().square() / c.array()) / (2.0 * c.array())).matrix();
      Eigen::MatrixXd W(Kinv.rows(), Kinv.cols());
      W.noalias() = -(Kinv * b.asDiagonal()) * Kinv;
      W.noalias() += (Kinv * a) * f.alpha.transpose();
      W /= n;
      v.gradient = gradient(kernel, likelihood, X_, W);
      return v;
    });
  }

 private:
  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
};

}  // namespace

std::unique_ptr<HyperparameterObjective> make_regression_objective(const Problem& problem,
                                                                   const std::string& name) {
  const Dataset& d = *problem.data;
  if (name == "evidence") return std::make_unique<Evidence>(d.X_train, d.y_train);
  if (name == "loo") return std::make_unique<LeaveOneOut>(d.X_train, d.y_train);
  throw ConfigError(
      {}, "exact_gp_regression offers the objectives 'evidence' and 'loo', not '" + name + "'");
}

}  // namespace quench::gp_regression
