#include "quench/diagonal_plus_low_rank.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

#include "quench/errors.h"

namespace quench {

namespace {
// Rows per block of the O(N M^2) products: keeps the temporaries at block x M.
constexpr Eigen::Index kFactorBlockRows = 2048;
}  // namespace

DiagonalPlusLowRank::DiagonalPlusLowRank(Eigen::VectorXd e, Eigen::MatrixXd W)
    : e_(std::move(e)), W_(std::move(W)) {}

DiagonalPlusLowRank DiagonalPlusLowRank::posterior(const Eigen::VectorXd& D,
                                                   const Eigen::MatrixXd& U,
                                                   const Eigen::VectorXd& d,
                                                   Eigen::MatrixXd* b_lower) {
  const Eigen::Index n = U.rows(), m = U.cols();
  const Eigen::ArrayXd one_plus = 1.0 + D.array() * d.array();
  if (!(one_plus > 0.0).all() || !one_plus.allFinite())
    throw NumericalError("low-rank posterior",
                         "1 + (Lambda_i + v) d_i <= 0: a site precision is too negative");
  const Eigen::ArrayXd a = 1.0 / one_plus;
  const Eigen::VectorXd c = (d.array() * a).matrix();
  Eigen::MatrixXd B = Eigen::MatrixXd::Identity(m, m);
  const bool nonnegative = c.minCoeff() >= 0;
  for (Eigen::Index r = 0; r < n; r += kFactorBlockRows) {
    const Eigen::Index k = std::min(kFactorBlockRows, n - r);
    if (nonnegative) {  // dsyrk
      const Eigen::MatrixXd scaled = c.segment(r, k).cwiseSqrt().asDiagonal() * U.middleRows(r, k);
      B.selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose());
    } else {
      const Eigen::MatrixXd scaled = c.segment(r, k).asDiagonal() * U.middleRows(r, k);
      B.triangularView<Eigen::Lower>() += U.middleRows(r, k).transpose() * scaled;
    }
  }
  Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(B);
  if (llt.info() != Eigen::Success)
    throw NumericalError("low-rank posterior",
                         "I + U^T diag(c) U is not positive definite: a site precision is "
                         "negative");
  Eigen::MatrixXd W = a.matrix().asDiagonal() * U;
  llt.matrixU().solveInPlace<Eigen::OnTheRight>(W);  // W L_B^-T
  if (b_lower) *b_lower = llt.matrixL();
  return DiagonalPlusLowRank((D.array() * a).matrix(), std::move(W));
}

Eigen::VectorXd DiagonalPlusLowRank::diagonal() const { return e_ + W_.rowwise().squaredNorm(); }

Eigen::VectorXd DiagonalPlusLowRank::times(const Eigen::VectorXd& v) const {
  const Eigen::VectorXd t = W_.transpose() * v;
  Eigen::VectorXd out = W_ * t;
  out.array() += e_.array() * v.array();
  return out;
}

namespace {

template <class Matrix, class Vector>
Matrix weighted_gram_of(const Matrix& A, const Vector& v) {
  using Scalar = typename Matrix::Scalar;
  const Eigen::Index n = A.rows(), m = A.cols();
  // A^T diag(v) A = A+^T A+ - A-^T A-, the rows of A scaled by sqrt|v_i| and split by the sign
  // of v_i (rows with v_i = 0 skipped): two rank updates (dsyrk, N M^2 flops) where a general
  // product costs 2 N M^2.
  Matrix C = Matrix::Zero(m, m);
  if (n == 0) return C;
  if (v.minCoeff() >= 0 || v.maxCoeff() <= 0) {  // one sign: the rows scaled in place, no gather
    const Scalar sign = v.maxCoeff() > 0 ? Scalar(1) : Scalar(-1);
    for (Eigen::Index r = 0; r < n; r += kFactorBlockRows) {
      const Eigen::Index b = std::min(kFactorBlockRows, n - r);
      const Matrix scaled =
          v.segment(r, b).cwiseAbs().cwiseSqrt().asDiagonal() * A.middleRows(r, b);
      C.template selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose(), sign);
    }
    return C;
  }
  std::vector<Eigen::Index> rows[2];  // v_i > 0, v_i < 0
  for (Eigen::Index r = 0; r < n; r += kFactorBlockRows) {
    const Eigen::Index b = std::min(kFactorBlockRows, n - r);
    for (auto& list : rows) list.clear();
    for (Eigen::Index i = r; i < r + b; ++i)
      if (v(i) != 0) rows[v(i) > 0 ? 0 : 1].push_back(i);
    for (int sign = 0; sign < 2; ++sign) {
      if (rows[sign].empty()) continue;
      const auto k = static_cast<Eigen::Index>(rows[sign].size());
      Matrix scaled(k, m);
      for (Eigen::Index a = 0; a < k; ++a) {
        const Eigen::Index i = rows[sign][static_cast<std::size_t>(a)];
        scaled.row(a) = std::sqrt(std::abs(v(i))) * A.row(i);
      }
      C.template selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose(),
                                                            sign == 0 ? Scalar(1) : Scalar(-1));
    }
  }
  return C;
}

}  // namespace

Eigen::MatrixXd weighted_gram(const Eigen::MatrixXd& A, const Eigen::VectorXd& v) {
  return weighted_gram_of(A, v);
}

Eigen::MatrixXf weighted_gram(const Eigen::MatrixXf& A, const Eigen::VectorXf& v) {
  return weighted_gram_of(A, v);
}

namespace {

template <class Matrix, class Vector>
Matrix weighted_product_of(const Matrix& A, const Vector& w, const Matrix& B) {
  if (&A == &B) return weighted_gram(A, w).template selfadjointView<Eigen::Lower>();
  return A.transpose() * w.asDiagonal() * B;
}

}  // namespace

Eigen::MatrixXd weighted_product(const Eigen::MatrixXd& A, const Eigen::VectorXd& w,
                                 const Eigen::MatrixXd& B) {
  return weighted_product_of(A, w, B);
}

Eigen::MatrixXf weighted_product(const Eigen::MatrixXf& A, const Eigen::VectorXf& w,
                                 const Eigen::MatrixXf& B) {
  return weighted_product_of(A, w, B);
}

Eigen::VectorXd DiagonalPlusLowRank::hadamard_square_times(const Eigen::VectorXd& v) const {
  const Eigen::Index n = size();
  Eigen::MatrixXd C = weighted_gram(W_, v);  // W^T diag(v) W
  C = C.selfadjointView<Eigen::Lower>();
  Eigen::VectorXd out(n);
  for (Eigen::Index r = 0; r < n; r += kFactorBlockRows) {
    const Eigen::Index b = std::min(kFactorBlockRows, n - r);
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
