// log Gamma(a + b) / Gamma(a) and its derivative in a less log(1 + b/a), for a > 0, b >= 0,
// without the cancellation of a difference of two lgamma (digamma) values when a is large (the
// negative binomial's Gamma(y + r) / Gamma(r) as r -> infinity, the Student-t normalizer's
// Gamma((nu + 1) / 2) / Gamma(nu / 2) as nu -> infinity).
#pragma once

namespace quench::likelihoods {

/// log Gamma(a + b) - log Gamma(a) for a > 0, b >= 0: the difference of lgamma values below
/// a = 20 (a few ulps of log Gamma(a + b)), the Stirling series from there (a few ulps of the
/// result, where the difference would lose log Gamma(a) / result of them).
double log_gamma_ratio(double a, double b);
/// psi(a + b) - psi(a) - log(1 + b/a) (d/da log_gamma_ratio(a, b) less its leading term, ~ b /
/// (2 a^2) for large a) for a > 0, b >= 0, likewise: digamma values below a = 20, the asymptotic
/// series from there.
double digamma_difference_excess(double a, double b);

}  // namespace quench::likelihoods
