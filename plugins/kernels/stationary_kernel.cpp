#include "stationary_kernel.h"

#include <algorithm>

namespace quench::kernels {
namespace {

Eigen::MatrixXd weighted_distances(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   const Eigen::VectorXd& w) {
  return squared_distances(scale_inputs(A, w), scale_inputs(B, w));
}

}  // namespace

Eigen::MatrixXd StationaryKernel::shape(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                        const Eigen::VectorXd& w) const {
  Eigen::MatrixXd G = weighted_distances(A, B, w);
  profile(G, nullptr);
  return G;
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
  Eigen::MatrixXd G = weighted_distances(A, B, w), slope;
  profile(G, &slope);
  slope.array() *= amplitude() * weighted_squared_differences(A, B, c).array();
  return slope;
}

// sum_ab W_ab dK_ab/dw_l = sum_ab M_ab (a_l - b_l)^2 with M = v0 W o g'(D), O(|A| |B| d), over
// blocks of kBlock columns: no |A| x |B| temporaries, each block in cache.
WeightedKernel::Contractions StationaryKernel::contractions(const Eigen::MatrixXd& A,
                                                            const Eigen::MatrixXd& B,
                                                            const Eigen::MatrixXd& W,
                                                            const Eigen::VectorXd& w) const {
  constexpr Eigen::Index kBlock = 64;
  const Eigen::MatrixXd As = scale_inputs(A, w), Bs = scale_inputs(B, w);
  SquaredDifferenceContractions weights(A, B);
  double shape = 0.0;
  Eigen::MatrixXd G, M;
  for (Eigen::Index first = 0; first < B.rows(); first += kBlock) {
    const Eigen::Index n = std::min(kBlock, B.rows() - first);
    G = squared_distances(As, Bs.middleRows(first, n));
    profile(G, &M);
    const auto Wb = W.middleCols(first, n);
    shape += Wb.cwiseProduct(G).sum();
    M.array() *= amplitude() * Wb.array();
    weights.add(first, M);
  }
  return {weights.result(), shape};
}

Eigen::VectorXd StationaryKernel::diagonal_derivative_contractions(const Eigen::MatrixXd&,
                                                                   const Eigen::VectorXd& w) const {
  const auto blocks = hyperparameters();
  Eigen::VectorXd g = Eigen::VectorXd::Zero(flat_size(blocks));
  const double total = w.sum();
  g(flat_offset(blocks, "amplitude")) = total;
  g(flat_offset(blocks, "bias")) = total;
  return g;
}

}  // namespace quench::kernels
