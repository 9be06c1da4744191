// Cubature rules for expectations under the standard normal in r dimensions: the averages of
// smooth functions of a Gaussian vector (the multi-class ADATAP's decoupling variable,
// docs/adatap_multiclass.md), where a product of one-dimensional Gauss-Hermite rules grows like
// n^r. The fully symmetric rules of Stroud (Approximate Calculation of Multiple Integrals,
// 1971) reach degree 3 with 2r points and degree 5 with 2r^2 + 1.
#pragma once

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

/// Nodes (r x n, one per column) and weights (n, summing to 1) such that E[g(Z)],
/// Z ~ N(0, I_r), ~= sum_j w_j g(nodes.col(j)). For r = 0 one node (0 x 1) of weight 1.
struct GaussianCubature {
  Eigen::MatrixXd nodes;
  Eigen::VectorXd weights;
};

/// Degree 3 (Stroud E_r^{r^2} 3-2): the 2r points +-sqrt(r) e_i, each of weight 1 / (2r); exact
/// for every polynomial of total degree <= 3.
QUENCH_API GaussianCubature symmetric_cubature_3(int r);

/// Degree 5 (Stroud E_r^{r^2} 5-2): the origin (weight 2 / (r + 2)), the 2r points
/// +-sqrt(r + 2) e_i (weight (4 - r) / (2 (r + 2)^2), negative for r > 4) and the 2r(r - 1)
/// points sqrt((r + 2) / 2)(+-e_i +-e_j), i < j (weight 1 / (r + 2)^2); exact for every
/// polynomial of total degree <= 5.
QUENCH_API GaussianCubature symmetric_cubature_5(int r);

/// The n-point Gauss-Hermite rule (quench/gauss_hermite.h) in every coordinate: n^r points,
/// exact for polynomials of degree <= 2n - 1 in each coordinate. Throws NumericalError above
/// 10^6 points.
QUENCH_API GaussianCubature product_gauss_hermite(int r, int n);

}  // namespace quench
