#include "quench/penalized_solver.h"

#include <cmath>

#include "quench/errors.h"

namespace quench {

PenalizedSolver::~PenalizedSolver() = default;

OptimizerReport PenalizedSolver::minimize(const SmoothObjective&, Eigen::VectorXd&) const {
  throw ConfigError({},
                    "this optimizer solves penalized least-squares problems only; use "
                    "'lbfgs' for smooth objectives");
}

OptimizerReport PenalizedSolver::solve(const WeightedLeastSquares&, PenalizedSolution&) const {
  throw ConfigError({},
                    "this optimizer does not solve weighted elastic-net problems; use "
                    "'coordinate_descent'");
}

OptimizerReport PenalizedSolver::solve(const TrendFilteringProblem&, PenalizedSolution&) const {
  throw ConfigError({},
                    "this optimizer does not solve trend-filtering problems; use "
                    "'trend_filter_admm'");
}

// D^(1) has rows (-1, 1); applying it `differences` times gives D^(k+1) (004 Sec. 3.3).
Eigen::VectorXd difference(const Eigen::VectorXd& beta, int differences) {
  Eigen::VectorXd d = beta;
  for (int r = 0; r < differences; ++r) {
    const Eigen::Index m = d.size() - 1;
    if (m < 1) throw ConfigError({}, "difference order exceeds the data length");
    d = (d.tail(m) - d.head(m)).eval();
  }
  return d;
}

// (D^(1))^T z: entry i is z_{i-1} - z_i (with z out of range = 0).
Eigen::VectorXd difference_transpose(const Eigen::VectorXd& z, int differences) {
  Eigen::VectorXd v = z;
  for (int r = 0; r < differences; ++r) {
    const Eigen::Index m = v.size();
    Eigen::VectorXd u = Eigen::VectorXd::Zero(m + 1);
    u.head(m) -= v;
    u.tail(m) += v;
    v = std::move(u);
  }
  return v;
}

double lasso_lambda_max(const WeightedLeastSquares& problem,
                        const Eigen::VectorXd& penalty_factors) {
  const Eigen::MatrixXd& X = *problem.X;
  const Eigen::VectorXd& y = *problem.y;
  const Eigen::VectorXd& w = problem.weights;
  Eigen::VectorXd r = y;
  Eigen::VectorXd xbar = Eigen::VectorXd::Zero(X.cols());
  if (problem.intercept) {
    const double sw = w.sum();
    r.array() -= w.dot(y) / sw;
    xbar = X.transpose() * w / sw;
  }
  const Eigen::VectorXd g = X.transpose() * w.cwiseProduct(r) - xbar * w.dot(r);
  double lmax = 0;
  for (Eigen::Index j = 0; j < g.size(); ++j)
    if (penalty_factors(j) > 0) lmax = std::max(lmax, std::abs(g(j)) / penalty_factors(j));
  return lmax;
}

}  // namespace quench
