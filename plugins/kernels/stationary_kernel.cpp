#include "stationary_kernel.h"

namespace quench::kernels {
namespace {

Eigen::ArrayXXd weighted_distances(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   const Eigen::VectorXd& w) {
  return squared_distances(scale_inputs(A, w), scale_inputs(B, w)).array();
}

}  // namespace

Eigen::MatrixXd StationaryKernel::shape(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                        const Eigen::VectorXd& w) const {
  return profile(weighted_distances(A, B, w), nullptr).matrix();
}

Eigen::VectorXd StationaryKernel::shape_diagonal(const Eigen::MatrixXd& X,
                                                 const Eigen::VectorXd& /*w*/) const {
  return Eigen::VectorXd::Ones(X.rows());  // g(0) = 1
}

// sum_l c_l dK/dw_l = v0 g'(D) sum_l c_l (a_l - b_l)^2.
Eigen::MatrixXd StationaryKernel::weight_derivative(const Eigen::MatrixXd& A,
                                                    const Eigen::MatrixXd& B,
                                                    const Eigen::VectorXd& w,
                                                    const Eigen::VectorXd& c) const {
  Eigen::ArrayXXd slope;
  profile(weighted_distances(A, B, w), &slope);
  return (amplitude() * slope * weighted_squared_differences(A, B, c).array()).matrix();
}

// sum_ab W_ab dK_ab/dw_l = sum_ab M_ab (a_l - b_l)^2 with M = v0 W o g'(D): two GEMMs in all
// (the distances and M B), O(|A| |B| d).
WeightedKernel::Contractions StationaryKernel::contractions(const Eigen::MatrixXd& A,
                                                            const Eigen::MatrixXd& B,
                                                            const Eigen::MatrixXd& W,
                                                            const Eigen::VectorXd& w) const {
  Eigen::ArrayXXd slope;
  const Eigen::ArrayXXd g = profile(weighted_distances(A, B, w), &slope);
  const Eigen::MatrixXd M = (amplitude() * W.array() * slope).matrix();
  return {squared_difference_contractions(A, B, M), (W.array() * g).sum()};
}

}  // namespace quench::kernels
