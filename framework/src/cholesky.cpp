#include "quench/cholesky.h"

#include <cmath>
#include <sstream>

#include <lapacke.h>

#include "quench/errors.h"

namespace quench {

#ifndef EIGEN_USE_BLAS
#error "quench links Eigen to BLAS (EIGEN_USE_BLAS declares the Fortran BLAS used here)"
#endif

namespace {
// The _work variants skip LAPACKE's O(n^2) NaN scan of the input: callers check finiteness.
lapack_int potrf_lower(Eigen::MatrixXd& A) {
  return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', static_cast<lapack_int>(A.rows()), A.data(),
                             static_cast<lapack_int>(A.rows()));
}
lapack_int potrf_lower(Eigen::MatrixXf& A) {
  return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', static_cast<lapack_int>(A.rows()), A.data(),
                             static_cast<lapack_int>(A.rows()));
}
lapack_int trtri_lower(int n, double* a, int lda) {
  return LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, a, lda);
}
lapack_int trtri_lower(int n, float* a, int lda) {
  return LAPACKE_strtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, a, lda);
}
// B <- alpha op(L) B or B <- alpha B op(L) for lower-triangular L (Fortran BLAS ?trmm).
void trmm_lower(char side, int m, int n, double alpha, const double* l, int ldl, double* b,
                int ldb) {
  dtrmm_(&side, "L", "N", "N", &m, &n, &alpha, l, &ldl, b, &ldb);
}
void trmm_lower(char side, int m, int n, float alpha, const float* l, int ldl, float* b, int ldb) {
  strmm_(&side, "L", "N", "N", &m, &n, &alpha, l, &ldl, b, &ldb);
}

// In-place inverse of the n x n lower-triangular L (leading dimension lda), recursively:
// with L = [L11 0; L21 L22], L^-1 = [L11^-1 0; -L22^-1 L21 L11^-1, L22^-1], the off-diagonal
// block by two in-place trmm once both diagonal blocks are inverted (n^3/3 flops, all in
// level-3 BLAS). OpenBLAS's own ?trtri spends most of its time in level-2 trmv at n ~ 500
// (measured 2-3x slower than this and than dpotrf). Returns LAPACK's info (> 0: singular).
template <class S>
lapack_int invert_lower(int n, S* a, int lda) {
  constexpr int kBase = 64;  // LAPACK ?trtri below this size
  if (n <= kBase) return trtri_lower(n, a, lda);
  const int n1 = n / 2, n2 = n - n1;
  S* a11 = a;
  S* a21 = a + n1;
  S* a22 = a + n1 + static_cast<std::ptrdiff_t>(n1) * lda;
  lapack_int info = invert_lower(n1, a11, lda);
  if (info != 0) return info;
  info = invert_lower(n2, a22, lda);
  if (info != 0) return info + n1;
  trmm_lower('R', n2, n1, S(1), a11, lda, a21, lda);   // L21 L11^-1
  trmm_lower('L', n2, n1, S(-1), a22, lda, a21, lda);  // -L22^-1 L21 L11^-1
  return 0;
}

template <class S>
lapack_int invert_lower(Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& L) {
  const auto n = static_cast<int>(L.rows());
  return invert_lower(n, L.data(), n);
}

// L^-1 of the Cholesky factor of A, in place (potrf + invert_lower), no jitter.
template <class S>
Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> factor_and_invert(
    Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> A, const std::string& what,
    const char* precision) {
  if (A.rows() != A.cols()) throw NumericalError(what, "Cholesky needs a square matrix");
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    if (!A.col(j).tail(A.rows() - j).allFinite())
      throw NumericalError(what, "matrix has non-finite entries");
  lapack_int info = potrf_lower(A);
  if (info == 0) info = invert_lower(A);
  if (info != 0) {
    std::ostringstream msg;
    msg << what << " (" << A.rows() << "x" << A.rows() << ") is not positive definite in "
        << precision << " precision (LAPACK potrf/trtri info " << info << ")";
    throw NumericalError("cholesky", msg.str());
  }
  A.template triangularView<Eigen::StrictlyUpper>().setZero();
  return A;
}
}  // namespace

Cholesky::Cholesky(Eigen::MatrixXd A, const JitterPolicy& policy, const std::string& what) {
  if (A.rows() != A.cols()) throw NumericalError(what, "Cholesky needs a square matrix");
  // Only the lower triangle is read (the upper one may be left unset by callers).
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    if (!A.col(j).tail(A.rows() - j).allFinite())
      throw NumericalError(what, "matrix has non-finite entries");
  const Eigen::Index n = A.rows();
  factor_ = A;
  lapack_int info = potrf_lower(factor_);
  if (info != 0 && policy.max_tries > 0) {
    const double scale = n > 0 ? std::max(A.diagonal().cwiseAbs().mean(), 1e-300) : 1.0;
    double jitter = policy.initial_relative * scale;
    for (int t = 0; t < policy.max_tries && info != 0; ++t, jitter *= policy.growth) {
      factor_ = A;
      factor_.diagonal().array() += jitter;
      info = potrf_lower(factor_);
      if (info == 0) jitter_ = jitter;
    }
  }
  if (info != 0) {
    std::ostringstream msg;
    msg << what << " (" << n << "x" << n << ") is not positive definite (LAPACK dpotrf info "
        << info << ")";
    if (policy.max_tries > 0)
      msg << " even with jitter up to " << policy.initial_relative << " x growth^"
          << policy.max_tries - 1 << " times the mean diagonal";
    throw NumericalError("cholesky", msg.str());
  }
  factor_.triangularView<Eigen::StrictlyUpper>().setZero();
}

Eigen::VectorXd Cholesky::solve(const Eigen::VectorXd& b) const {
  Eigen::MatrixXd B = b;
  return solve(B).col(0);
}

Eigen::MatrixXd Cholesky::solve(const Eigen::MatrixXd& B) const {
  Eigen::MatrixXd X = B;
  const auto n = static_cast<lapack_int>(factor_.rows());
  LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', n, static_cast<lapack_int>(X.cols()), factor_.data(), n,
                 X.data(), static_cast<lapack_int>(X.rows()));
  return X;
}

Eigen::MatrixXd Cholesky::solve_lower(const Eigen::MatrixXd& B) const {
  Eigen::MatrixXd X = B;
  factor_.triangularView<Eigen::Lower>().solveInPlace(X);  // dtrsm through EIGEN_USE_BLAS
  return X;
}

Eigen::MatrixXd Cholesky::inverse() const {
  Eigen::MatrixXd inv = factor_;
  const auto n = static_cast<lapack_int>(inv.rows());
  LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', n, inv.data(), n);
  inv.triangularView<Eigen::StrictlyUpper>() = inv.transpose();
  return inv;
}

Eigen::VectorXd Cholesky::inverse_diagonal() const {
  // A^{-1} = L^{-T} L^{-1}, so (A^{-1})_ii = sum_k (L^{-1})_ki^2.
  return inverse_lower().colwise().squaredNorm().transpose();  // the strict upper triangle is 0
}

Eigen::MatrixXd Cholesky::inverse_lower() const {
  Eigen::MatrixXd inv_l = factor_;
  invert_lower(inv_l);  // the factor has a positive diagonal: never singular
  return inv_l;
}

Eigen::MatrixXd Cholesky::inverse_from_lower_inverse(Eigen::MatrixXd inv) {
  const auto n = static_cast<lapack_int>(inv.rows());
  LAPACKE_dlauum(LAPACK_COL_MAJOR, 'L', n, inv.data(), n);  // lower triangle of L^-T L^-1
  inv.triangularView<Eigen::StrictlyUpper>() = inv.transpose();
  return inv;
}

Eigen::MatrixXf inverse_lower_single(Eigen::MatrixXf A, const std::string& what) {
  return factor_and_invert(std::move(A), what, "single");
}

Eigen::MatrixXd inverse_lower_double(Eigen::MatrixXd A, const std::string& what) {
  return factor_and_invert(std::move(A), what, "double");
}

void inverse_from_lower_inverse_in_place(Eigen::MatrixXd& inv_lower) {
  const auto n = static_cast<lapack_int>(inv_lower.rows());
  LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', n, inv_lower.data(), n);
}

void inverse_from_lower_inverse_in_place(Eigen::MatrixXf& inv_lower) {
  const auto n = static_cast<lapack_int>(inv_lower.rows());
  LAPACKE_slauum_work(LAPACK_COL_MAJOR, 'L', n, inv_lower.data(), n);
}

Eigen::VectorXd symmetric_eigenvalues(Eigen::MatrixXd A, const std::string& what) {
  const auto n = static_cast<lapack_int>(A.rows());
  Eigen::VectorXd w(A.rows());
  if (A.rows() != A.cols()) throw NumericalError(what, "eigenvalues need a square matrix");
  if (n > 0 && LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', n, A.data(), n, w.data()) != 0)
    throw NumericalError(what, "symmetric eigenvalue problem (dsyevd) did not converge");
  return w;
}

double Cholesky::log_determinant() const { return 2.0 * factor_.diagonal().array().log().sum(); }

}  // namespace quench
