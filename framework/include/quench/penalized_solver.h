// Structured optimizers for weighted penalized least squares (004 eq 4 with square loss):
// the separable elastic net (LASSO, ridge) solved by coordinate descent, and the generalized
// LASSO with a trend-filtering difference matrix (004 Sec. 3.3). A PenalizedSolver is an
// Optimizer plugin (family "optimizer") that also accepts these problems; engines find the
// capability with dynamic_cast. The smooth-objective entry point defaults to a ConfigError.
#pragma once

#include <Eigen/Core>

#include "quench/optimizer.h"

namespace quench {

/// soft(z, t) = sign(z) max(|z| - t, 0): the proximal operator of t |.| (004 Sec. 3.1).
inline double soft_threshold(double z, double t) { return z > t ? z - t : (z < -t ? z + t : 0.0); }

/// minimize 1/2 sum_i w_i (y_i - b - x_i^T beta)^2
///          + sum_j lambda_j [alpha |beta_j| + (1 - alpha)/2 beta_j^2]         (004 eqs 4, 12, 13)
/// with lambda_j = lambda w_{0,j} (penalty weights), alpha = l1_ratio (1 LASSO, 0 ridge) and an
/// unpenalized intercept b when `intercept` is set.
struct WeightedLeastSquares {
  const Eigen::MatrixXd* X = nullptr;  ///< n x p
  const Eigen::VectorXd* y = nullptr;  ///< n
  Eigen::VectorXd weights;             ///< w_i >= 0, length n
  Eigen::VectorXd penalty;             ///< lambda_j >= 0, length p
  double l1_ratio = 1.0;
  bool intercept = true;
};

/// 1/2 sum_i w_i (y_i - beta_i)^2 + lambda ||D^(k+1) beta||_1 (004 eq 15 with X = I, weighted
/// form of Sec. 3.3; lambda already multiplied by w_0). D^(1) has rows (-1, 1), D^(k+1) =
/// D^(1) D^(k).
struct TrendFilteringProblem {
  const Eigen::VectorXd* y = nullptr;
  Eigen::VectorXd weights;  ///< w_i > 0
  double lambda = 1.0;
  int order = 3;  ///< k: piecewise polynomials of degree k, penalty on (k+1)-th differences
};

/// A solution with the solver's state, so the next solve can be warm-started from it.
struct PenalizedSolution {
  Eigen::VectorXd beta;
  double intercept = 0.0;
  Eigen::VectorXd auxiliary;  ///< solver state (e.g. ADMM split variable and dual)
  Eigen::VectorXd dual;       ///< dual certificate (trend filtering: z with D^T z = W (y - beta))
  double duality_gap = 0.0;   ///< certified suboptimality when the solver computes it
};

/// Weighted sufficient statistics of a WeightedLeastSquares problem with weights w:
/// sw = sum w_i, sx = X^T w, sy = w^T y, xx = X^T W X, xy = X^T W y, yy = y^T W y. With them a
/// covariance-form solver never touches the n rows again (004 eq 4 with square loss).
struct WeightedGram {
  double sw = 0, sy = 0, yy = 0;
  Eigen::VectorXd sx, xy;
  Eigen::MatrixXd xx;
};

/// The statistics of one weight vector (Eigen products, O(n p^2)).
QUENCH_API WeightedGram weighted_gram(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                      const Eigen::VectorXd& w);

/// The statistics of many weight vectors at once, as ONE matrix product: with a_i = (1, x_i,
/// y_i) and Z the n x m matrix of rows vech(a_i a_i^T) (m = (p+2)(p+3)/2, built once), the
/// statistics of the columns of an n x B weight matrix W are the columns of Z^T W (BLAS-3).
class QUENCH_API BatchedWeightedGram {
 public:
  BatchedWeightedGram(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);
  /// m x B: column b holds vech of sum_i W_ib a_i a_i^T.
  Eigen::MatrixXd products(const Eigen::MatrixXd& W) const;
  /// Unpacks column b of products(W).
  WeightedGram unpack(const Eigen::MatrixXd& S, Eigen::Index b) const;

 private:
  Eigen::Index p_;
  Eigen::MatrixXd Z_;  ///< n x m
};

class QUENCH_API PenalizedSolver : public Optimizer {
 public:
  ~PenalizedSolver() override;
  /// Throws ConfigError: structured solvers do not minimize general smooth objectives.
  OptimizerReport minimize(const SmoothObjective& objective, Eigen::VectorXd& x) const override;
  /// Warm-started from `solution` when its sizes fit; default throws ConfigError.
  virtual OptimizerReport solve(const WeightedLeastSquares& problem,
                                PenalizedSolution& solution) const;
  virtual OptimizerReport solve(const TrendFilteringProblem& problem,
                                PenalizedSolution& solution) const;
  /// Whether solve(problem, gram, solution) uses the statistics (else it only forwards).
  virtual bool uses_gram(Eigen::Index n, Eigen::Index p) const;
  /// The same problem given its weighted statistics `gram` (problem.weights must be the
  /// weights they were computed with). Default: ignores gram and calls solve(problem, ...).
  virtual OptimizerReport solve(const WeightedLeastSquares& problem, const WeightedGram& gram,
                                PenalizedSolution& solution) const;
};

/// The (k+1)-th order difference matrix D^(k+1) of 004 Sec. 3.3, (n - k - 1) x n, applied
/// to a vector: (D^(k+1) beta)_i = sum_{j=0}^{k+1} (-1)^(k+1-j) C(k+1, j) beta_{i+j}.
QUENCH_API Eigen::VectorXd difference(const Eigen::VectorXd& beta, int differences);
/// Its transpose applied to z (length n - differences): returns length n.
QUENCH_API Eigen::VectorXd difference_transpose(const Eigen::VectorXd& z, int differences);

/// The smallest lambda (common to all coordinates, penalty weights v_j: lambda_j = lambda v_j)
/// with the all-zero LASSO solution: max_j |sum_i w_i x_ij (y_i - ybar_w)| / v_j.
QUENCH_API double lasso_lambda_max(const WeightedLeastSquares& problem,
                                   const Eigen::VectorXd& penalty_factors);

}  // namespace quench
