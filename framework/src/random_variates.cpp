#include "quench/random_variates.h"

#include <cmath>

#include "quench/rng.h"

namespace quench {

double gamma_variate(RngStream& rng, double shape) {
  if (shape < 1) {
    const double g = gamma_variate(rng, shape + 1);
    return g * std::pow(rng.uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.uniform();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}

double inverse_gaussian_variate(RngStream& rng, double mu, double lambda) {
  // x = mu (1 + t - sqrt(t^2 + 2t)), t = mu nu^2 / (2 lambda), written without cancellation.
  const double nu = rng.normal();
  const double t = mu * nu * nu / (2 * lambda);
  const double x = mu / (1 + t + std::sqrt(t * t + 2 * t));
  return rng.uniform() <= mu / (mu + x) ? x : mu * mu / x;
}

}  // namespace quench
