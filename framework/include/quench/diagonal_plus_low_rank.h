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

}  // namespace quench
