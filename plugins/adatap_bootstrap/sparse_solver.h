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
/// bootstrap mean u(x)^T U^T alpha, alpha = T gamma = gamma - dl o m (dl o (y - m) for
/// regression), and variance -u(x)^T C_T u(x), C_T = (T^T U)^T diag(lambda) (T^T U),
/// T^T U = U - G (D U). For a classifier also the within-sample variance (adatap_model.h)
/// G_xx = k(x, x) - u(x)^T A u(x), A = U^T D U - (D U)^T G (D U)
///      = U^T diag(dl o (1 - e o dl)) U - (W^T D U)^T (W^T D U)
/// (k(x, x) is |u(x)|^2 on the SoR prior). Built once in O(N M^2).
class SparsePredictor {
 public:
  /// G at the sites dl (eq 41), alpha = T gamma, lambda: the fixed point's. `within_sample`:
  /// also build A.
  SparsePredictor(const LowRankPrior& prior, const DiagonalPlusLowRank& G,
                  const Eigen::VectorXd& dl, const Eigen::VectorXd& alpha,
                  const Eigen::VectorXd& lambda, bool within_sample = false);
  /// From its arrays (a saved model); within_form empty for regression.
  SparsePredictor(Eigen::VectorXd mean_weights, Eigen::MatrixXd variance_form,
                  Eigen::MatrixXd within_form = {})
      : mean_weights_(std::move(mean_weights)),
        variance_form_(std::move(variance_form)),
        within_form_(std::move(within_form)) {}
  const Eigen::VectorXd& mean_weights() const { return mean_weights_; }
  const Eigen::MatrixXd& variance_form() const { return variance_form_; }
  const Eigen::MatrixXd& within_form() const { return within_form_; }
  /// Mean and variance at the inputs whose features u(x) are the rows of `features` (O(M^2)
  /// per row).
  void predict(const Eigen::MatrixXd& features, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const;
  /// u(x)^T A u(x) for each row of `features` (within_form must be set).
  Eigen::VectorXd within_reduction(const Eigen::MatrixXd& features) const;

 private:
  Eigen::VectorXd mean_weights_;   ///< U^T alpha
  Eigen::MatrixXd variance_form_;  ///< C_T (lower triangle)
  Eigen::MatrixXd within_form_;    ///< A (lower triangle; 0 x 0 for regression)
};

/// The regression's predictor: alpha = dl o (y - m).
SparsePredictor regression_predictor(const LowRankPrior& prior, const SparseSolution& solution,
                                     const Eigen::VectorXd& y);

}  // namespace quench::adatap
