// The logistic function sigma(x) = 1 / (1 + e^-x) and log sigma(x), in forms that neither
// overflow nor lose relative accuracy in either tail (the logit and binomial likelihoods, the
// negative binomial's success probability).
#pragma once

#include <cmath>

namespace quench::likelihoods {

/// sigma(x) = 1 / (1 + e^-x), as e^x / (1 + e^x) for x < 0 (relative accuracy for all x).
inline double logistic(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

/// log sigma(x) = -log(1 + e^-x), as x - log(1 + e^x) for x < 0 (finite for all finite x).
inline double log_logistic(double x) {
  return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x));
}

}  // namespace quench::likelihoods
