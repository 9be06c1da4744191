// Weighted trend filtering (004 Sec. 3.3): minimize 1/2 sum_i w_i (y_i - beta_i)^2 +
// lambda ||D^(k+1) beta||_1 by the specialised ADMM of Ramdas & Tibshirani (2016): split
// alpha = D^(k) beta, so the beta step is one banded solve with W + rho D^(k)T D^(k) (the
// weights only change its diagonal; the paper's rescaling by W^(1/2) is not needed) and the
// alpha step is a 1-D fused lasso solved exactly by Johnson's dynamic programme. Stops on a
// certified duality gap (a KKT-based rule: the gap is zero iff the KKT conditions hold).
#pragma once

#include "quench/parameters.h"
#include "quench/penalized_solver.h"

namespace quench::weighted_solvers {

class TrendFilterAdmm final : public PenalizedSolver {
 public:
  static ParamSchema schema();
  explicit TrendFilterAdmm(const Params& params);
  using PenalizedSolver::solve;
  OptimizerReport solve(const TrendFilteringProblem& problem,
                        PenalizedSolution& solution) const override;

 private:
  double tolerance_, rho_factor_, relaxation_;
  int max_iterations_, check_every_;
};

/// Exact 1-D fused lasso (TV denoising): argmin 1/2 ||y - theta||^2 + lambda sum |theta_{i+1}
/// - theta_i|, by Johnson's (2013) O(n) dynamic programme.
Eigen::VectorXd fused_lasso_1d(const Eigen::VectorXd& y, double lambda);

/// The duality gap P(beta) - g(z) >= P(beta) - P* for a dual point z (clipped to
/// [-lambda, lambda]), g(z) = z^T D y - 1/2 z^T D W^-1 D^T z with D = D^(k+1). It is zero iff
/// (beta, z) satisfy the KKT conditions W (y - beta) = D^T z, z in lambda d||D beta||_1.
double trend_filter_duality_gap(const TrendFilteringProblem& problem, const Eigen::VectorXd& beta,
                                const Eigen::VectorXd& z);

/// The objective 1/2 sum w (y - beta)^2 + lambda ||D^(k+1) beta||_1.
double trend_filter_objective(const TrendFilteringProblem& problem, const Eigen::VectorXd& beta);

}  // namespace quench::weighted_solvers
