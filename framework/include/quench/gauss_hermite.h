// Gauss-Hermite quadrature for expectations under a normal density, shared by every engine
// and likelihood that integrates numerically.
#pragma once

#include <vector>

#include "quench/export.h"

namespace quench {

/// Nodes x_k and weights w_k such that E[g(Z)], Z ~ N(0, 1), ~= sum_k w_k g(x_k)
/// (probabilists' Hermite rule; the weights sum to 1). Computed once per order (Golub-Welsch)
/// and cached; thread-safe.
struct GaussHermiteRule {
  std::vector<double> nodes;
  std::vector<double> weights;
};
QUENCH_API const GaussHermiteRule& gauss_hermite(int order);

}  // namespace quench
