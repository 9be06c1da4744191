// Stable numerics of the standard normal density D(z) = exp(-z^2/2)/sqrt(2 pi) and cdf Phi(z),
// for probit-type likelihoods (001 App. A, eq 23). The ratios are computed in a form that
// neither underflows nor cancels for extreme arguments (|z| > 30 and beyond).
#pragma once

#include "quench/export.h"

namespace quench {

/// D(z) = exp(-z^2/2) / sqrt(2 pi).
QUENCH_API double normal_pdf(double z);
/// Phi(z), accurate in relative terms for z -> -infinity (through erfc).
QUENCH_API double normal_cdf(double z);
/// log Phi(z), finite for every finite z (asymptotic continued fraction below z = -6).
QUENCH_API double normal_log_cdf(double z);
/// The inverse Mills ratio r(z) = D(z) / Phi(z) (r ~ -z for z -> -infinity, r -> 0 for z -> inf).
QUENCH_API double normal_pdf_cdf_ratio(double z);
/// z + r(z) without cancellation (needed for the tilted variance 1 - r(z + r)); it is
/// positive for every z and ~ -1/z for z -> -infinity.
QUENCH_API double normal_ratio_plus_z(double z);
/// 1 - r(z) (z + r(z)) in (0, 1): the
/// tilted variance factor of a probit site, Var = v (1 - r (z + r)) (001 App. A); computed
/// without cancellation for z -> -infinity, where it behaves like 1/z^2.
QUENCH_API double normal_variance_factor(double z);

}  // namespace quench
