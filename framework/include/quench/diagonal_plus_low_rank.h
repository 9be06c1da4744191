// A symmetric N x N matrix G = diag(e) + W W^T held as its N-vector e and N x M factor W, with
// the three products the site-based solvers need in O(N M^2) or less (docs/large_n.md §2):
// the diagonal, G v, and (G o G) v (Hadamard square) without forming G.
#pragma once

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

class QUENCH_API DiagonalPlusLowRank {
 public:
  DiagonalPlusLowRank() = default;
  DiagonalPlusLowRank(Eigen::VectorXd e, Eigen::MatrixXd W);

  /// G = (K~^-1 + diag(d))^-1 for the prior K~ = diag(D) + U U^T (docs/large_n.md §2, two
  /// Woodbury steps, D = 0 included): a = 1 / (1 + D d), e = D a, c = d a,
  /// B = I + U^T diag(c) U = L_B L_B^T, W = diag(a) U L_B^-T; O(N M^2) with B by rank updates
  /// over row blocks. b_lower, when given, receives L_B. Throws NumericalError when some
  /// 1 + D_i d_i <= 0 or B is not positive definite (d too negative).
  static DiagonalPlusLowRank posterior(const Eigen::VectorXd& D, const Eigen::MatrixXd& U,
                                       const Eigen::VectorXd& d,
                                       Eigen::MatrixXd* b_lower = nullptr);

  Eigen::Index size() const { return e_.size(); }
  Eigen::Index rank() const { return W_.cols(); }
  const Eigen::VectorXd& diagonal_part() const { return e_; }
  const Eigen::MatrixXd& factor() const { return W_; }

  /// G_ii = e_i + |w_i|^2.
  Eigen::VectorXd diagonal() const;
  /// G v = e o v + W (W^T v).
  Eigen::VectorXd times(const Eigen::VectorXd& v) const;
  /// (G o G) v = diag(G diag(v) G) = e^2 o v + 2 e o v o s + rowsum((W C) o W),
  /// s_i = |w_i|^2, C = W^T diag(v) W (sparse_adatap guide §4): 3 N M^2 flops in row blocks
  /// (C by two rank updates, then W C).
  Eigen::VectorXd hadamard_square_times(const Eigen::VectorXd& v) const;
  /// G itself (tests and small N only).
  Eigen::MatrixXd dense() const;

 private:
  Eigen::VectorXd e_;
  Eigen::MatrixXd W_;
};

/// The lower triangle of A^T diag(v) A (M x M for A N x M; the strict upper triangle is zero):
/// one rank update each for the rows with v_i > 0 and v_i < 0, scaled by sqrt|v_i|, in row
/// blocks (N M^2 flops for rows of either sign, none for v_i = 0, against 2 N M^2 for a
/// product).
QUENCH_API Eigen::MatrixXd weighted_gram(const Eigen::MatrixXd& A, const Eigen::VectorXd& v);
/// The same in single precision (ssyrk), for sweeps far from a fixed point.
QUENCH_API Eigen::MatrixXf weighted_gram(const Eigen::MatrixXf& A, const Eigen::VectorXf& v);
/// A^T diag(w) B (full), by weighted_gram when A and B are one matrix (the same object).
QUENCH_API Eigen::MatrixXd weighted_product(const Eigen::MatrixXd& A, const Eigen::VectorXd& w,
                                            const Eigen::MatrixXd& B);
/// The same in single precision.
QUENCH_API Eigen::MatrixXf weighted_product(const Eigen::MatrixXf& A, const Eigen::VectorXf& w,
                                            const Eigen::MatrixXf& B);

}  // namespace quench
