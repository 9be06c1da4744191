#include "quench/diagonal_plus_low_rank.h"

#include <algorithm>
#include <utility>

namespace quench {

namespace {
// Rows per block of the O(N M^2) products: keeps the temporaries at block x M.
constexpr Eigen::Index kBlockRows = 2048;
}  // namespace

DiagonalPlusLowRank::DiagonalPlusLowRank(Eigen::VectorXd e, Eigen::MatrixXd W)
    : e_(std::move(e)), W_(std::move(W)) {}

Eigen::VectorXd DiagonalPlusLowRank::diagonal() const { return e_ + W_.rowwise().squaredNorm(); }

Eigen::VectorXd DiagonalPlusLowRank::times(const Eigen::VectorXd& v) const {
  const Eigen::VectorXd t = W_.transpose() * v;
  Eigen::VectorXd out = W_ * t;
  out.array() += e_.array() * v.array();
  return out;
}

Eigen::VectorXd DiagonalPlusLowRank::hadamard_square_times(const Eigen::VectorXd& v) const {
  const Eigen::Index n = size(), m = rank();
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(m, m);  // W^T diag(v) W
  for (Eigen::Index r = 0; r < n; r += kBlockRows) {
    const Eigen::Index b = std::min(kBlockRows, n - r);
    const Eigen::MatrixXd scaled = v.segment(r, b).asDiagonal() * W_.middleRows(r, b);
    C.noalias() += W_.middleRows(r, b).transpose() * scaled;
  }
  Eigen::VectorXd out(n);
  for (Eigen::Index r = 0; r < n; r += kBlockRows) {
    const Eigen::Index b = std::min(kBlockRows, n - r);
    const Eigen::MatrixXd WC = W_.middleRows(r, b) * C;
    out.segment(r, b) = WC.cwiseProduct(W_.middleRows(r, b)).rowwise().sum();
  }
  const Eigen::ArrayXd s = W_.rowwise().squaredNorm().array();
  out.array() += e_.array() * v.array() * (e_.array() + 2.0 * s);
  return out;
}

Eigen::MatrixXd DiagonalPlusLowRank::dense() const {
  Eigen::MatrixXd G = W_ * W_.transpose();
  G.diagonal() += e_;
  return G;
}

}  // namespace quench
