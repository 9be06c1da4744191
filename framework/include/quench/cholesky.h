// Cholesky factorization through LAPACK (dpotrf of the BLAS backend), with a jitter policy
// for nearly singular kernel matrices. Every engine factorizes through this class.
#pragma once

#include <string>

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

struct JitterPolicy {
  /// First jitter tried after a failure, relative to the mean of the diagonal.
  double initial_relative = 1e-10;
  double growth = 10.0;  ///< factor between tries
  int max_tries = 6;     ///< 0 = no jitter, a non-PD matrix fails at once
};

class QUENCH_API Cholesky {
 public:
  /// Factorizes the symmetric matrix A = L L^T (only the lower triangle of A is read).
  /// When A is not positive definite, adds jitter * I per the policy; throws NumericalError
  /// naming `what` when every try fails.
  explicit Cholesky(Eigen::MatrixXd A, const JitterPolicy& policy = {},
                    const std::string& what = "matrix");

  Eigen::Index size() const { return factor_.rows(); }
  /// The jitter that was added to the diagonal (0 when none was needed).
  double jitter() const { return jitter_; }
  /// The lower-triangular factor L (the strict upper triangle is zero).
  const Eigen::MatrixXd& lower() const { return factor_; }

  Eigen::VectorXd solve(const Eigen::VectorXd& b) const;        ///< A^{-1} b
  Eigen::MatrixXd solve(const Eigen::MatrixXd& B) const;        ///< A^{-1} B
  Eigen::MatrixXd solve_lower(const Eigen::MatrixXd& B) const;  ///< L^{-1} B
  Eigen::MatrixXd inverse() const;                              ///< A^{-1} (dpotri)
  /// diag(A^{-1}) as the squared column norms of L^{-1} (dtrtri): n^3/3 flops, not n^3.
  Eigen::VectorXd inverse_diagonal() const;
  double log_determinant() const;  ///< log det A
  /// L^{-1} (n^3/3 flops in level-3 BLAS; the strict upper triangle is zero). Its squared column
  /// norms are diag(A^{-1}); keep it to get the whole A^{-1} later by inverse_from_lower_inverse.
  Eigen::MatrixXd inverse_lower() const;
  /// A^{-1} = L^{-T} L^{-1} from L^{-1} (dlauum, n^3/3 flops: dpotri without its dtrtri).
  static Eigen::MatrixXd inverse_from_lower_inverse(Eigen::MatrixXd inv_lower);

 private:
  Eigen::MatrixXd factor_;
  double jitter_ = 0.0;
};

/// L^{-1} for the lower Cholesky factor L of A in single precision (spotrf + strtri, about 2.5x
/// faster than double), for cheap intermediate evaluations whose result is confirmed in double
/// precision afterwards. Only the lower triangle of A is read; no jitter: throws NumericalError
/// naming `what` when A is not positive definite in single precision.
QUENCH_API Eigen::MatrixXf inverse_lower_single(Eigen::MatrixXf A,
                                                const std::string& what = "matrix");

/// L^{-1} for the lower Cholesky factor L of A in double precision, computed in the storage of
/// A (dpotrf + the level-3 triangular inverse of Cholesky::inverse_lower; no copy of A, L is
/// not kept). For a well-conditioned A whose factor is needed only through L^{-1} (e.g.
/// I + D^1/2 K D^1/2). Only the lower triangle of A is read; the strict upper triangle of the
/// result is zero. No jitter: throws NumericalError naming `what` when A is not positive
/// definite.
QUENCH_API Eigen::MatrixXd inverse_lower_double(Eigen::MatrixXd A,
                                                const std::string& what = "matrix");

/// In place: the lower triangle of A^{-1} = L^{-T} L^{-1} from L^{-1} (LAPACK ?lauum, n^3/3
/// flops, lower triangle only; the strict upper triangle is not touched). For callers that read
/// only the lower triangle of A^{-1}, e.g. after inverse_lower_single / inverse_lower_double.
QUENCH_API void inverse_from_lower_inverse_in_place(Eigen::MatrixXd& inv_lower);
QUENCH_API void inverse_from_lower_inverse_in_place(Eigen::MatrixXf& inv_lower);

/// Eigenvalues (ascending) of the symmetric matrix A (LAPACK dsyevd; only the lower triangle
/// of A is read). Throws NumericalError naming `what` when LAPACK does not converge.
QUENCH_API Eigen::VectorXd symmetric_eigenvalues(Eigen::MatrixXd A,
                                                 const std::string& what = "matrix");

}  // namespace quench
