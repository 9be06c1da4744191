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

bool PenalizedSolver::uses_gram(Eigen::Index, Eigen::Index) const { return false; }

OptimizerReport PenalizedSolver::solve(const WeightedLeastSquares& problem, const WeightedGram&,
                                       PenalizedSolution& solution) const {
  return solve(problem, solution);
}

WeightedGram weighted_gram(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                           const Eigen::VectorXd& w) {
  WeightedGram g;
  const Eigen::MatrixXd WX = w.asDiagonal() * X;
  g.sw = w.sum();
  g.sx = WX.colwise().sum().transpose();
  g.sy = w.dot(y);
  g.yy = w.dot(y.cwiseAbs2());
  g.xx.noalias() = X.transpose() * WX;
  g.xy.noalias() = WX.transpose() * y;
  return g;
}

// vech index of (r, c), r <= c, in the packed upper triangle taken column by column.
static Eigen::Index packed(Eigen::Index r, Eigen::Index c) { return c * (c + 1) / 2 + r; }

BatchedWeightedGram::BatchedWeightedGram(const Eigen::MatrixXd& X, const Eigen::VectorXd& y)
    : p_(X.cols()) {
  const Eigen::Index n = X.rows(), d = p_ + 2;
  if (y.size() != n) throw ConfigError({}, "BatchedWeightedGram: sizes of X and y differ");
  Eigen::MatrixXd A(n, d);
  A.col(0).setOnes();
  A.middleCols(1, p_) = X;
  A.col(d - 1) = y;
  Z_.resize(n, d * (d + 1) / 2);
  for (Eigen::Index c = 0; c < d; ++c)
    for (Eigen::Index r = 0; r <= c; ++r) Z_.col(packed(r, c)) = A.col(r).cwiseProduct(A.col(c));
}

Eigen::MatrixXd BatchedWeightedGram::products(const Eigen::MatrixXd& W) const {
  if (W.rows() != Z_.rows()) throw ConfigError({}, "BatchedWeightedGram: W has the wrong size");
  Eigen::MatrixXd S(Z_.cols(), W.cols());
  S.noalias() = Z_.transpose() * W;
  return S;
}

WeightedGram BatchedWeightedGram::unpack(const Eigen::MatrixXd& S, Eigen::Index b) const {
  const Eigen::Index d = p_ + 2;
  auto at = [&](Eigen::Index r, Eigen::Index c) {
    return S(r <= c ? packed(r, c) : packed(c, r), b);
  };
  WeightedGram g;
  g.sw = at(0, 0);
  g.sy = at(0, d - 1);
  g.yy = at(d - 1, d - 1);
  g.sx.resize(p_);
  g.xy.resize(p_);
  g.xx.resize(p_, p_);
  for (Eigen::Index j = 0; j < p_; ++j) {
    g.sx(j) = at(0, j + 1);
    g.xy(j) = at(j + 1, d - 1);
    for (Eigen::Index k = 0; k < p_; ++k) g.xx(k, j) = at(k + 1, j + 1);
  }
  return g;
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
