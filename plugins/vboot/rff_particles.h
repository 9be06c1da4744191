// Closed-form particles of the variational bootstrap for a linear model on features
// (002 eq 8, Algorithm 2): for one output with per-point noise precisions p_i,
//   A = Phi^T diag(p) Phi + I / alpha^2,
//   w^ = A^{-1} (Phi^T diag(p) (y^ + eps) + w~ / alpha^2),
// eps_i ~ N(0, 1/p_i), w~ ~ N(0, alpha^2 I). A does not depend on the perturbation, so it is
// factorized once and all particles are solved as one matrix right-hand side (BLAS-3). By
// eq 9 the particles are exact samples of the Gaussian posterior N(A^{-1} Phi^T diag(p) y^,
// A^{-1}).
#pragma once

#include <optional>

#include <Eigen/Core>

#include "quench/cholesky.h"

namespace quench::vboot {

/// Phi^T Phi (lower triangle) in column blocks over parallel_for workers with one BLAS thread
/// each, so the result is bitwise the same for any thread count.
Eigen::MatrixXd feature_gram(const Eigen::MatrixXd& Phi, int threads);

class LinearGaussianPosterior {
 public:
  /// G = Phi^T Phi (lower triangle) when already computed; A is then p0 G plus a correction on
  /// the rows whose precision differs from the most common value p0 (for the Dirichlet
  /// transform only the rows of the class itself). Without G, A is formed directly.
  LinearGaussianPosterior(const Eigen::MatrixXd& Phi, const Eigen::VectorXd& precision,
                          double prior_variance, const Eigen::MatrixXd* G = nullptr);

  /// eq 8 for K particles: perturbed targets Yt (n x K), prior means Wt (D x K) -> D x K.
  Eigen::MatrixXd particles(const Eigen::MatrixXd& Yt, const Eigen::MatrixXd& Wt) const;
  /// The same, refactorizing A for every particle (the benchmark's baseline).
  Eigen::MatrixXd particles_refactorizing(const Eigen::MatrixXd& Yt,
                                          const Eigen::MatrixXd& Wt) const;
  /// The exact posterior mean A^{-1} Phi^T diag(p) y (eq 9 / eq 3) and covariance A^{-1}.
  Eigen::VectorXd mean(const Eigen::VectorXd& y) const;
  Eigen::MatrixXd covariance() const { return chol_.inverse(); }
  const Eigen::MatrixXd& matrix() const { return A_; }

 private:
  const Eigen::MatrixXd& Phi_;
  Eigen::VectorXd precision_;
  double prior_variance_;
  Eigen::MatrixXd A_;  // lower triangle
  Cholesky chol_;
};

}  // namespace quench::vboot
