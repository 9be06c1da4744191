// Each resampler's sampler against its own occupation distribution: the two sides of one
// scheme must agree, since analytical engines sum over the pmf and Monte-Carlo engines draw.
#include <cmath>

#include <gtest/gtest.h>

#include "bootstrap_resamplers.h"

namespace quench::resamplers::resamplers_test {
namespace {

// Pearson chi-square of observed occupation counts against the pmf, over k = 0..max with the
// tail lumped into the last cell.
double chi_square(const Resampler& r, const std::vector<double>& observed, double total) {
  double chi2 = 0, mass = 0;
  const int K = static_cast<int>(observed.size()) - 1;
  for (int k = 0; k <= K; ++k) {
    const double p = k < K ? r.occupation_pmf(k) : 1.0 - mass;
    mass += p;
    const double e = p * total;
    chi2 += (observed[k] - e) * (observed[k] - e) / e;
  }
  return chi2;
}

template <class R>
void check_sampler_matches_pmf(R& r, int n, int draws, int cells) {
  std::vector<double> observed(cells + 1, 0.0);
  for (int t = 0; t < draws; ++t) {
    RngStream rng(42, t);
    const Eigen::VectorXd s = r.sample(rng);
    ASSERT_EQ(s.size(), n);
    for (int i = 0; i < n; ++i) observed[std::min(static_cast<int>(s(i)), cells)] += 1;
  }
  // With `cells` degrees of freedom the 99.9 % quantile of chi^2 is below cells + 4 sqrt(2
  // cells) + 10 for the cell counts used here; a wrong pmf or sampler exceeds it by far.
  EXPECT_LT(chi_square(r, observed, static_cast<double>(n) * draws),
            cells + 4 * std::sqrt(2.0 * cells) + 10);
}

TEST(PoissonBootstrap, PmfIsPoissonAndSumsToOne) {
  PoissonBootstrap r(Params(PoissonBootstrap::schema(), {{"ratio", 1.5}}));
  r.prepare(100);
  double sum = 0, mean = 0;
  for (int k = 0; k <= r.max_occupation(1e-14); ++k) {
    sum += r.occupation_pmf(k);
    mean += k * r.occupation_pmf(k);
  }
  EXPECT_NEAR(sum, 1.0, 1e-13);
  EXPECT_NEAR(mean, 1.5, 1e-12);
  EXPECT_NEAR(r.occupation_pmf(2), 1.5 * 1.5 / 2 * std::exp(-1.5), 1e-15);
  EXPECT_DOUBLE_EQ(r.expected_size(), 150.0);
}

TEST(PoissonBootstrap, SamplerMatchesPmf) {
  PoissonBootstrap r(Params(PoissonBootstrap::schema(), {{"ratio", 0.7}}));
  r.prepare(50);
  check_sampler_matches_pmf(r, 50, 400, 4);
}

TEST(MultinomialBootstrap, FixedSizeAndBinomialPmf) {
  MultinomialBootstrap r(Params(MultinomialBootstrap::schema(), {{"ratio", 1.0}}));
  r.prepare(30);
  RngStream rng(1, 2);
  EXPECT_DOUBLE_EQ(r.sample(rng).sum(), 30.0);
  double sum = 0;
  for (int k = 0; k <= 30; ++k) sum += r.occupation_pmf(k);
  EXPECT_NEAR(sum, 1.0, 1e-13);
  EXPECT_NEAR(r.occupation_pmf(0), std::pow(29.0 / 30.0, 30), 1e-15);
  check_sampler_matches_pmf(r, 30, 600, 4);
}

TEST(Resamplers, StreamsAreReproducibleAndIndependent) {
  PoissonBootstrap r(Params(PoissonBootstrap::schema(), {{"ratio", 1.0}}));
  r.prepare(200);
  RngStream a(7, 3), b(7, 3), c(7, 4);
  const Eigen::VectorXd sa = r.sample(a), sb = r.sample(b), sc = r.sample(c);
  EXPECT_EQ(sa, sb);
  EXPECT_NE(sa, sc);
}

}  // namespace
}  // namespace quench::resamplers::resamplers_test
