// The probit likelihood and the normal-cdf numerics against long-double quadrature, including
// extreme arguments |z| > 30 where naive D/Phi ratios underflow or cancel.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "probit_likelihood.h"
#include "quench/errors.h"
#include "quench/normal.h"

namespace quench::likelihoods::probit_likelihood_test {
namespace {

// Moments of u under [kappa + (1 - 2 kappa) Theta(u)] N(u; z, 1), by composite Simpson in
// long double. Each piece is integrated with a step `h` (1e-3 or 5e-3) of its own length scale
// (1 where the Gaussian peak lies inside the piece, 1/|z| where only its exponential tail
// does), so Simpson's error ~ h^4 / 180 ~ 1e-14 or ~4e-12 relative (measured ~1e-11 at 5e-3),
// below the tolerances used with each (1e-12 and 1e-9).
struct SimpsonMoments {
  long double log_z, mean, var;
};
long double simpson(int k, long double centre, long double z, long double a, long double b,
                    long double h, long double offset) {
  long n = static_cast<long>((b - a) / h) + 2;
  if (n % 2) ++n;
  const long double hh = (b - a) / n;
  long double sum = 0;
  for (long i = 0; i <= n; ++i) {
    const long double u = a + i * hh;
    const long double c = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    // exp(z u - u^2/2) = N(u; z, 1) * sqrt(2 pi) * exp(z^2/2): nothing underflows.
    sum += c * std::pow(u - centre, k) * std::exp(z * u - 0.5L * u * u - offset);
  }
  return sum * hh / 3;
}
SimpsonMoments quadrature(double zd, double kappa, long double h = 1e-3L) {
  const long double z = zd;
  const long double az = std::max(1.0L, std::fabs(z));
  // With label noise the kappa part dominates far out (z -> -inf) and its peak factor
  // exp(z^2/2) would overflow: scale both parts by exp(-z^2/2) then.
  const long double offset = kappa > 0 ? 0.5L * z * z : 0.0L;
  auto total = [&](int k, long double centre) {
    const long double step_hi = z > 0 ? z + 12 : 40 / az;
    long double s = (1.0L - kappa) * simpson(k, centre, z, 0, step_hi, z > 0 ? h : h / az, offset);
    if (kappa > 0)
      s += kappa * simpson(k, centre, z, std::min(0.0L, z) - 12, std::min(0.0L, z + 12),
                           z < 0 ? h : h / az, offset);
    return s;
  };
  const long double i0 = total(0, 0);
  const long double mean = total(1, 0) / i0;
  const long double var = total(2, mean) / i0;
  return {-0.5L * z * z + offset - 0.5L * std::log(2 * M_PIl) + std::log(i0), mean, var};
}

TEST(NormalNumerics, RatiosMatchQuadratureForExtremeArguments) {
  for (double z : {-1e4, -300.0, -40.0, -31.0, -8.0, -6.0, -5.9, -2.0, 0.0, 3.0, 12.0, 40.0}) {
    const SimpsonMoments ref = quadrature(z, 0.0);
    // log Phi(z) = log Z of the step; r = D/Phi = E[u]-z... r(z) = mean - z for the truncation.
    EXPECT_NEAR(normal_log_cdf(z), static_cast<double>(ref.log_z),
                1e-12 * std::max(1.0, std::fabs(static_cast<double>(ref.log_z))))
        << z;
    // E[u] = z + r(z), Var[u] = 1 - r (z + r) for N(z, 1) truncated to u > 0.
    EXPECT_NEAR(normal_ratio_plus_z(z), static_cast<double>(ref.mean), 1e-10 * ref.mean) << z;
    EXPECT_NEAR(normal_variance_factor(z), static_cast<double>(ref.var), 1e-9 * ref.var) << z;
    EXPECT_NEAR(normal_pdf_cdf_ratio(z), static_cast<double>(ref.mean - z),
                1e-12 * std::max(1.0, std::fabs(z)))
        << z;
  }
  EXPECT_TRUE(std::isfinite(normal_log_cdf(-1e150)));
  EXPECT_GT(normal_variance_factor(-1e6), 0.0);
}

TEST(ProbitLikelihood, TiltedMomentsMatchQuadrature) {
  // Relative tolerances 1e-9: the quadrature is good to ~1e-11; the closed forms lose at most
  // a few digits through the ratios of quench/normal.h (checked above).
  for (double kappa : {0.0, 1e-12, 0.05, 0.3})
    for (double z : {-1e3, -45.0, -31.0, -7.0, -1.0, 0.5, 4.0, 35.0}) {
      const SimpsonMoments ref = quadrature(z, kappa, 5e-3L);
      for (double y : {1.0, -1.0}) {
        const double v = 2.5;
        const double m = y * z * std::sqrt(v);  // so that y m / sqrt(v) = z
        const ProbitLikelihood l(0.0, kappa);
        const TiltedMoments t = l.tilted_moments({y}, m, v);
        EXPECT_NEAR(t.log_z, static_cast<double>(ref.log_z),
                    1e-10 * std::max(1.0, std::fabs(static_cast<double>(ref.log_z))))
            << kappa << " " << z;
        const double mean = y * std::sqrt(v) * static_cast<double>(ref.mean);
        EXPECT_NEAR(t.mean, mean, 1e-9 * std::max(std::fabs(mean), std::sqrt(v)))
            << kappa << " " << z;
        const double var = v * static_cast<double>(ref.var);
        EXPECT_NEAR(t.variance, var, 1e-9 * var) << kappa << " " << z;
        EXPECT_TRUE(std::isfinite(t.log_z) && t.variance > 0);
      }
    }
}

TEST(ProbitLikelihood, InputNoiseEqualsWiderCavity) {
  // Phi(y f / sigma) integrated against N(f; m, v) is a step on f + noise: Z = Phi(y m / s),
  // s^2 = v + sigma^2; check the moments against the Gauss-Hermite default of the base class.
  const ProbitLikelihood l(0.7, 0.0);
  struct Quad final : Likelihood {
    const Likelihood& l;
    explicit Quad(const Likelihood& x) : l(x) {}
    double log_likelihood(const Observation& y, double f) const override {
      return l.log_likelihood(y, f);
    }
    double d_log_likelihood(const Observation& y, double f) const override {
      return l.d_log_likelihood(y, f);
    }
    double d2_log_likelihood(const Observation& y, double f) const override {
      return l.d2_log_likelihood(y, f);
    }
  } q(l);
  for (double m : {-1.0, 0.0, 0.8})
    for (double v : {0.2, 0.5}) {
      // v < sigma^2: the integrand is smooth on the Hermite scale; 1e-7 is the rule's accuracy.
      const TiltedMoments a = l.tilted_moments({1.0}, m, v), b = q.tilted_moments({1.0}, m, v);
      EXPECT_NEAR(a.log_z, b.log_z, 1e-7);
      EXPECT_NEAR(a.mean, b.mean, 1e-7);
      EXPECT_NEAR(a.variance, b.variance, 1e-7);
    }
  // Derivatives by finite differences.
  const double h = 1e-5, f = -0.4;
  EXPECT_NEAR(l.d_log_likelihood({-1}, f),
              (l.log_likelihood({-1}, f + h) - l.log_likelihood({-1}, f - h)) / (2 * h), 1e-7);
  EXPECT_NEAR(l.d2_log_likelihood({-1}, f),
              (l.d_log_likelihood({-1}, f + h) - l.d_log_likelihood({-1}, f - h)) / (2 * h), 1e-6);
}

// Central differences of log Z in sigma^2 (step 1e-5 relative) and kappa (step min(1e-3 kappa,
// 1e-5): d^3 log Z / dkappa^3 reaches 1/kappa^3): truncation <~2e-7 relative, rounding
// ~1e-16 |log Z| / step, both below the 1e-6 relative tolerance (plus 1e-9 absolute where the
// derivative vanishes: z = 0 for the noise, z -> inf).
TEST(ProbitLikelihood, HyperparameterDerivativesMatchFiniteDifferences) {
  for (double noise : {0.05, 0.7, 3.0})
    for (double kappa : {1e-6, 0.02, 0.3})
      for (double z : {-1e3, -40.0, -7.0, -1.0, 0.0, 0.5, 4.0, 40.0})
        for (double y : {1.0, -1.0}) {
          const double v = 1.3;
          const double m = y * z * std::sqrt(v + noise);  // y m / s = z
          const ProbitLikelihood l(noise, kappa);
          const Eigen::VectorXd g = l.d_log_tilted_normalizer({y}, m, v);
          ASSERT_EQ(g.size(), 2);
          auto log_z = [&](double n, double k) {
            return ProbitLikelihood(n, k).tilted_moments({y}, m, v).log_z;
          };
          const double hn = 1e-5 * noise, hk = std::min(1e-3 * kappa, 1e-5);
          const double fd_noise = (log_z(noise + hn, kappa) - log_z(noise - hn, kappa)) / (2 * hn);
          const double fd_kappa = (log_z(noise, kappa + hk) - log_z(noise, kappa - hk)) / (2 * hk);
          EXPECT_NEAR(g(0), fd_noise, 1e-6 * std::fabs(fd_noise) + 1e-9)
              << noise << " " << kappa << " " << z;
          EXPECT_NEAR(g(1), fd_kappa, 1e-6 * std::fabs(fd_kappa) + 1e-9)
              << noise << " " << kappa << " " << z;
          EXPECT_TRUE(g.allFinite());
        }
}

TEST(ProbitLikelihood, BlocksExistOnlyForPositiveStartValues) {
  EXPECT_TRUE(ProbitLikelihood(0.0, 0.0).hyperparameters().empty());
  ProbitLikelihood l(0.0, 0.1);
  const auto blocks = l.hyperparameters();
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].name, "kappa");
  EXPECT_EQ(blocks[0].lower, 1e-8);
  EXPECT_EQ(blocks[0].upper, 0.49);
  EXPECT_THROW(l.set_hyperparameter("noise", Eigen::VectorXd::Constant(1, 0.5)), ConfigError);
  EXPECT_THROW(l.set_hyperparameter("kappa", Eigen::VectorXd::Constant(1, 0.5)), ConfigError);
  l.set_hyperparameter("kappa", Eigen::VectorXd::Constant(1, 0.2));
  EXPECT_EQ(l.kappa(), 0.2);
  ProbitLikelihood n(0.5, 0.0);
  ASSERT_EQ(n.hyperparameters().size(), 1u);
  EXPECT_EQ(n.hyperparameters()[0].name, "noise");
  n.set_hyperparameter("noise", Eigen::VectorXd::Constant(1, 2.0));
  EXPECT_EQ(n.noise(), 2.0);
  EXPECT_EQ(n.d_log_tilted_normalizer({1.0}, 0.3, 1.0).size(), 1);
}

}  // namespace
}  // namespace quench::likelihoods::probit_likelihood_test
