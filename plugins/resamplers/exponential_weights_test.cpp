// Exp(1) weights: moments and tail against the exponential law, reproducible streams,
// normalization, and the refusal of an integer occupation distribution.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "exponential_weights.h"
#include "quench/errors.h"

namespace quench::resamplers::exponential_weights_test {
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

// Both samplers against the Exp(1) law: the Kolmogorov-Smirnov distance of 200 000 weights
// (bound 1.95 / sqrt(N): exceeded with probability 0.001) and the tail beyond the ziggurat's
// base edge R = 7.697 (P = e^-R; 5 binomial s.e.), which the ziggurat samples separately.
TEST(ExponentialWeights, BothMethodsFollowTheExponentialLaw) {
  for (const char* method : {"inversion", "ziggurat"}) {
    ExponentialWeights r(Params(ExponentialWeights::schema(), {{"method", std::string(method)}}));
    r.prepare(2000);
    std::vector<double> all;
    for (int t = 0; t < 100; ++t) {
      RngStream rng(11, t);
      const Eigen::VectorXd w = r.sample(rng);
      all.insert(all.end(), w.data(), w.data() + w.size());
    }
    std::sort(all.begin(), all.end());
    const double N = static_cast<double>(all.size());
    double ks = 0, tail = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const double F = 1 - std::exp(-all[i]);
      ks = std::max({ks, std::abs(F - i / N), std::abs(F - (i + 1) / N)});
      tail += all[i] > 7.697117470131487;
    }
    EXPECT_LT(ks, 1.95 / std::sqrt(N)) << method;
    const double pr = std::exp(-7.697117470131487);
    EXPECT_NEAR(tail / N, pr, 5 * std::sqrt(pr / N)) << method;
  }
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
}  // namespace quench::resamplers::exponential_weights_test
