// The symmetric part (A + A^T) / 2 of a square matrix: what a product that is symmetric in exact
// arithmetic (V A V^T, a covariance's update) is made before a factorization or an eigensolver
// that reads one triangle.
#pragma once

#include <Eigen/Core>

namespace quench {

inline Eigen::MatrixXd symmetric_part(const Eigen::MatrixXd& A) {
  return 0.5 * (A + A.transpose());
}

}  // namespace quench
