// quench::solve_with_smaller_steps on damped iterations of a scalar map with a known fixed
// point: x <- (1 - beta) x + beta F(x), F(x) = 1 - a x (fixed point 1 / (1 + a)), whose step
// multiplies the error by 1 - beta (1 + a), so that it converges exactly for beta < 2 / (1 + a).
#include <cmath>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "quench/smaller_steps.h"

namespace quench::smaller_steps_test {
namespace {

struct Options {
  double damping = 1.0;
  int max_iterations = 200;
};

struct Fit {
  double x = 0.0;
  Status status;
};

// Damped iteration from x = 0 (or from the warm start) to a change below 1e-12, diverged when
// the change exceeds 1e6, given up after o.max_iterations steps; records each attempt.
struct DampedMap {
  double a;
  std::vector<double> dampings;
  std::vector<bool> warm;
  std::vector<int> budgets;
  Fit operator()(const Options& o, bool first) {
    dampings.push_back(o.damping);
    warm.push_back(first);
    budgets.push_back(o.max_iterations);
    Fit fit;
    fit.x = first ? 0.3 : 0.0;
    for (int it = 1; it <= o.max_iterations; ++it) {
      const double next = (1.0 - o.damping) * fit.x + o.damping * (1.0 - a * fit.x);
      const double change = std::abs(next - fit.x);
      fit.x = next;
      if (change < 1e-12) {
        fit.status.iterations = it;
        return fit;
      }
      if (change > 1e6) {
        fit.status = {RunStatus::failed, "diverged", it};
        return fit;
      }
    }
    fit.status = {RunStatus::not_converged, "no convergence", o.max_iterations};
    return fit;
  }
};

TEST(SmallerSteps, AConvergingFirstAttemptIsTheResult) {
  DampedMap map{0.5, {}, {}, {}};  // converges for beta < 4/3
  const Fit fit = solve_with_smaller_steps(Options{}, std::ref(map));
  EXPECT_EQ(fit.status.code, RunStatus::ok);
  EXPECT_NEAR(fit.x, 1.0 / 1.5, 1e-11);
  EXPECT_EQ(map.dampings, std::vector<double>{1.0});
  EXPECT_EQ(map.warm, std::vector<bool>{true});
}

TEST(SmallerSteps, HalvesTheDampingUntilTheIterationConverges) {
  // a = 4: converges for beta < 0.4, so at 1/4 after failing at 1 and 1/2 (divergence or no
  // convergence within the budget); later attempts start cold; the sweeps of all attempts count.
  DampedMap map{4.0, {}, {}, {}};
  const Fit fit = solve_with_smaller_steps(Options{}, std::ref(map));
  ASSERT_EQ(fit.status.code, RunStatus::ok) << fit.status.message;
  EXPECT_NEAR(fit.x, 0.2, 1e-11);
  EXPECT_EQ(map.dampings, (std::vector<double>{1.0, 0.5, 0.25}));
  EXPECT_EQ(map.warm, (std::vector<bool>{true, false, false}));
  // Each attempt gets what the earlier ones left of the 200 sweeps.
  ASSERT_EQ(map.budgets.size(), 3u);
  EXPECT_EQ(map.budgets[0], 200);
  EXPECT_LT(map.budgets[2], map.budgets[1]);
  EXPECT_LT(map.budgets[1], 200);
  // At 1/4 the error e_k = -e_{k-1} / 4 from e_0 = -0.2: the change of step k is
  // 1.25 |e_{k-1}| = 4^-k, below 1e-12 from k = 20.
  const int last = static_cast<int>(std::ceil(12.0 * std::log(10.0) / std::log(4.0)));
  EXPECT_EQ(fit.status.iterations, 200 - map.budgets[2] + last);
}

TEST(SmallerSteps, StopsAtTheSmallestDamping) {
  // a = 20: converges only for beta < 2/21 < 1/8: every attempt fails, the last at 1/8.
  DampedMap map{20.0, {}, {}, {}};
  const Fit fit = solve_with_smaller_steps(Options{}, std::ref(map));
  EXPECT_NE(fit.status.code, RunStatus::ok);
  EXPECT_EQ(map.dampings, (std::vector<double>{1.0, 0.5, 0.25, kSmallestDamping}));
}

TEST(SmallerSteps, StopsWhenTheSweepsAreSpent) {
  // a = 0.99 at damping 1: error factor 0.99, not within 50 sweeps; none left for another try.
  DampedMap map{0.99, {}, {}, {}};
  Options o;
  o.max_iterations = 50;
  const Fit fit = solve_with_smaller_steps(o, std::ref(map));
  EXPECT_EQ(fit.status.code, RunStatus::not_converged);
  EXPECT_EQ(fit.status.iterations, 50);
  EXPECT_EQ(map.dampings.size(), 1u);
}

}  // namespace
}  // namespace quench::smaller_steps_test
