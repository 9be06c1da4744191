#include "log_gamma_ratio.h"

#include <cmath>

#include <boost/math/special_functions/digamma.hpp>

namespace quench::likelihoods {

namespace {

// From here on the asymptotic series below are used; their truncation errors are < 1e-17.
constexpr double kSeriesFrom = 20.0;

// The Stirling remainder omega(x) = log Gamma(x) - (x - 1/2) log x + x - log(2 pi) / 2 =
// sum_k B_2k / (2k (2k - 1) x^(2k - 1)) (DLMF 5.11.1), five terms.
double stirling_remainder(double x) {
  const double w = 1.0 / (x * x);
  return (1.0 / 12 - w * (1.0 / 360 - w * (1.0 / 1260 - w * (1.0 / 1680 - w / 1188)))) / x;
}

// The digamma remainder varpi(x) = log x - 1 / (2x) - psi(x) = sum_k B_2k / (2k x^2k)
// (DLMF 5.11.2), five terms.
double digamma_remainder(double x) {
  const double w = 1.0 / (x * x);
  return w * (1.0 / 12 - w * (1.0 / 120 - w * (1.0 / 252 - w * (1.0 / 240 - w / 132))));
}

}  // namespace

double log_gamma_ratio(double a, double b) {
  if (a < kSeriesFrom) return std::lgamma(a + b) - std::lgamma(a);
  // Stirling: (a - 1/2) log(1 + b/a) + b log(a + b) - b + omega(a + b) - omega(a).
  return (a - 0.5) * std::log1p(b / a) + b * std::log(a + b) - b + stirling_remainder(a + b) -
         stirling_remainder(a);
}

double digamma_difference_excess(double a, double b) {
  if (a < kSeriesFrom)
    return boost::math::digamma(a + b) - boost::math::digamma(a) - std::log1p(b / a);
  // b / (2 a (a + b)) - varpi(a + b) + varpi(a), from DLMF 5.11.2.
  return b / (2.0 * a * (a + b)) - digamma_remainder(a + b) + digamma_remainder(a);
}

}  // namespace quench::likelihoods
