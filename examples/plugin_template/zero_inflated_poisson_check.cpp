// Checks of the zero-inflated Poisson likelihood (zero_inflated_poisson.h), the ones every new
// likelihood should pass before it reaches an engine:
//   1. d/df and d^2/df^2 log p(y | f) against central differences of log p and d/df log p;
//   2. d/dpi log p(y | f) against a central difference in pi (for a tiny pi, where such a
//      difference drowns in rounding, against its closed form);
//   3. the default d log Z / dpi (a tilted mean by quench's adaptive quadrature) against a
//      central difference of the default log Z, the gradient an evidence is learned with;
//   4. E[y | f], Var[y | f] and P(Y <= y | f) against sums of exp(log p) over the counts;
//   5. pi -> 0 is the Poisson likelihood; bad values of pi are refused.
// Prints the largest error of each and exits 1 when one exceeds its tolerance.
//
//   build-template/zero_inflated_poisson_check
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "quench/errors.h"
#include "zero_inflated_poisson.h"

namespace {

int failures = 0;

// Reports the largest error of a check against its tolerance.
void report(const char* what, double error, double tolerance) {
  const bool ok = error <= tolerance;  // false for NaN
  std::printf("  %-58s max error %.2e (tolerance %.0e)%s\n", what, error, tolerance,
              ok ? "" : "  FAIL");
  if (!ok) ++failures;
}

// |a - b| relative to 1 + |b|: absolute near 0, relative for large values.
double error(double a, double b) { return std::fabs(a - b) / (1.0 + std::fabs(b)); }

constexpr double kCounts[] = {0, 1, 3, 12, 40};
constexpr double kLatents[] = {-4.0, -1.5, -0.3, 0.0, 0.7, 1.9, 3.2};
constexpr double kZeroProbabilities[] = {1e-6, 0.05, 0.4, 0.9};
constexpr double kSizes[] = {1.0, 2.5};

}  // namespace

int main() {
  using zip::ZeroInflatedPoisson;
  std::printf("zero_inflated_poisson checks\n");

  // 1. f-derivatives. A central difference with step h has truncation error h^2 |l'''| / 6
  // (|l'''| <= ~mu^3 here, mu <= 2.5 e^3.2 = 61, h = 1e-6: < 4e-8) and rounding error
  // ~1e-16 |l| / h (|l| < 300: 3e-8); both relative to 1 + |l'| below 1e-6.
  double d1 = 0, d2 = 0;
  for (const double pi : kZeroProbabilities) {
    const ZeroInflatedPoisson lik(pi);
    for (const double n : kSizes)
      for (const double y : kCounts)
        for (const double f : kLatents) {
          const quench::Observation o{y, n};
          const double h = 1e-6;
          const double fd1 =
              (lik.log_likelihood(o, f + h) - lik.log_likelihood(o, f - h)) / (2 * h);
          const double fd2 =
              (lik.d_log_likelihood(o, f + h) - lik.d_log_likelihood(o, f - h)) / (2 * h);
          d1 = std::max(d1, error(lik.d_log_likelihood(o, f), fd1));
          d2 = std::max(d2, error(lik.d2_log_likelihood(o, f), fd2));
        }
  }
  report("d/df log p vs central differences", d1, 1e-6);
  report("d2/df2 log p vs central differences", d2, 1e-6);

  // 2. d/dpi log p, step h = 1e-4 pi (relative: pi spans 1e-6..0.9). Truncation
  // h^2 |d3/dpi3 log p| / 6 <= h^2 (2 / pi^3) / 6 ~ 3e-9 / pi relative to the derivative's
  // 1 / pi scale.
  double dpi = 0;
  for (const double pi : kZeroProbabilities) {
    const double h = 1e-4 * std::min(pi, 1.0 - pi);
    const ZeroInflatedPoisson lik(pi), up(pi + h), down(pi - h);
    for (const double n : kSizes)
      for (const double y : kCounts)
        for (const double f : kLatents) {
          const quench::Observation o{y, n};
          const double fd = (up.log_likelihood(o, f) - down.log_likelihood(o, f)) / (2 * h);
          const double g = lik.d_log_likelihood_hyperparameters(o, f)(0);
          dpi = std::max(dpi, std::fabs(g - fd) / (1.0 / pi + std::fabs(fd)));
        }
  }
  report("d/dpi log p vs central differences", dpi, 1e-6);

  // 2b. For a tiny pi a difference in pi is lost in the rounding of log p; there d/dpi of a zero
  // against its closed form (1 - e^-mu) / (pi + (1 - pi) e^-mu), ~e^mu - 1, evaluated apart.
  double tiny = 0;
  for (const double pi : {1e-10, 1e-30, 1e-100}) {
    const ZeroInflatedPoisson lik(pi);
    for (const double f : kLatents) {
      const double mu = std::exp(f);
      const double exact = -std::expm1(-mu) / (pi + (1.0 - pi) * std::exp(-mu));
      tiny =
          std::max(tiny, std::fabs(lik.d_log_likelihood_hyperparameters({0.0, 1.0}, f)(0) - exact) /
                             std::fabs(exact));
    }
  }
  report("d/dpi log p(0 | f), pi = 1e-10..1e-100, vs closed form", tiny, 1e-12);

  // 3. The default d log Z / dpi (quench::Likelihood::d_log_tilted_normalizer) against a
  // central difference of the default log Z (quench::Likelihood::tilted_moments). The
  // quadrature's log Z is accurate to ~1e-12 relative, so with h = 1e-4 pi the difference
  // quotient carries ~1e-12 / h of noise: 1e-6 relative to the 1 / pi scale is ample.
  double dlogz = 0;
  const double cavities[][2] = {{-1.0, 0.5}, {0.5, 2.0}, {2.0, 0.3}, {3.5, 4.0}};
  for (const double pi : kZeroProbabilities) {
    const double h = 1e-4 * std::min(pi, 1.0 - pi);
    const ZeroInflatedPoisson lik(pi), up(pi + h), down(pi - h);
    for (const double y : kCounts)
      for (const auto& c : cavities) {
        const quench::Observation o{y, 1.0};
        const double fd =
            (up.tilted_moments(o, c[0], c[1]).log_z - down.tilted_moments(o, c[0], c[1]).log_z) /
            (2 * h);
        const double g = lik.d_log_tilted_normalizer(o, c[0], c[1])(0);
        dlogz = std::max(dlogz, std::fabs(g - fd) / (1.0 / pi + std::fabs(fd)));
      }
  }
  report("default d log Z / dpi vs central differences of log Z", dlogz, 1e-6);

  // 4. Predictions of y given f against the mass summed term by term (to 400 > mu + 40 sd).
  double moments = 0, cdf = 0;
  for (const double pi : kZeroProbabilities) {
    const ZeroInflatedPoisson lik(pi);
    for (const double n : kSizes)
      for (const double f : kLatents) {
        double mass = 0, mean = 0, second = 0;
        for (int k = 0; k <= 400; ++k) {
          const double p = std::exp(lik.log_likelihood({double(k), n}, f));
          mass += p;
          mean += k * p;
          second += double(k) * k * p;
          if (k == 0 || k == 3 || k == 12)
            cdf = std::max(cdf, std::fabs(lik.target_cdf({double(k), n}, f) - mass));
        }
        const quench::TargetMoments t = lik.target_moments(f, n);
        moments = std::max({moments, std::fabs(mass - 1.0), error(t.mean, mean),
                            error(t.variance, second - mean * mean)});
      }
  }
  report("E[y | f], Var[y | f] (and total mass) vs sums of p(y | f)", moments, 1e-10);
  report("P(Y <= y | f) vs sums of p(y | f)", cdf, 1e-12);

  // 5. At the smallest pi (1e-100), log p(y | f) is the Poisson's to rounding: log(1 - pi) =
  // -1e-100 for y > 0, and for y = 0 log(e^-mu + pi) = -mu + log1p(pi e^mu), pi e^mu < 1e-73
  // here (mu <= 2.5 e^3.2 = 61).
  double poisson = 0;
  const ZeroInflatedPoisson almost(ZeroInflatedPoisson::kMinZeroProbability);
  for (const double n : kSizes)
    for (const double y : kCounts)
      for (const double f : kLatents) {
        const double log_mu = std::log(n) + f;
        const double reference = y * log_mu - std::exp(log_mu) - std::lgamma(y + 1.0);
        poisson = std::max(poisson, error(almost.log_likelihood({y, n}, f), reference));
      }
  report("log p at pi = 1e-100 vs the Poisson log p", poisson, 1e-14);

  int refused = 0;
  for (const double bad : {0.0, 1.0, -0.1, std::nan("")}) {
    try {
      ZeroInflatedPoisson lik(0.2);
      lik.set_hyperparameter("zero_probability", Eigen::VectorXd::Constant(1, bad));
    } catch (const quench::ConfigError&) {
      ++refused;
    }
  }
  try {
    ZeroInflatedPoisson(0.2).set_hyperparameter("dispersion", Eigen::VectorXd::Constant(1, 1.0));
  } catch (const quench::ConfigError&) {
    ++refused;
  }
  report("values and names refused (of 5)", 5 - refused, 0);

  if (failures) {
    std::printf("zero_inflated_poisson checks: %d FAILED\n", failures);
    return 1;
  }
  std::printf("zero_inflated_poisson checks: ok\n");
  return 0;
}
