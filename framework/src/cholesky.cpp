#include "quench/cholesky.h"

#include <cmath>
#include <sstream>

#include <lapacke.h>

#include "quench/errors.h"

namespace quench {

namespace {
lapack_int potrf_lower(Eigen::MatrixXd& A) {
  return LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', static_cast<lapack_int>(A.rows()), A.data(),
                        static_cast<lapack_int>(A.rows()));
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
  Eigen::MatrixXd inv_l = factor_;
  const auto n = static_cast<lapack_int>(inv_l.rows());
  LAPACKE_dtrtri(LAPACK_COL_MAJOR, 'L', 'N', n, inv_l.data(), n);
  return inv_l.colwise().squaredNorm().transpose();  // the strict upper triangle is zero
}

Eigen::MatrixXd Cholesky::inverse_lower() const {
  Eigen::MatrixXd inv_l = factor_;
  const auto n = static_cast<lapack_int>(inv_l.rows());
  LAPACKE_dtrtri(LAPACK_COL_MAJOR, 'L', 'N', n, inv_l.data(), n);
  return inv_l;
}

Eigen::MatrixXd Cholesky::inverse_from_lower_inverse(Eigen::MatrixXd inv) {
  const auto n = static_cast<lapack_int>(inv.rows());
  LAPACKE_dlauum(LAPACK_COL_MAJOR, 'L', n, inv.data(), n);  // lower triangle of L^-T L^-1
  inv.triangularView<Eigen::StrictlyUpper>() = inv.transpose();
  return inv;
}

Eigen::MatrixXf inverse_lower_single(Eigen::MatrixXf A, const std::string& what) {
  if (A.rows() != A.cols()) throw NumericalError(what, "Cholesky needs a square matrix");
  const auto n = static_cast<lapack_int>(A.rows());
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    if (!A.col(j).tail(A.rows() - j).allFinite())
      throw NumericalError(what, "matrix has non-finite entries");
  lapack_int info = LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', n, A.data(), n);
  if (info == 0) info = LAPACKE_strtri(LAPACK_COL_MAJOR, 'L', 'N', n, A.data(), n);
  if (info != 0) {
    std::ostringstream msg;
    msg << what << " (" << n << "x" << n
        << ") is not positive definite in single precision (LAPACK spotrf/strtri info " << info
        << ")";
    throw NumericalError("cholesky", msg.str());
  }
  A.triangularView<Eigen::StrictlyUpper>().setZero();
  return A;
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
