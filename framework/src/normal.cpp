#include "quench/normal.h"

#include <cmath>

namespace quench {

namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log sqrt(2 pi)
// Below this argument the ratio is taken from the continued fraction; above it from erfc,
// which is accurate in relative terms there (Phi(-6) ~ 1e-9, no cancellation in z + r yet
// beyond ~1 digit).
constexpr double kSwitch = -6.0;
constexpr double kLogSwitch = -37.0;

// U(x) = x + 2/(x + 3/(x + 4/(x + ...))) for x = -z >= 6, by backward recurrence. The Mills
// ratio continued fraction is (1 - Phi(x))/D(x) = 1/(x + 1/U(x)) (Abramowitz & Stegun 26.2.14),
// so r(z) = D/Phi(z) = x + 1/U and z + r = 1/U. At x >= 6 the tail from depth 80 changes U
// by less than 1e-17 relative.
double mills_tail_from(double x, int first) {
  double u = x;
  for (int k = 80; k >= first; --k) u = x + k / u;
  return u;
}
double mills_tail(double x) { return mills_tail_from(x, 2); }

}  // namespace

double normal_pdf(double z) { return std::exp(-0.5 * z * z - kLogSqrt2Pi); }

double normal_cdf(double z) { return 0.5 * std::erfc(-z / M_SQRT2); }

double normal_log_cdf(double z) {
  // erfc keeps full relative accuracy until it underflows (x = 26.5, z = -37.5); the
  // 80-term continued fraction costs ~10x more, so it is used only below kLogSwitch.
  if (z >= kLogSwitch) {
    // log1p for z large positive, where Phi ~ 1.
    if (z > 0) return std::log1p(-0.5 * std::erfc(z / M_SQRT2));
    return std::log(normal_cdf(z));
  }
  // log Phi = log D - log r.
  return -0.5 * z * z - kLogSqrt2Pi - std::log(normal_pdf_cdf_ratio(z));
}

double normal_pdf_cdf_ratio(double z) {
  if (z >= kSwitch) return normal_pdf(z) / normal_cdf(z);
  const double x = -z;
  return x + 1.0 / mills_tail(x);
}

double normal_ratio_plus_z(double z) {
  if (z >= kSwitch) return z + normal_pdf_cdf_ratio(z);
  return 1.0 / mills_tail(-z);
}

double normal_variance_factor(double z) {
  if (z >= kSwitch) {
    const double r = normal_pdf_cdf_ratio(z);
    return 1.0 - r * normal_ratio_plus_z(z);
  }
  // With U' = x + 3/(x + 4/...) and U = x + 2/U': r = x + 1/U, z + r = 1/U, so
  // 1 - r (z + r) = (U (U - x) - 1)/U^2 = (2U - U')/(U' U^2), free of cancellation.
  const double x = -z;
  const double u1 = mills_tail_from(x, 3);
  const double u = x + 2.0 / u1;
  return (2.0 * u - u1) / (u1 * u * u);
}

}  // namespace quench
