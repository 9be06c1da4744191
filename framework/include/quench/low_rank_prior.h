// The inducing-point prior on the training inputs, K~ = diag(Lambda) + U U^T (docs/large_n.md
// §1): with K_mm + jitter I = L L^T and K_nm = K(X, Z), U = K_nm L^-T (so U U^T = Q =
// K_nm K_mm^-1 K_mn) and Lambda = diag(K - Q) for FITC, 0 for VFE and SoR. New inputs x meet
// it through the features u(x) = L^-1 K(Z, x): cross-covariance Q_nx = U u(x).
// Memory O(N M); every operation O(N M^2) at most.
#pragma once

#include <Eigen/Core>

#include "quench/cholesky.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/export.h"
#include "quench/inducing_points.h"
#include "quench/kernel.h"

namespace quench {

class QUENCH_API LowRankPrior {
 public:
  /// Builds U and Lambda for the training inputs X (N x d) and inducing inputs Z (M x d).
  /// Checks the memory (bytes(N, M)) against this machine first: ConfigError naming the size
  /// and the largest M that fits. NumericalError when K_mm + jitter is not positive definite
  /// at any jitter up to 1e-2 of its mean diagonal (a kernel that is not a covariance).
  LowRankPrior(const Kernel& kernel, const Eigen::MatrixXd& X, const InducingInputs& inducing);

  /// Peak bytes of the large-N engines' N x M arrays (U, the posterior factor W and one
  /// N x M temporary): 3 * 8 N M.
  static double bytes(Eigen::Index n, Eigen::Index m);
  /// ConfigError naming the size and the largest M that fits when bytes(n, m) exceeds 80 % of
  /// this machine's physical memory.
  static void check_memory(Eigen::Index n, Eigen::Index m);
  /// The largest M whose bytes(n, M) fits in `available` bytes.
  static Eigen::Index largest_count(Eigen::Index n, double available);
  /// The Cholesky factor of K(Z, Z) + jitter I, the jitter `relative` to its mean diagonal and
  /// raised tenfold while the factorization fails (up to 1e-2); `jitter` receives the absolute
  /// value used. NumericalError as the constructor.
  static Cholesky factor_inducing(const Kernel& kernel, const Eigen::MatrixXd& Z, double relative,
                                  double& jitter);

  Eigen::Index size() const { return U_.rows(); }
  Eigen::Index rank() const { return U_.cols(); }
  LowRankForm form() const { return form_; }
  const Eigen::MatrixXd& inducing_inputs() const { return Z_; }
  /// U (N x M): U U^T = Q.
  const Eigen::MatrixXd& factor() const { return U_; }
  /// Lambda (N): K_ii - Q_ii for FITC, zeros for VFE and SoR.
  const Eigen::VectorXd& diagonal_correction() const { return Lambda_; }
  /// K_ii - Q_ii (N, >= 0): the variance the inducing inputs leave unexplained.
  const Eigen::VectorXd& residual_variance() const { return residual_; }
  /// The Cholesky factor of K_mm + jitter I.
  const Cholesky& inducing_cholesky() const { return Kmm_; }
  /// The absolute jitter added to K_mm's diagonal.
  double jitter() const { return jitter_; }

  /// u(x) for the rows of Xnew: the rows of K(Xnew, Z) L^-T (n x M).
  Eigen::MatrixXd features(const Eigen::MatrixXd& Xnew) const;
  /// The same for inducing inputs Z and the lower Cholesky factor L of K(Z, Z) + jitter I kept
  /// apart from a prior (a saved model), in row blocks.
  static Eigen::MatrixXd features(const Kernel& kernel, const Eigen::MatrixXd& Z,
                                  const Eigen::MatrixXd& lower, const Eigen::MatrixXd& Xnew);
  /// G = (K~^-1 + diag(d))^-1 as diag(e) + W W^T (docs/large_n.md §2): with
  /// a = 1 / (1 + Lambda d), e = Lambda a, c = d a, B = I + U^T diag(c) U = L_B L_B^T,
  /// W = diag(a) U L_B^-T. With extra_diagonal v, the prior K~ + v I (Lambda + v for Lambda:
  /// a latent noise on the diagonal). b_lower, when given, receives L_B. Throws
  /// NumericalError when some 1 + (Lambda + v) d_i <= 0 or B is not positive definite (d too
  /// negative).
  DiagonalPlusLowRank posterior_covariance(const Eigen::VectorXd& d, double extra_diagonal = 0,
                                           Eigen::MatrixXd* b_lower = nullptr) const;
  /// K~ formed densely (tests and small N only).
  Eigen::MatrixXd dense() const;

 private:
  const Kernel* kernel_;
  Eigen::MatrixXd Z_, U_;
  Eigen::VectorXd Lambda_, residual_;
  double jitter_ = 0;  // before Kmm_: its initializer sets it
  Cholesky Kmm_;
  LowRankForm form_;
};

}  // namespace quench
