#include "stationary_kernel.h"

#include <algorithm>

namespace quench::kernels {
namespace {

// The sums over the m coordinates of each dimension of a vector by the embedded columns
// (dimension l at l, l + d, ..., l + (m - 1) d).
Eigen::VectorXd per_dimension(const Eigen::VectorXd& v, Eigen::Index d) {
  return v.reshaped(d, v.size() / d).rowwise().sum();
}

}  // namespace

void StationaryKernel::prepare(const Eigen::MatrixXd& X) {
  WeightedKernel::prepare(X);
  origin_ =
      X.rows() > 0 ? Eigen::RowVectorXd(X.colwise().mean()) : Eigen::RowVectorXd::Zero(X.cols());
}

StationaryKernel::Embedded StationaryKernel::embedded(const Eigen::MatrixXd& A,
                                                      const Eigen::MatrixXd& B,
                                                      const Eigen::VectorXd& w) const {
  Embedded e;
  // weights() has checked the dimension against prepare()'s, so origin_ fits.
  e.inputs_A = A.rowwise() - origin_;
  e.inputs_B = B.rowwise() - origin_;
  e.A = embed(e.inputs_A);
  e.B = embed(e.inputs_B);
  e.w = w.replicate(e.A.cols() / w.size(), 1);
  return e;
}

Eigen::MatrixXd StationaryKernel::distances(const Embedded& e) {
  return squared_distances(scale_inputs(e.A, e.w), scale_inputs(e.B, e.w));
}

Eigen::MatrixXd StationaryKernel::shape(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                        const Eigen::VectorXd& w) const {
  Eigen::MatrixXd G = distances(embedded(A, B, w));
  profile(G, nullptr);
  return G;
}

Eigen::VectorXd StationaryKernel::shape_diagonal(const Eigen::MatrixXd& X,
                                                 const Eigen::VectorXd& /*w*/) const {
  return Eigen::VectorXd::Ones(X.rows());  // g(0) = 1
}

// sum_l c_l dK/dw_l = v0 g'(D) sum_l c_l |u(a_l) - u(b_l)|^2.
Eigen::MatrixXd StationaryKernel::weight_derivative(const Eigen::MatrixXd& A,
                                                    const Eigen::MatrixXd& B,
                                                    const Eigen::VectorXd& w,
                                                    const Eigen::VectorXd& c) const {
  const Embedded e = embedded(A, B, w);
  Eigen::MatrixXd G = distances(e), slope;
  profile(G, &slope);
  slope.array() *=
      amplitude() *
      weighted_squared_differences(e.A, e.B, c.replicate(e.w.size() / c.size(), 1)).array();
  return slope;
}

// sum_ab W_ab dK_ab/dw_l = sum_ab M_ab |u(a_l) - u(b_l)|^2 with M = v0 W o g'(D), and
// sum_ab W_ab dK_ab/dtheta_k = v0 sum_ab W_ab dg_ab/dtheta_k, O(|A| |B| d), over blocks of kBlock
// columns: no |A| x |B| temporaries, each block in cache.
WeightedKernel::Contractions StationaryKernel::contractions(const Eigen::MatrixXd& A,
                                                            const Eigen::MatrixXd& B,
                                                            const Eigen::MatrixXd& W,
                                                            const Eigen::VectorXd& w) const {
  constexpr Eigen::Index kBlock = 64;
  const Embedded e = embedded(A, B, w);
  const Eigen::MatrixXd As = scale_inputs(e.A, e.w), Bs = scale_inputs(e.B, e.w);
  SquaredDifferenceContractions weights(e.A, e.B);
  double shape = 0.0;
  Eigen::VectorXd parameters = Eigen::VectorXd::Zero(Eigen::Index(shape_parameter_count()));
  Eigen::MatrixXd D, G, M;
  for (Eigen::Index first = 0; first < B.rows(); first += kBlock) {
    const Eigen::Index n = std::min(kBlock, B.rows() - first);
    G = squared_distances(As, Bs.middleRows(first, n));
    if (parameters.size() > 0) D = G;
    profile(G, &M);
    const auto Wb = W.middleCols(first, n);
    shape += Wb.cwiseProduct(G).sum();
    if (parameters.size() > 0) {
      const Eigen::MatrixXd Bb = e.inputs_B.middleRows(first, n), EBb = e.B.middleRows(first, n);
      const std::vector<Eigen::MatrixXd> dg =
          profile_parameter_derivatives({e.inputs_A, Bb, e.A, EBb, D, G, M});
      for (Eigen::Index k = 0; k < parameters.size(); ++k)
        parameters(k) += Wb.cwiseProduct(dg[k]).sum();
    }
    M.array() *= amplitude() * Wb.array();
    weights.add(first, M);
  }
  return {per_dimension(weights.result(), A.cols()), shape, amplitude() * parameters};
}

std::vector<Eigen::MatrixXd> StationaryKernel::shape_parameter_derivatives(
    const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const Eigen::VectorXd& w) const {
  const Embedded e = embedded(A, B, w);
  const Eigen::MatrixXd D = distances(e);
  Eigen::MatrixXd G = D, slope;
  profile(G, &slope);
  std::vector<Eigen::MatrixXd> dK =
      profile_parameter_derivatives({e.inputs_A, e.inputs_B, e.A, e.B, D, G, slope});
  for (Eigen::MatrixXd& d : dK) d *= amplitude();
  return dK;
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

void gaussian_profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope) {
  G.array() = (-0.5 * G.array()).exp();
  if (slope) *slope = -0.5 * G;
}

}  // namespace quench::kernels
