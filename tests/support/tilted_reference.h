// An independent reference for the moments of a k-fold tilted density exp(k l(f)) N(f; m, v) /
// Z_k of any log-likelihood l: Boost's adaptive Gauss-Kronrod (61 points) on pieces cut at
// given points (the cavity, the likelihood's modes, a few length scales around each), for tests
// of quench/tilted_quadrature.h and of the likelihoods' tilted moments.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <boost/math/quadrature/gauss_kronrod.hpp>

#include "quench/likelihood.h"

namespace quench::testing {

/// log Z_k, the mean and the variance of exp(k log_p(f)) N(f; m, v) by Boost's adaptive
/// Gauss-Kronrod on (-inf, c_0], [c_0, c_1], ..., [c_last, inf) (`cuts` sorted, not empty),
/// each integrand scaled by exp(-top) (top: the largest log integrand at the cuts), each piece to
/// `tolerance` relative (at most 2^8 sub-pieces). The moments are taken about `centre` (default
/// m); a centre near the tilted mean keeps the variance E[(f - centre)^2] - E[f - centre]^2 from
/// cancelling when the cavity is far from it.
template <class LogLikelihood>
TiltedMoments tilted_reference(const LogLikelihood& log_p, double m, double v, int k,
                               const std::vector<double>& cuts,
                               std::optional<double> centre = std::nullopt,
                               double tolerance = 1e-13) {
  const double about = centre.value_or(m);
  using boost::math::quadrature::gauss_kronrod;
  const auto phi = [&](double f) { return k * log_p(f) - 0.5 * (f - m) * (f - m) / v; };
  double top = -std::numeric_limits<double>::infinity();
  for (double c : cuts) top = std::max(top, phi(c));
  const auto integral = [&](int power) {
    const auto g = [&](double f) { return std::pow(f - about, power) * std::exp(phi(f) - top); };
    const double inf = std::numeric_limits<double>::infinity();
    double sum = gauss_kronrod<double, 61>::integrate(g, -inf, cuts.front(), 8, tolerance) +
                 gauss_kronrod<double, 61>::integrate(g, cuts.back(), inf, 8, tolerance);
    for (std::size_t i = 1; i < cuts.size(); ++i)
      sum += gauss_kronrod<double, 61>::integrate(g, cuts[i - 1], cuts[i], 8, tolerance);
    return sum;
  };
  const double z = integral(0), first = integral(1) / z;
  return {top + std::log(z) - 0.5 * std::log(2 * M_PI * v), about + first,
          integral(2) / z - first * first};
}

/// Cuts at m, a and b and at +-1, 3, 10 scale units around a (scale sa) and b (scale sb),
/// sorted and without repeats.
inline std::vector<double> cuts_around(double m, double a, double sa, double b, double sb) {
  std::vector<double> c;
  for (double d : {-10.0, -3.0, -1.0, 0.0, 1.0, 3.0, 10.0}) {
    c.push_back(a + d * sa);
    c.push_back(b + d * sb);
  }
  c.push_back(m);
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

}  // namespace quench::testing
