// The adaptive tilted rule (quench/tilted_quadrature.h) against Boost's adaptive
// Gauss-Kronrod (61 points) on pieces split at the known modes: a Student-t site (not
// log-concave; for an outlier the tilted density has two modes) and a Poisson site, with
// k-fold powers, cavities near and far from the observation; the mode-centred rule
// (quench/tilted_power_moments.h) on Student-t sites whose tilted density is log-concave.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "quench/errors.h"
#include "quench/tilted_quadrature.h"
#include "tilted_reference.h"

namespace quench::tilted_quadrature_test {
namespace {

using testing::cuts_around;
using testing::tilted_reference;

// log of the Student-t density of y with location f, scale sigma, nu degrees of freedom.
class StudentSite final : public TiltedPowerSite {
 public:
  StudentSite(double y, double nu, double sigma) : y_(y), nu_(nu), s2_(sigma * sigma) {}
  Slope slope(double f) const override {
    const double r = y_ - f, d = nu_ * s2_ + r * r;
    return {(nu_ + 1) * r / d, (nu_ + 1) * (r * r - nu_ * s2_) / (d * d)};
  }
  void values(const double* f, double* out, std::size_t n) const override {
    for (std::size_t i = 0; i < n; ++i) out[i] = value(f[i]);
  }
  double value(double f) const {
    const double r = y_ - f;
    return std::lgamma(0.5 * (nu_ + 1)) - std::lgamma(0.5 * nu_) -
           0.5 * std::log(M_PI * nu_ * s2_) - 0.5 * (nu_ + 1) * std::log1p(r * r / (nu_ * s2_));
  }

 private:
  double y_, nu_, s2_;
};

// log Poisson(y; exp(f)).
class PoissonSite final : public TiltedPowerSite {
 public:
  explicit PoissonSite(double y) : y_(y) {}
  Slope slope(double f) const override { return {y_ - std::exp(f), -std::exp(f)}; }
  void values(const double* f, double* out, std::size_t n) const override {
    for (std::size_t i = 0; i < n; ++i) out[i] = value(f[i]);
  }
  double value(double f) const { return y_ * f - std::exp(f) - std::lgamma(y_ + 1); }

 private:
  double y_;
};

void expect_close(const TiltedMoments& got, const TiltedMoments& want, double v) {
  // log Z to 1e-10 absolute; the mean to 1e-10 of the cavity's sd, the variance to 1e-9 relative.
  EXPECT_NEAR(got.log_z, want.log_z, 1e-10);
  EXPECT_NEAR(got.mean, want.mean, 1e-10 * std::sqrt(v));
  EXPECT_NEAR(got.variance, want.variance, 1e-9 * want.variance);
}

TEST(TiltedRule, StudentTSitesEqualAdaptiveGaussKronrodIncludingTwoModes) {
  int cases = 0;
  for (double sigma : {0.05, 0.3, 1.0})
    for (double v : {0.01, 1.0, 25.0})
      for (double gap : {0.0, 2.0, 8.0, 30.0})
        for (int k : {1, 3}) {
          const double y = 0.7, m = y - gap, nu = 4.0;
          const StudentSite site(y, nu, sigma);
          SCOPED_TRACE(::testing::Message()
                       << "sigma " << sigma << " v " << v << " gap " << gap << " k " << k);
          const TiltedMoments got = tilted_moments_adaptive(site, m, v, k);
          const auto log_p = [&](double f) { return site.value(f); };
          expect_close(
              got, tilted_reference(log_p, m, v, k, cuts_around(m, y, sigma, m, std::sqrt(v))), v);
          ++cases;
        }
  EXPECT_EQ(cases, 72);
}

TEST(TiltedRule, PoissonSitesEqualAdaptiveGaussKronrod) {
  for (double y : {0.0, 1.0, 7.0, 80.0})
    for (double m : {-3.0, 0.0, 2.0, 6.0})
      for (double v : {0.01, 0.5, 4.0})
        for (int k : {1, 5}) {
          const PoissonSite site(y);
          SCOPED_TRACE(::testing::Message() << "y " << y << " m " << m << " v " << v << " k " << k);
          const double mode = std::log(std::max(y, 0.5));
          const TiltedMoments got = tilted_moments_adaptive(site, m, v, k);
          const auto log_p = [&](double f) { return site.value(f); };
          expect_close(
              got, tilted_reference(log_p, m, v, k, cuts_around(m, mode, 0.3, m, std::sqrt(v))), v);
        }
}

// The rule's nodes and weights give the moments, sum to 1 and integrate other functions against
// the tilted density: E_T[p(y|f)^-k] = 1 / Z_k (the cavity's mass is 1).
TEST(TiltedRule, NodesAndWeightsIntegrateTheTiltedDensity) {
  const StudentSite site(0.7, 4.0, 0.3);
  const double m = -5.0, v = 4.0;
  const TiltedRule rule = tilted_rule(site, m, v, 1);
  const TiltedMoments moments = rule.moments();
  const TiltedMoments direct = tilted_moments_adaptive(site, m, v, 1);
  EXPECT_NEAR(moments.mean, direct.mean, 1e-12);
  EXPECT_NEAR(moments.variance, direct.variance, 1e-11 * direct.variance);
  double weight_sum = 0, inverse = 0;
  for (std::size_t j = 0; j < rule.nodes.size(); ++j) {
    weight_sum += rule.weights[j];
    inverse += rule.weights[j] * std::exp(-site.value(rule.nodes[j]));
  }
  EXPECT_NEAR(weight_sum, 1.0, 1e-14);
  EXPECT_NEAR(std::log(inverse), -rule.log_z, 1e-9);
}

// The mode-centred rule for log-concave sites (quench/tilted_power_moments.h) finds the mode
// down a steep wall: from the cavity mean 0, Newton on a Poisson site with y = 1000 gains one
// unit of f per step along e^f; bisection takes over (it used to stop after 200 steps, short of
// the mode, with log Z = -inf).
TEST(TiltedPowerMoments, FindsTheModeDownASteepWall) {
  for (const double y : {200.0, 1000.0, 5000.0}) {
    const PoissonSite site(y);
    const TiltedMoments fast = tilted_power_moments(site, 0.0, 1.0, 1);
    const TiltedMoments adaptive = tilted_moments_adaptive(site, 0.0, 1.0, 1);
    // Both rules' accuracy (5e-9 for the fast rule with its automatic transition search).
    EXPECT_NEAR(fast.log_z, adaptive.log_z, 1e-8) << y;
    EXPECT_NEAR(fast.mean, adaptive.mean, 1e-8) << y;
    EXPECT_NEAR(fast.variance, adaptive.variance, 1e-8 * adaptive.variance) << y;
  }
}

// A Student-t site is not log-concave, but l'' <= b = (nu + 1) / (8 nu sigma^2): where
// k v b < 1 its tilted density is, and the mode-centred rule given the bound integrates it.
// Against the independent reference above at k v b from 0.05 to 0.95 (the cavity at and 30
// widths away from the observation): within 1e-11 measured, 1e-10 asserted (the adaptive
// rule's own tolerance above). The rule's nodes give the same moments.
TEST(TiltedPowerMoments, StudentTSitesWithinTheCurvatureBound) {
  int cases = 0;
  for (double sigma : {0.1, 1.0})
    for (double kvb : {0.05, 0.5, 0.95})
      for (double gap : {0.0, 2.0, 30.0})
        for (int k : {1, 3}) {
          const double y = 0.7, nu = 4.0, b = (nu + 1) / (8 * nu * sigma * sigma);
          const double v = kvb / (k * b), m = y - gap * std::sqrt(v);
          const StudentSite site(y, nu, sigma);
          SCOPED_TRACE(::testing::Message()
                       << "sigma " << sigma << " kvb " << kvb << " gap " << gap << " k " << k);
          const TiltedMoments got = tilted_power_moments(site, m, v, k, b);
          const auto log_p = [&](double f) { return site.value(f); };
          const TiltedMoments want =
              tilted_reference(log_p, m, v, k, cuts_around(m, y, sigma, m, std::sqrt(v)));
          EXPECT_NEAR(got.log_z, want.log_z, 1e-10);
          EXPECT_NEAR(got.mean, want.mean, 1e-10 * std::sqrt(v));
          EXPECT_NEAR(got.variance, want.variance, 1e-10 * want.variance);
          const TiltedMoments from_rule = tilted_power_rule(site, m, v, k, b).moments();
          EXPECT_NEAR(from_rule.log_z, got.log_z, 1e-14);
          EXPECT_NEAR(from_rule.mean, got.mean, 1e-12 * std::sqrt(v));
          EXPECT_NEAR(from_rule.variance, got.variance, 1e-11 * got.variance);
          ++cases;
        }
  EXPECT_EQ(cases, 36);
  // At k v b >= 1 the tilted density may have two modes: refused.
  const StudentSite site(0.7, 4.0, 1.0);
  EXPECT_THROW(tilted_power_moments(site, 0.0, 1.0, 1, 5.0 / 32.0 * 8.0), std::invalid_argument);
}

TEST(TiltedRule, RefusesBadArguments) {
  const PoissonSite site(1.0);
  EXPECT_THROW(tilted_moments_adaptive(site, 0.0, 0.0, 1), NumericalError);
  EXPECT_THROW(tilted_moments_adaptive(site, 0.0, 1.0, 0), std::invalid_argument);
  EXPECT_THROW(tilted_rule(site, std::nan(""), 1.0, 1), NumericalError);
}

}  // namespace
}  // namespace quench::tilted_quadrature_test
