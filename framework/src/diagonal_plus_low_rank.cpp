#include "quench/diagonal_plus_low_rank.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

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
  // C = W^T diag(v) W = W+^T W+ - W-^T W-, the rows of W scaled by sqrt|v_i| and split by the
  // sign of v_i: two rank updates (dsyrk, N M^2 flops) where a general product costs 2 N M^2.
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(m, m);
  std::vector<Eigen::Index> rows[2];  // v_i > 0, v_i < 0
  for (Eigen::Index r = 0; r < n; r += kBlockRows) {
    const Eigen::Index b = std::min(kBlockRows, n - r);
    for (auto& list : rows) list.clear();
    for (Eigen::Index i = r; i < r + b; ++i)
      if (v(i) != 0) rows[v(i) > 0 ? 0 : 1].push_back(i);
    for (int sign = 0; sign < 2; ++sign) {
      if (rows[sign].empty()) continue;
      const auto k = static_cast<Eigen::Index>(rows[sign].size());
      Eigen::MatrixXd scaled(k, m);
      for (Eigen::Index a = 0; a < k; ++a) {
        const Eigen::Index i = rows[sign][static_cast<std::size_t>(a)];
        scaled.row(a) = std::sqrt(std::abs(v(i))) * W_.row(i);
      }
      C.selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose(), sign == 0 ? 1.0 : -1.0);
    }
  }
  C = C.selfadjointView<Eigen::Lower>();
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
