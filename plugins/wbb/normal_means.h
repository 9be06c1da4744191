// Normal means with a Laplace prior (004 Sec. 3.1, Fig. 1): y | theta ~ N(theta, 1),
// p(theta) propto exp(-lambda |theta|).
#pragma once

#include <cmath>

#include "quench/normal.h"

namespace quench::wbb {

/// Mitchell (1994) exact posterior mean E(theta | y) = y + lambda (F(y) - F(-y)) / (F(y) +
/// F(-y)) with F(y) = exp(lambda y) Phi(-y - lambda). (004 prints exp(y), which is the
/// lambda = 1 case; completing the square in exp(-(y - theta)^2/2 -+ lambda theta) gives
/// exp(lambda y).) Evaluated in log space as a logistic weight.
inline double mitchell_posterior_mean(double y, double lambda) {
  const double log_f_plus = lambda * y + normal_log_cdf(-y - lambda);   // log F(y)
  const double log_f_minus = -lambda * y + normal_log_cdf(y - lambda);  // log F(-y)
  // (F(y) - F(-y)) / (F(y) + F(-y)) = tanh((log F(y) - log F(-y)) / 2).
  return y + lambda * std::tanh(0.5 * (log_f_plus - log_f_minus));
}

/// The exact WBB mean of soft(y, lambda w0/w1) with w0, w1 i.i.d. Exp(1): the ratio R = w0/w1
/// has P(R > r) = 1/(1 + r), so E = sign(y) (|y| - lambda log(1 + |y|/lambda)).
inline double wbb_normal_means_mean(double y, double lambda) {
  const double a = std::abs(y);
  return std::copysign(a - lambda * std::log1p(a / lambda), y);
}

}  // namespace quench::wbb
