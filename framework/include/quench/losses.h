// Test losses g(delta), delta = prediction - target, shared by Monte-Carlo and analytical
// engines so both evaluate the same quantity.
#pragma once

#include <cmath>

namespace quench {

/// g(delta) = delta^2 (000 eq 21, 53).
inline double square_loss(double delta) { return delta * delta; }

/// The smoothed epsilon-insensitive loss of 000 Sec. 5 (Fig. 1 right):
/// 0 for |delta| <= (1-beta) eps; (|delta| - (1-beta) eps)^2 / (4 beta eps) up to (1+beta) eps;
/// |delta| - eps beyond.
inline double eps_insensitive_loss(double delta, double eps, double beta) {
  const double a = std::abs(delta);
  if (a <= (1 - beta) * eps) return 0.0;
  if (a <= (1 + beta) * eps) {
    const double u = a - (1 - beta) * eps;
    return u * u / (4 * beta * eps);
  }
  return a - eps;
}

}  // namespace quench
