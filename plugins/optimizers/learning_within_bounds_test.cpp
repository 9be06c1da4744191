// The hyperparameter learner with L-BFGS within the bounds against the logistic map of
// Optimizer::minimize_within's default (Ceres on the mapped objective), on an objective whose
// optimum is known: interior entries agree, the entry whose optimum is on a bound reaches it
// exactly, flagged, in fewer evaluations.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "lbfgs_optimizer.h"
#include "quench/hyperparameter_learning.h"
#include "toy_models.h"

namespace quench::optimizers::learning_within_bounds_test {
namespace {

// value = -sum_j (log l_j - log t_j)^2 - (log v0 - log 7)^2 - 10 v2: interior optima of the
// length scales (t = 3, 0.2) and amplitude, the kernel noise v2 best at its lower bound 1e-10,
// where d value / d log v2 = -10 v2 is flat as the GP evidence is in a noise that wants to
// be zero.
class InteriorAndOnABound final : public HyperparameterObjective {
 public:
  std::string quantity() const override { return "test"; }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood&) override {
    const auto h = kernel.hyperparameters();
    const Eigen::Vector2d l = h[0].value, t(3.0, 0.2);
    const double v0 = h[1].value(0), v2 = h[2].value(0);
    ObjectiveValue v;
    const Eigen::Array2d r = l.array().log() - t.array().log();
    v.value = -r.square().sum() - std::pow(std::log(v0 / 7.0), 2) - 10 * v2;
    v.gradient.resize(4);
    v.gradient << (-2.0 * r / l.array()).matrix(), -2.0 * std::log(v0 / 7.0) / v0, -10.0;
    return v;
  }
};

// L-BFGS through the base class's minimize_within: what the learner did before the optimizer
// handled bounds.
class LogisticMappedLbfgs final : public Optimizer {
 public:
  OptimizerReport minimize(const SmoothObjective& f, Eigen::VectorXd& x) const override {
    return lbfgs_.minimize(f, x);
  }

 private:
  LbfgsOptimizer lbfgs_{Params(LbfgsOptimizer::schema(), {})};
};

LearningReport learn(const Optimizer& optimizer) {
  testing::ArdSquaredExponential kernel(Eigen::Vector2d(1.0, 1.0), 1.0, 0.01);
  testing::NoiseOnlyGaussian likelihood(0.5);
  InteriorAndOnABound objective;
  LearningOptions o;
  o.parameters = {"kernel.length_scales", "kernel.amplitude", "kernel.noise"};
  return learn_hyperparameters(kernel, likelihood, objective, optimizer, o);
}

TEST(LearningWithinBounds, ReachesTheBoundAndLeavesInteriorOptimaAsTheyWere) {
  const LearningReport projected = learn(LbfgsOptimizer(Params(LbfgsOptimizer::schema(), {})));
  const LearningReport logistic = learn(LogisticMappedLbfgs());
  ASSERT_EQ(projected.status.code, RunStatus::ok) << projected.status.message;
  ASSERT_EQ(projected.learned.size(), 3u);
  // Interior: the known optimum, as the logistic map finds it (both to the tolerances of
  // L-BFGS on a quadratic in log coordinates).
  for (int k = 0; k < 2; ++k) {
    EXPECT_FALSE(projected.learned[k].at_bound) << k;
    EXPECT_LT((projected.learned[k].value - logistic.learned[k].value).norm(),
              1e-6 * logistic.learned[k].value.norm())
        << k;
  }
  EXPECT_NEAR(projected.learned[0].value(0), 3.0, 3e-6);
  EXPECT_NEAR(projected.learned[0].value(1), 0.2, 2e-7);
  EXPECT_NEAR(projected.learned[1].value(0), 7.0, 7e-6);
  // On the bound: exactly, flagged by both; its gradient points out of the box (the value
  // would still rise below 1e-10) and is left out of the gradient norm.
  EXPECT_EQ(projected.learned[2].value(0), 1e-10);
  EXPECT_TRUE(projected.learned[2].at_bound);
  EXPECT_TRUE(logistic.learned[2].at_bound);
  EXPECT_GT(logistic.learned[2].value(0), 1e-10);
  EXPECT_LT(projected.gradient_norm, 1e-8);
  EXPECT_LT(projected.evaluations, logistic.evaluations);
}

}  // namespace
}  // namespace quench::optimizers::learning_within_bounds_test
