// Exp(1) weights: moments and tail against the exponential law, reproducible streams,
// normalization, and the refusal of an integer occupation distribution.
#include <cmath>

#include <gtest/gtest.h>

#include "exponential_weights.h"
#include "quench/errors.h"

namespace quench::resamplers {
namespace {

TEST(ExponentialWeights, MomentsAndTailOfExp1) {
  ExponentialWeights r(Params(ExponentialWeights::schema(), {}));
  r.prepare(1000);
  double sum = 0, sum2 = 0, above1 = 0;
  const int draws = 100;
  for (int t = 0; t < draws; ++t) {
    RngStream rng(9, t);
    const Eigen::VectorXd w = r.sample(rng);
    sum += w.sum();
    sum2 += w.squaredNorm();
    above1 += (w.array() > 1.0).count();
  }
  const double N = 1000.0 * draws;
  // E w = 1 (sd of the mean 1/sqrt(N)), E w^2 = 2 (sd sqrt(20/N)), P(w > 1) = e^-1.
  EXPECT_NEAR(sum / N, 1.0, 5 / std::sqrt(N));
  EXPECT_NEAR(sum2 / N, 2.0, 5 * std::sqrt(20 / N));
  EXPECT_NEAR(above1 / N, std::exp(-1.0), 5 * std::sqrt(0.25 / N));
}

TEST(ExponentialWeights, StreamsAreReproducibleAndNormalizationSumsToN) {
  ExponentialWeights plain(Params(ExponentialWeights::schema(), {}));
  ExponentialWeights norm(Params(ExponentialWeights::schema(), {{"normalize", true}}));
  plain.prepare(50);
  norm.prepare(50);
  RngStream a(1, 5), b(1, 5), c(1, 5);
  const Eigen::VectorXd wa = plain.sample(a), wb = plain.sample(b), wc = norm.sample(c);
  EXPECT_EQ(wa, wb);
  EXPECT_NEAR(wc.sum(), 50.0, 1e-10);
  EXPECT_LT((wc - wa * 50.0 / wa.sum()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_THROW(plain.occupation_pmf(1), ConfigError);
}

}  // namespace
}  // namespace quench::resamplers
