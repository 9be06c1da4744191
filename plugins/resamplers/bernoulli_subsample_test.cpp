// The Bernoulli subsample resampler: its pmf and the empirical distribution of its samples.
#include <gtest/gtest.h>

#include "bernoulli_subsample.h"

namespace quench::resamplers::bernoulli_subsample_test {
namespace {

TEST(bernoulli_subsample, PmfAndSamplesAgree) {
  BernoulliSubsample r(Params(BernoulliSubsample::schema(), {{"ratio", 0.3}}));
  r.prepare(200);
  EXPECT_DOUBLE_EQ(r.occupation_pmf(0), 0.7);
  EXPECT_DOUBLE_EQ(r.occupation_pmf(1), 0.3);
  EXPECT_DOUBLE_EQ(r.occupation_pmf(2), 0.0);
  EXPECT_EQ(r.max_occupation(1e-12), 1);
  EXPECT_DOUBLE_EQ(r.expected_size(), 60.0);
  double kept = 0;
  const int draws = 500;
  for (int t = 0; t < draws; ++t) {
    RngStream rng(9, static_cast<std::uint64_t>(t));
    const Eigen::VectorXd w = r.sample(rng);
    ASSERT_EQ(w.size(), 200);
    for (Eigen::Index i = 0; i < w.size(); ++i) ASSERT_TRUE(w(i) == 0.0 || w(i) == 1.0);
    kept += w.sum();
  }
  // 100000 Bernoulli(0.3) draws: sd of the fraction sqrt(0.21 / 1e5) = 1.45e-3; 5 sd band.
  EXPECT_NEAR(kept / (200.0 * draws), 0.3, 5 * 1.45e-3);
}

}  // namespace
}  // namespace quench::resamplers::bernoulli_subsample_test
