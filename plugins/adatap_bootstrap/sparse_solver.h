// The ADATAP regression bootstrap (000 eqs 63-66, 53, 57) on the inducing-point prior
// K~ = diag(Lambda) + U U^T (quench/low_rank_prior.h), in O(N M^2) time and O(N M) memory:
// G = (K~^-1 + diag dl)^-1 is held as diag(e) + W W^T and never formed
// (docs/large_n.md). For the prior K~ this solves the same equations as the dense `solve` on
// K~ formed explicitly; the per-site equations are shared with it (site_equations.h).
#pragma once

#include <utility>

#include <Eigen/Core>

#include "adatap_solver.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/low_rank_prior.h"

namespace quench::adatap {

struct SparseSolution {
  Solution sites;                  ///< the per-site parameters and counters; sites.G is left empty
  DiagonalPlusLowRank G;           ///< G = (K~^-1 + diag dl)^-1 at the final dl (eq 41)
  double fixed_point_seconds = 0;  ///< A.2 start value and eqs 63-64
  double eq65_seconds = 0;         ///< eqs 65-66 (CG on diag(d) - G o G) and 39-40
};

/// ConfigError for options this solver does not have: method approximate (eq 65's matrix is
/// only known to be positive definite at the fixed point, and CG is its only solver here), and
/// the speed-ups of the dense G (woodbury, approximate_steps, newton).
void check_sparse_options(const SolverOptions& options);

/// Solves eqs 63-64 (Anderson-accelerated over options.anderson_depth steps, stopped by
/// options.tolerance as the dense `solve`) from the A.2 start value on eig(U^T U), then eqs
/// 65-66, for the prior of `prior`, targets y, observation noise s2 and occupation pmf.
/// check_sparse_options first; init and mixed_precision (of the dense G) are ignored.
SparseSolution solve_sparse(const LowRankPrior& prior, const Eigen::VectorXd& y, double s2,
                            const Occupation& occ, const SolverOptions& options);

/// The relative residual to which eq 65 is solved by CG (4 N M^2 flops a step): 1e-3 of the
/// fixed-point tolerance, within [1e-12, 1e-6]. lambda then errs by ~1e-3 of what the accepted
/// dl error moves it by (cond(diag(d) - G o G) is O(10)); the default tolerance 1e-3 takes
/// about half the steps of 1e-12.
double eq65_tolerance(double tolerance);

/// Eq 57 at new inputs x with cross-covariance k~(x) = U u(x) (docs/large_n.md §4): the
/// bootstrap mean u(x)^T U^T alpha, alpha = T gamma = dl o (y - m), and variance
/// -u(x)^T C_T u(x), C_T = (T^T U)^T diag(lambda) (T^T U), T^T U = U - G (D U).
/// Built once in O(N M^2).
class SparsePredictor {
 public:
  SparsePredictor(const LowRankPrior& prior, const SparseSolution& solution,
                  const Eigen::VectorXd& y);
  /// From its two arrays (a saved model).
  SparsePredictor(Eigen::VectorXd mean_weights, Eigen::MatrixXd variance_form)
      : mean_weights_(std::move(mean_weights)), variance_form_(std::move(variance_form)) {}
  const Eigen::VectorXd& mean_weights() const { return mean_weights_; }
  const Eigen::MatrixXd& variance_form() const { return variance_form_; }
  /// Mean and variance at the inputs whose features u(x) are the rows of `features` (O(M^2)
  /// per row).
  void predict(const Eigen::MatrixXd& features, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const;

 private:
  Eigen::VectorXd mean_weights_;   ///< U^T alpha
  Eigen::MatrixXd variance_form_;  ///< C_T (lower triangle)
};

}  // namespace quench::adatap
