// The elliptical slice sampler of tests/support/elliptical_slice.h against a posterior known in
// closed form: a Gaussian likelihood N(y_i; f_i, s2) under a squared-exponential prior, whose
// posterior is N(K (K + s2 I)^-1 y, K - K (K + s2 I)^-1 K). The sampled means and variances
// must agree within 4 of the sampler's own standard errors, and those standard errors must be
// plausible (mean square z-score near 1). Also: the prior alone, reproducibility, the
// quench::Likelihood overload and bad arguments.
//
// Run time: about 1.5e5 slice updates in all (about 4 microseconds each at N <= 20): about half
// a second on one core in a Release build. The kept counts give standard errors of 1-3.5% of the
// posterior standard deviations, small enough for the comparison to be sharp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Cholesky>

#include "elliptical_slice.h"
#include "toy_models.h"

#include "quench/errors.h"
#include "quench/rng.h"

namespace quench::elliptical_slice_test {
namespace {

using testing::elliptical_slice;
using testing::EllipticalSliceOptions;
using testing::EllipticalSliceResult;

// amplitude exp(-(x_i - x_j)^2 / (2 length^2)) + jitter [i == j], written out.
Eigen::MatrixXd squared_exponential(const Eigen::VectorXd& x, double length, double amplitude) {
  const Eigen::Index n = x.size();
  Eigen::MatrixXd K(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) {
      const double r = (x(i) - x(j)) / length;
      K(i, j) = amplitude * std::exp(-0.5 * r * r) + (i == j ? 1e-6 : 0.0);
    }
  return K;
}

// A regression problem drawn from its own model: inputs on [0, 6], y = f + noise.
struct GaussianProblem {
  Eigen::MatrixXd K;
  Eigen::VectorXd y;
  double noise = 0.0;  // s2
  Eigen::VectorXd exact_mean, exact_variance;
};

GaussianProblem make_problem(Eigen::Index n, double length, double amplitude, double noise,
                             std::uint64_t seed) {
  GaussianProblem p;
  RngStream rng(seed, 0);
  Eigen::VectorXd x(n);
  for (Eigen::Index i = 0; i < n; ++i) x(i) = 6.0 * (i + 0.5 * rng.uniform()) / n;
  p.K = squared_exponential(x, length, amplitude);
  p.noise = noise;
  Eigen::VectorXd z(n), e(n);
  for (Eigen::Index i = 0; i < n; ++i) z(i) = rng.normal();
  for (Eigen::Index i = 0; i < n; ++i) e(i) = std::sqrt(noise) * rng.normal();
  p.y = Eigen::MatrixXd(p.K.llt().matrixL()) * z + e;
  // Closed form: mean K A^-1 y, covariance K - K A^-1 K, A = K + s2 I.
  const Eigen::LLT<Eigen::MatrixXd> A(p.K + noise * Eigen::MatrixXd::Identity(n, n));
  p.exact_mean = p.K * A.solve(p.y);
  p.exact_variance = (p.K - p.K * A.solve(p.K)).diagonal();
  return p;
}

// sum_i log N(y_i; f_i, s2).
double gaussian_log_likelihood(const GaussianProblem& p, const Eigen::VectorXd& f) {
  return -0.5 * ((p.y - f).squaredNorm() / p.noise +
                 static_cast<double>(f.size()) * std::log(2.0 * M_PI * p.noise));
}

// (estimate - exact) / standard error, the standard error floored at a tiny absolute value.
Eigen::VectorXd z_scores(const Eigen::VectorXd& estimate, const Eigen::VectorXd& se,
                         const Eigen::VectorXd& exact) {
  return (estimate - exact).cwiseQuotient(se.cwiseMax(1e-9));
}

TEST(EllipticalSlice, MatchesGaussianPosteriorWithinStandardErrors) {
  struct Case {
    Eigen::Index n;
    double length, amplitude, noise;
    EllipticalSliceOptions options;
  };
  // A weak likelihood (posterior close to the prior) and a sharp one (posterior variances a
  // tenth of the prior's: the slower-mixing case), thinned to exercise thin.
  std::vector<Case> cases(2);
  cases[0] = {12, 1.5, 1.0, 0.5, {}};
  cases[0].options = {.seed = 11, .burn_in = 2000, .kept = 50000, .thin = 1, .batches = 50};
  cases[1] = {20, 0.8, 2.0, 0.1, {}};
  cases[1].options = {.seed = 12, .burn_in = 2000, .kept = 25000, .thin = 3, .batches = 50};

  std::vector<double> all_z;
  double max_abs_z = 0.0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const Case& k = cases[c];
    const GaussianProblem p = make_problem(k.n, k.length, k.amplitude, k.noise, 100 + c);
    const EllipticalSliceResult r = elliptical_slice(
        p.K, [&](const Eigen::VectorXd& f) { return gaussian_log_likelihood(p, f); }, k.options);
    ASSERT_EQ(r.mean.size(), k.n);
    EXPECT_EQ(r.kept, k.options.kept);
    EXPECT_EQ(r.batches, 50);
    EXPECT_EQ(r.stats.iterations, k.options.burn_in + k.options.kept * k.options.thin);
    EXPECT_EQ(r.stats.likelihood_evaluations, 1 + r.stats.iterations + r.stats.shrinks);
    // Each site's estimate within 4 standard errors (plus a tiny floor) of the exact value.
    for (Eigen::Index i = 0; i < k.n; ++i) {
      EXPECT_NEAR(r.mean(i), p.exact_mean(i), 4.0 * r.mean_se(i) + 1e-9) << "site " << i;
      EXPECT_NEAR(r.variance(i), p.exact_variance(i), 4.0 * r.variance_se(i) + 1e-9)
          << "site " << i;
    }
    // The standard errors are small against the posterior spread (the run is long enough for
    // the comparison to mean something) and not absurdly small (not zero by a bug).
    const Eigen::VectorXd sd = p.exact_variance.cwiseSqrt();
    EXPECT_LT((r.mean_se.array() / sd.array()).maxCoeff(), 0.05);
    EXPECT_GT((r.mean_se.array() / sd.array()).minCoeff(), 1e-4);
    EXPECT_LT((r.variance_se.array() / p.exact_variance.array()).maxCoeff(), 0.1);
    for (const Eigen::VectorXd& z : {z_scores(r.mean, r.mean_se, p.exact_mean),
                                     z_scores(r.variance, r.variance_se, p.exact_variance)})
      for (Eigen::Index i = 0; i < z.size(); ++i) {
        all_z.push_back(z(i));
        max_abs_z = std::max(max_abs_z, std::abs(z(i)));
      }
    std::printf(
        "  case %zu: N = %ld, mean shrinks %.2f, first angle accepted %.2f, "
        "ESS min %.0f of %ld\n",
        c, static_cast<long>(k.n), r.stats.mean_shrinks(), r.stats.first_proposal_rate(),
        r.effective_sample_size().minCoeff(), static_cast<long>(r.kept));
  }
  // Standard errors that are plausible: over every site's mean and variance, the z-scores have
  // a mean square near 1 (between 0.6 and 1.9, pooled mean square 1.09 and max |z| 3.8, over 40
  // independent streams of these two runs; errors off by a factor of 2 give about 0.27 or 4.4).
  double mean_square = 0.0;
  for (double z : all_z) mean_square += z * z / static_cast<double>(all_z.size());
  std::printf("  %zu z-scores: max |z| %.2f, mean z^2 %.2f\n", all_z.size(), max_abs_z,
              mean_square);
  EXPECT_GT(mean_square, 0.3);
  EXPECT_LT(mean_square, 3.0);
}

TEST(EllipticalSlice, PriorAloneAcceptsEveryFirstAngle) {
  // With log p(y | f) = 0 the slice is the whole ellipse: no shrinks, and the draws are the prior.
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(8, 0.0, 4.0);
  const Eigen::MatrixXd K = squared_exponential(x, 1.0, 1.5);
  const EllipticalSliceResult r =
      elliptical_slice(K, [](const Eigen::VectorXd&) { return 0.0; },
                       {.seed = 3, .burn_in = 100, .kept = 20000, .batches = 40});
  EXPECT_EQ(r.stats.shrinks, 0);
  EXPECT_EQ(r.stats.max_shrinks, 0);
  EXPECT_EQ(r.stats.first_proposal_accepted, r.stats.iterations);
  EXPECT_EQ(r.stats.likelihood_evaluations, r.stats.iterations + 1);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(r.mean(i), 0.0, 4.0 * r.mean_se(i) + 1e-9) << "site " << i;
    EXPECT_NEAR(r.variance(i), K(i, i), 4.0 * r.variance_se(i) + 1e-9) << "site " << i;
  }
}

TEST(EllipticalSlice, ReproducibleFromSeedAndStream) {
  const GaussianProblem p = make_problem(10, 1.0, 1.0, 0.3, 5);
  const auto log_lik = [&](const Eigen::VectorXd& f) { return gaussian_log_likelihood(p, f); };
  const EllipticalSliceOptions a{.seed = 9, .stream = 2, .burn_in = 50, .kept = 500, .batches = 10};
  EllipticalSliceOptions b = a;
  b.stream = 3;
  const EllipticalSliceResult r1 = elliptical_slice(p.K, log_lik, a);
  const EllipticalSliceResult r2 = elliptical_slice(p.K, log_lik, a);
  const EllipticalSliceResult r3 = elliptical_slice(p.K, log_lik, b);
  EXPECT_TRUE(r1.last == r2.last);  // bit for bit
  EXPECT_TRUE(r1.mean == r2.mean);
  EXPECT_TRUE(r1.variance_se == r2.variance_se);
  EXPECT_EQ(r1.stats.shrinks, r2.stats.shrinks);
  EXPECT_FALSE(r1.last == r3.last);
}

TEST(EllipticalSlice, LikelihoodOverloadSumsTheSites) {
  const GaussianProblem p = make_problem(10, 1.0, 1.0, 0.3, 6);
  const testing::NoiseOnlyGaussian likelihood(p.noise);
  Observations obs;
  obs.y = p.y;
  const EllipticalSliceOptions o{.seed = 4, .burn_in = 100, .kept = 2000, .batches = 20};
  const EllipticalSliceResult by_sites = elliptical_slice(p.K, likelihood, obs, o);
  const EllipticalSliceResult inline_sum = elliptical_slice(
      p.K, [&](const Eigen::VectorXd& f) { return gaussian_log_likelihood(p, f); }, o);
  // Same draws; the two sums differ only by rounding.
  EXPECT_EQ(by_sites.stats.shrinks, inline_sum.stats.shrinks);
  EXPECT_LT((by_sites.last - inline_sum.last).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((by_sites.mean - inline_sum.mean).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(EllipticalSlice, RefusesBadArguments) {
  const Eigen::MatrixXd K = squared_exponential(Eigen::VectorXd::LinSpaced(4, 0.0, 2.0), 1, 1);
  const auto zero = [](const Eigen::VectorXd&) { return 0.0; };
  EXPECT_THROW(elliptical_slice(K, zero, {.kept = 1001, .batches = 50}), std::invalid_argument);
  EXPECT_THROW(elliptical_slice(K, zero, {.thin = 0}), std::invalid_argument);
  EXPECT_THROW(elliptical_slice(K, zero, {.initial = Eigen::VectorXd::Zero(3)}),
               std::invalid_argument);
  EXPECT_THROW(elliptical_slice(-K, zero, {}), NumericalError);
  const auto impossible = [](const Eigen::VectorXd&) {
    return -std::numeric_limits<double>::infinity();
  };
  EXPECT_THROW(elliptical_slice(K, impossible, {}), NumericalError);
  Observations obs;
  obs.y = Eigen::VectorXd::Zero(3);
  EXPECT_THROW(elliptical_slice(K, testing::NoiseOnlyGaussian(1.0), obs), std::invalid_argument);
}

}  // namespace
}  // namespace quench::elliptical_slice_test
