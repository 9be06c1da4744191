#include "coordinate_descent.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "quench/errors.h"

namespace quench::weighted_solvers {

ParamSchema CoordinateDescent::schema() {
  ParamSchema s;
  s.real("tolerance",
         "stop when max_j H_jj (delta beta_j)^2 < tolerance x weighted null deviance "
         "(glmnet's rule; H_jj = sum_i w_i x_ij^2)",
         1e-12, 0.0)
      .integer("max_sweeps", "limit on full passes over the coordinates", 100000, 1)
      .string("mode",
              "covariance (Gram matrix, for n > p), naive (residuals) or auto (covariance when "
              "n > p)",
              "auto", {"auto", "covariance", "naive"});
  return s;
}

CoordinateDescent::CoordinateDescent(const Params& p)
    : tolerance_(p.real("tolerance")),
      max_sweeps_(static_cast<int>(p.integer("max_sweeps"))),
      mode_(p.string("mode")) {}

OptimizerReport CoordinateDescent::solve(const WeightedLeastSquares& problem,
                                         PenalizedSolution& solution) const {
  const Eigen::MatrixXd& X = *problem.X;
  const Eigen::VectorXd& y = *problem.y;
  const Eigen::Index n = X.rows(), p = X.cols();
  const Eigen::VectorXd& w = problem.weights;
  const Eigen::VectorXd& lam = problem.penalty;
  const double alpha = problem.l1_ratio;
  if (y.size() != n || w.size() != n || lam.size() != p)
    throw ConfigError({}, "coordinate_descent: sizes of X (" + std::to_string(n) + " x " +
                              std::to_string(p) + "), y, weights and penalty do not match");
  if ((w.array() < 0).any() || (lam.array() < 0).any())
    throw ConfigError({}, "coordinate_descent: weights and penalties must be >= 0");

  // With an intercept the problem is solved on weighted-centred data (the intercept then
  // decouples: b = ybar_w - xbar_w^T beta).
  const double sw = w.sum();
  if (!(sw > 0)) throw NumericalError("coordinate_descent", "all weights are zero");
  Eigen::RowVectorXd xbar = Eigen::RowVectorXd::Zero(p);
  double ybar = 0;
  if (problem.intercept) {
    xbar = (w.transpose() * X) / sw;
    ybar = w.dot(y) / sw;
  }
  Eigen::VectorXd& beta = solution.beta;
  if (beta.size() != p) beta = Eigen::VectorXd::Zero(p);

  // Two forms of the same update (Friedman et al. 2010, Sec. 2.2): with n > p the
  // "covariance" form keeps the gradient g = Xc^T W (y - X beta) through the weighted Gram
  // matrix of the centred inputs, G = X^T W X - sw xbar xbar^T (O(n p^2) once, O(p) per
  // coordinate); otherwise the "naive" form keeps the weighted residual (O(n) per coordinate).
  const bool gram = mode_ == "covariance" || (mode_ == "auto" && n > p);
  Eigen::MatrixXd Xc, WX, G;
  Eigen::VectorXd H, g, wr;
  double null_deviance;
  if (gram) {
    const Eigen::MatrixXd WXraw = w.asDiagonal() * X;
    G.noalias() = X.transpose() * WXraw;
    G.noalias() -= sw * xbar.transpose() * xbar;
    H = G.diagonal();
    g.noalias() = WXraw.transpose() * y;
    g -= sw * ybar * xbar.transpose();
    null_deviance = w.dot(y.cwiseAbs2()) - sw * ybar * ybar;
    g.noalias() -= G * beta;
  } else {
    Xc = X.rowwise() - xbar;
    WX = w.asDiagonal() * Xc;
    H = (WX.cwiseProduct(Xc)).colwise().sum().transpose();
    const Eigen::VectorXd yc = y.array() - ybar;
    null_deviance = w.dot(yc.cwiseAbs2());
    wr = w.cwiseProduct(yc - Xc * beta);
  }
  null_deviance = std::max(null_deviance, 1e-300);

  const double threshold = tolerance_ * null_deviance;
  // Explicit loops: at these sizes a BLAS call per coordinate costs more than the work.
  auto dot = [](const double* a, const double* b, Eigen::Index m) {
    double s = 0;
    for (Eigen::Index k = 0; k < m; ++k) s += a[k] * b[k];
    return s;
  };
  auto axpy = [](double alpha_, const double* x, double* y_, Eigen::Index m) {
    for (Eigen::Index k = 0; k < m; ++k) y_[k] += alpha_ * x[k];
  };
  auto update = [&](Eigen::Index j) {
    const double denom = H(j) + lam(j) * (1 - alpha);
    const double z = (gram ? g(j) : dot(Xc.col(j).data(), wr.data(), n)) + H(j) * beta(j);
    const double next = denom > 0 ? soft_threshold(z, lam(j) * alpha) / denom : 0.0;
    const double delta = next - beta(j);
    if (delta != 0.0) {
      beta(j) = next;
      if (gram)
        axpy(-delta, G.col(j).data(), g.data(), p);
      else
        axpy(-delta, WX.col(j).data(), wr.data(), n);
    }
    return H(j) * delta * delta;
  };

  OptimizerReport report;
  std::vector<Eigen::Index> active;
  int sweeps = 0;
  while (sweeps < max_sweeps_) {
    // A full sweep over every coordinate; it also defines the active set.
    double change = 0;
    active.clear();
    for (Eigen::Index j = 0; j < p; ++j) {
      change = std::max(change, update(j));
      if (beta(j) != 0.0) active.push_back(j);
    }
    ++sweeps;
    if (change < threshold) {
      report.converged = true;
      break;
    }
    // Cycle over the active set until it converges, then check all coordinates again.
    while (sweeps < max_sweeps_) {
      double c = 0;
      for (Eigen::Index j : active) c = std::max(c, update(j));
      ++sweeps;
      if (c < threshold) break;
    }
  }
  if (!beta.allFinite()) throw NumericalError("coordinate_descent", "non-finite coefficients");
  solution.intercept = problem.intercept ? ybar - xbar.dot(beta) : 0.0;
  report.iterations = sweeps;
  const Eigen::VectorXd r = (y - X * beta).array() - (ybar - xbar.dot(beta));
  report.final_value =
      0.5 * w.dot(r.cwiseAbs2()) +
      (lam.array() * (alpha * beta.array().abs() + 0.5 * (1 - alpha) * beta.array().square()))
          .sum();
  report.message = report.converged ? "converged" : "sweep limit reached";
  return report;
}

}  // namespace quench::weighted_solvers
