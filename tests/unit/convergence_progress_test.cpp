// ConvergenceProgress against its definition: equal steps in log(change) are equal fractions,
// the fraction never decreases nor reaches the stage's end before finish(), stages map into
// their own part of the bar.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "quench/convergence_progress.h"

namespace quench::convergence_progress_test {
namespace {

TEST(ConvergenceProgress, LinearConvergenceTakesEqualSteps) {
  std::vector<double> seen;
  ConvergenceProgress p([&](double f) { seen.push_back(f); }, 1e-6);
  for (int k = 0; k <= 6; ++k) p.report(std::pow(10.0, -k));  // 1, 0.1, ..., 1e-6
  // The first report is the reference (fraction 0, not shown); then k/6 of the way, held
  // below 0.99 until finish().
  ASSERT_EQ(seen.size(), 6u);
  for (int k = 1; k <= 5; ++k) EXPECT_NEAR(seen[k - 1], k / 6.0, 1e-12) << k;
  EXPECT_DOUBLE_EQ(seen[5], 0.99);
  p.finish();
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
}

TEST(ConvergenceProgress, NeverGoesBackAndIgnoresNonFiniteChanges) {
  std::vector<double> seen;
  ConvergenceProgress p([&](double f) { seen.push_back(f); }, 1e-4);
  p.report(1.0);
  p.report(1e-2);  // half way
  p.report(10.0);  // grows: the bar holds
  p.report(std::nan(""));
  p.report(-1.0);
  p.report(1e-3);  // three quarters
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[0], 0.5, 1e-12);
  EXPECT_NEAR(seen[1], 0.75, 1e-12);
  EXPECT_NEAR(p.fraction(), 0.75, 1e-12);
}

TEST(ConvergenceProgress, StagesShareTheBar) {
  std::vector<double> seen;
  auto bar = [&](double f) { seen.push_back(f); };
  ConvergenceProgress first(bar, 1e-2, 0.0, 0.6), second(bar, 1e-2, 0.6, 1.0);
  first.report(1.0);
  first.report(0.1);
  first.finish();
  second.report(1.0);
  second.report(0.1);
  const std::vector<double> expected{0.3, 0.6, 0.8};
  ASSERT_EQ(seen.size(), expected.size());
  for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_NEAR(seen[k], expected[k], 1e-12) << k;
  // Without a callback nothing is called and the fraction is still kept.
  ConvergenceProgress silent({}, 1e-2);
  silent.report(1.0);
  silent.report(0.1);
  EXPECT_NEAR(silent.fraction(), 0.5, 1e-12);
}

}  // namespace
}  // namespace quench::convergence_progress_test
