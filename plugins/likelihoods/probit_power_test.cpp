// k-fold tilted moments of the probit, Phi(y f / sigma)^k N(f; m, v) / Z_k (000 eqs 43-46),
// against independent dense long-double quadrature: the mode-centred Gauss-Legendre path of
// quench/tilted_power_moments.h (the probit's fast path and the Likelihood default), the step
// likelihood's closed form and the label-noise mixture.
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "probit_likelihood.h"
#include "probit_power_reference.h"
#include "quench/errors.h"

namespace quench::likelihoods::probit_power_test {
namespace {

using namespace power_reference;

// Tolerances: log Z absolute, mean relative to max(|mean|, sd), variance relative.
void expect_close(const TiltedMoments& t, const Ref& r, double y, double tol,
                  const std::string& what) {
  const double mean = y * static_cast<double>(r.mean), var = static_cast<double>(r.var);
  EXPECT_NEAR(t.log_z, static_cast<double>(r.log_z), tol) << what;
  EXPECT_NEAR(t.mean, mean, tol * std::max(std::fabs(mean), std::sqrt(var))) << what;
  EXPECT_NEAR(t.variance, var, tol * var) << what;
}

// A cavity with y m / sqrt(v + sigma^2) = z and v = w sigma^2.
struct Case {
  double y, m, v, sigma;
  int k;
};
Case make_case(double y, double z, double w, double sigma2, int k) {
  const double v = w * sigma2;
  return {y, y * z * std::sqrt(v + sigma2), v, std::sqrt(sigma2), k};
}
std::string describe(const Case& c) {
  return "y " + std::to_string(c.y) + " m " + std::to_string(c.m) + " v " + std::to_string(c.v) +
         " sigma " + std::to_string(c.sigma) + " k " + std::to_string(c.k);
}

// The Likelihood default (generic quadrature), reached by hiding the probit's override.
class Generic final : public Likelihood {
 public:
  explicit Generic(const Likelihood& l) : l_(l) {}
  double log_likelihood(const Observation& y, double f) const override {
    return l_.log_likelihood(y, f);
  }
  double d_log_likelihood(const Observation& y, double f) const override {
    return l_.d_log_likelihood(y, f);
  }
  double d2_log_likelihood(const Observation& y, double f) const override {
    return l_.d2_log_likelihood(y, f);
  }
  TiltedMoments tilted_moments(const Observation& y, double m, double v) const override {
    return l_.tilted_moments(y, m, v);
  }
  double curvature_bound() const override { return l_.curvature_bound(); }

 private:
  const Likelihood& l_;
};

TEST(ProbitPower, DenseReferenceHasConverged) {
  // Halving the trapezoid step changes nothing at 1e-13 even for the hardest shapes (peak
  // width / cavity width ~ 1e-4, far wrong side), so the reference is exact at the 1e-8 level.
  for (const Case& c : {make_case(1, -30, 1e6, 1.0, 20), make_case(-1, -30, 1e-6, 1e-4, 2),
                        make_case(1, 0.5, 1e4, 25.0, 30), make_case(1, -3, 1.0, 1.0, 5),
                        make_case(-1, 1, 1e6, 1e-4, 30)}) {
    const Ref a = dense_probit(c.y * c.m, c.v, c.k, c.sigma, 1L << 12);
    const Ref b = dense_probit(c.y * c.m, c.v, c.k, c.sigma, 1L << 13);
    EXPECT_NEAR(static_cast<double>(a.log_z), static_cast<double>(b.log_z), 1e-13);
    EXPECT_NEAR(static_cast<double>(a.mean), static_cast<double>(b.mean),
                1e-13 * std::sqrt(static_cast<double>(b.var)));
    EXPECT_NEAR(static_cast<double>(a.var), static_cast<double>(b.var),
                1e-13 * static_cast<double>(b.var));
  }
}

TEST(ProbitPower, GridMatchesDenseQuadrature) {
  int i = 0;
  for (int k : {2, 3, 5, 10, 20, 30})
    for (double sigma2 : {1e-4, 1.0, 25.0})
      for (double w : {1e-6, 1e-2, 1.0, 100.0, 1e6})
        for (double z : {-30.0, -10.0, -3.0, -1.0, 0.0, 1.0, 3.0, 10.0}) {
          const Case c = make_case(++i % 2 ? 1.0 : -1.0, z, w, sigma2, k);
          const ProbitLikelihood l(sigma2, 0.0);
          expect_close(l.tilted_moments_power({c.y}, c.m, c.v, c.k),
                       dense_probit(c.y * c.m, c.v, c.k, c.sigma), c.y, 1e-8, describe(c));
        }
}

TEST(ProbitPower, RandomCavitiesMatchDenseQuadrature) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 300; ++i) {
    const double sigma2 = std::pow(10.0, -4 + 6 * u(rng)), w = std::pow(10.0, -7 + 14 * u(rng));
    const Case c = make_case(u(rng) < 0.5 ? 1.0 : -1.0, -30 + 40 * u(rng), w, sigma2,
                             2 + static_cast<int>(19 * u(rng)));
    const ProbitLikelihood l(sigma2, 0.0);
    expect_close(l.tilted_moments_power({c.y}, c.m, c.v, c.k),
                 dense_probit(c.y * c.m, c.v, c.k, c.sigma), c.y, 1e-8, describe(c));
  }
}

TEST(ProbitPower, LowPowersAreTheGaussianAndTheClosedForm) {
  for (double kappa : {0.0, 0.1})
    for (double noise : {0.0, 0.5})
      for (double m : {-40.0, -1.0, 0.3, 5.0})
        for (double y : {1.0, -1.0}) {
          const ProbitLikelihood l(noise, kappa);
          const TiltedMoments g = l.tilted_moments_power({y}, m, 2.0, 0);
          EXPECT_EQ(g.log_z, 0.0);
          EXPECT_EQ(g.mean, m);
          EXPECT_EQ(g.variance, 2.0);
          const TiltedMoments a = l.tilted_moments_power({y}, m, 2.0, 1);
          const TiltedMoments b = l.tilted_moments({y}, m, 2.0);
          EXPECT_EQ(a.log_z, b.log_z);
          EXPECT_EQ(a.mean, b.mean);
          EXPECT_EQ(a.variance, b.variance);
        }
  const ProbitLikelihood l(1.0, 0.0);
  const Generic generic(l);
  for (const Likelihood* x :
       {static_cast<const Likelihood*>(&l), static_cast<const Likelihood*>(&generic)}) {
    EXPECT_THROW(x->tilted_moments_power({1.0}, 0.0, 1.0, -1), std::invalid_argument);
    EXPECT_THROW(x->tilted_moments_power({1.0}, 0.0, 0.0, 2), NumericalError);
    EXPECT_THROW(x->tilted_moments_power({1.0}, 0.0, -1.0, 0), NumericalError);
    EXPECT_THROW(x->tilted_moments_power({1.0}, 0.0, std::nan(""), 3), NumericalError);
  }
}

// The Likelihood default finds the probit's transition itself (no `transitions`): measured
// <= 5e-9 against the dense reference over these cavities, so it agrees with the fast path
// (<= 1e-11) to 1e-8.
TEST(ProbitPower, GenericDefaultEqualsFastPath) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 400; ++i) {
    const double sigma2 = std::pow(10.0, -4 + 6 * u(rng)), w = std::pow(10.0, -7 + 14 * u(rng));
    const Case c = make_case(u(rng) < 0.5 ? 1.0 : -1.0, -30 + 40 * u(rng), w, sigma2,
                             2 + static_cast<int>(29 * u(rng)));
    const ProbitLikelihood l(sigma2, 0.0);
    const TiltedMoments a = l.tilted_moments_power({c.y}, c.m, c.v, c.k);
    const TiltedMoments b = Generic(l).tilted_moments_power({c.y}, c.m, c.v, c.k);
    EXPECT_NEAR(a.log_z, b.log_z, 1e-8) << describe(c);
    EXPECT_NEAR(a.mean, b.mean, 1e-8 * std::max(std::fabs(a.mean), std::sqrt(a.variance)))
        << describe(c);
    EXPECT_NEAR(a.variance, b.variance, 1e-8 * a.variance) << describe(c);
  }
}

// Moments of [kappa + (1 - 2 kappa) Theta(g)]^k N(g; mu, v) (the step, noise = 0): the two
// half-lines g < 0 and g > 0 by tanh-sinh each, independent of the closed form.
Ref dense_step(double mu, double v, int k, double kappa) {
  const ld R = std::fabs(mu) + 40 * std::sqrt(static_cast<ld>(v));
  const ld lo = std::pow(static_cast<ld>(kappa), k), hi = std::pow(1 - static_cast<ld>(kappa), k);
  const ld top = -std::log(std::sqrt(2 * M_PIl * v));
  ld sums[3] = {0, 0, 0};
  auto gauss = [&](ld g) { return -(g - mu) * (g - mu) / (2 * static_cast<ld>(v)) + top; };
  if (kappa > 0)
    tanh_sinh([&](ld g) { return gauss(g) + std::log(lo); }, -R, 0, 0, 0, 1L << 13, sums);
  tanh_sinh([&](ld g) { return gauss(g) + std::log(hi); }, 0, R, 0, 0, 1L << 13, sums);
  const ld mean = sums[1] / sums[0];
  return {std::log(sums[0]), mean, sums[2] / sums[0] - mean * mean};
}

TEST(ProbitPower, StepLikelihoodMatchesDenseQuadrature) {
  for (double kappa : {0.0, 0.05})
    for (int k : {2, 7, 20})
      for (double z : {-30.0, -5.0, -0.5, 0.0, 2.0, 12.0})
        for (double v : {1e-4, 1.0, 400.0}) {
          const double y = k % 2 ? -1.0 : 1.0, m = y * z * std::sqrt(v);
          const ProbitLikelihood l(0.0, kappa);
          // tanh-sinh with a single peak width per half-line: 1e-10 (8192 steps).
          expect_close(l.tilted_moments_power({y}, m, v, k), dense_step(y * m, v, k, kappa), y,
                       1e-9, "step k " + std::to_string(k) + " z " + std::to_string(z));
        }
}

// [kappa + (1 - 2 kappa) Phi(g / sigma)]^k N(g; mu, v) on a uniform trapezoid grid of step
// <= min(sigma / sqrt(k), sqrt(v)) / 40 over [min(mu, -8 sigma) - 40 sqrt v, max(mu, 8 sigma)
// + 40 sqrt v]: covers both modes of the (not log-concave) tilted density.
Ref dense_label_noise(double mu, double v, int k, double sigma, double kappa) {
  const ld sv = std::sqrt(static_cast<ld>(v));
  const ld a = std::min<ld>(mu, -8 * sigma) - 40 * sv, b = std::max<ld>(mu, 8 * sigma) + 40 * sv;
  const ld h0 = std::min<ld>(sigma / std::sqrt(static_cast<ld>(k)), sv) / 40;
  const long n = static_cast<long>((b - a) / h0) + 1;
  const ld h = (b - a) / n;
  auto phi = [&](ld g) {
    const ld p = kappa + (1 - 2 * static_cast<ld>(kappa)) * std::exp(log_phi(g / sigma));
    return k * std::log(p) - (g - mu) * (g - mu) / (2 * static_cast<ld>(v));
  };
  ld top = -1e4000L;
  for (long i = 0; i <= n; ++i) top = std::max(top, phi(a + i * h));
  ld m0 = 0, m1 = 0, m2 = 0;
  for (long i = 0; i <= n; ++i) {
    const ld g = a + i * h, e = std::exp(phi(g) - top);
    m0 += e;
    m1 += e * g;
    m2 += e * g * g;
  }
  const ld mean = m1 / m0;
  return {top + std::log(m0 * h) - 0.5L * std::log(2 * M_PIl * v), mean, m2 / m0 - mean * mean};
}

TEST(ProbitPower, LabelNoiseMixtureMatchesDenseQuadrature) {
  for (double kappa : {1e-3, 0.05, 0.3})
    for (int k : {2, 5, 20})
      for (double z : {-10.0, -3.0, 0.0, 3.0})
        for (double w : {0.01, 1.0, 100.0}) {
          const Case c = make_case(k == 5 ? -1.0 : 1.0, z, w, 1.0, k);
          const ProbitLikelihood l(1.0, kappa);
          // The trapezoid on a smooth integrand decaying to e^-800 at its ends: ~1e-12.
          expect_close(l.tilted_moments_power({c.y}, c.m, c.v, c.k),
                       dense_label_noise(c.y * c.m, c.v, c.k, 1.0, kappa), c.y, 1e-8,
                       describe(c) + " kappa " + std::to_string(kappa));
        }
}

// d log Z_k / dm = (E[f] - m) / v (differentiate under the integral): central differences
// with step 1e-4 sqrt(v) (truncation ~1e-8 relative, quadrature noise ~1e-11 / 1e-4).
TEST(ProbitPower, MeanIsTheDerivativeOfLogZ) {
  for (double noise : {0.0, 0.3, 2.0})
    for (double kappa : {0.0, 0.1})
      for (int k : {2, 6, 15})
        for (double z : {-20.0, -2.0, 0.5, 4.0})
          for (double w : {1e-3, 1.0, 1e3}) {
            const double v = w * std::max(noise, 0.1), y = k == 6 ? -1.0 : 1.0;
            const double m = y * z * std::sqrt(v + noise), dm = 1e-4 * std::sqrt(v);
            const ProbitLikelihood l(noise, kappa);
            const double fd = (l.tilted_moments_power({y}, m + dm, v, k).log_z -
                               l.tilted_moments_power({y}, m - dm, v, k).log_z) /
                              (2 * dm);
            const double exact = (l.tilted_moments_power({y}, m, v, k).mean - m) / v;
            EXPECT_NEAR(fd, exact, 1e-6 * (std::fabs(exact) + 1 / std::sqrt(v)))
                << noise << " " << kappa << " " << k << " " << z << " " << w;
          }
}

}  // namespace
}  // namespace quench::likelihoods::probit_power_test
