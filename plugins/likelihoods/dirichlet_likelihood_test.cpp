// The Dirichlet transform against eq 11 of 002 evaluated by hand, and against its meaning:
// the log-normal with the eq 11 parameters matches the mean and variance of Gamma(alpha, 1).
#include <cmath>

#include <gtest/gtest.h>

#include "dirichlet_likelihood.h"
#include "quench/errors.h"

namespace quench::likelihoods::dirichlet_likelihood_test {
namespace {

TEST(DirichletLikelihood, TargetsMatchEq11) {
  const DirichletLikelihood l(Params(DirichletLikelihood::schema(), {{"alpha_epsilon", 0.01}}));
  const Eigen::VectorXd labels = (Eigen::VectorXd(3) << 2, 0, 1).finished();
  const auto t = l.regression_targets(labels, 3);
  ASSERT_TRUE(t.has_value());
  // By hand: alpha = 1.01: sigma^2 = log(1/1.01 + 1) = log(1.990099...) = 0.6881844,
  // y^ = log(1.01) - sigma^2/2 = 0.00995033 - 0.3440922 = -0.3341419.
  // alpha = 0.01: sigma^2 = log(101) = 4.6151205, y^ = log(0.01) - 2.3075602 = -6.9127304.
  for (Eigen::Index i = 0; i < 3; ++i)
    for (Eigen::Index c = 0; c < 3; ++c) {
      const bool on = c == static_cast<Eigen::Index>(labels(i));
      EXPECT_NEAR(t->variance(i, c), on ? 0.68818439 : 4.61512052, 1e-7);
      EXPECT_NEAR(t->mean(i, c), on ? -0.33414186 : -6.91273044, 1e-7);
    }
}

TEST(DirichletLikelihood, LogNormalMatchesGammaMoments) {
  // exp(N(y^, s2)) has mean exp(y^ + s2/2) = alpha and variance (e^s2 - 1) alpha^2 = alpha,
  // the mean and variance of Gamma(alpha, 1) (the moment matching behind eq 11).
  for (double alpha : {0.01, 0.5, 1.0, 3.0}) {
    const auto t = dirichlet_target(alpha);
    EXPECT_NEAR(std::exp(t.mean + 0.5 * t.variance), alpha, 1e-12 * alpha);
    EXPECT_NEAR((std::exp(t.variance) - 1) * alpha * alpha, alpha, 1e-12 * alpha);
  }
}

TEST(DirichletLikelihood, ScalarViewAndBadLabels) {
  const DirichletLikelihood l(Params(DirichletLikelihood::schema(), {{"alpha_epsilon", 0.1}}));
  const auto on = dirichlet_target(1.1);
  const double f = 0.3;
  EXPECT_NEAR(
      l.log_likelihood({1}, f),
      -0.5 * std::log(2 * M_PI * on.variance) - 0.5 * (on.mean - f) * (on.mean - f) / on.variance,
      1e-12);
  EXPECT_NEAR(l.d2_log_likelihood({-1}, f), -1.0 / dirichlet_target(0.1).variance, 1e-12);
  EXPECT_THROW(l.regression_targets((Eigen::VectorXd(2) << 0, 3).finished(), 3), DataError);
  // -1/+1 binary labels: -1 is class 0.
  const auto pm = l.regression_targets((Eigen::VectorXd(2) << -1, 1).finished(), 2);
  EXPECT_EQ(pm->mean(0, 0), dirichlet_target(1.1).mean);
  EXPECT_EQ(pm->mean(1, 1), dirichlet_target(1.1).mean);
  EXPECT_THROW(l.regression_targets((Eigen::VectorXd(1) << -1).finished(), 3), DataError);
  EXPECT_THROW(l.regression_targets((Eigen::VectorXd(1) << 0.5).finished(), 3), DataError);
}

}  // namespace
}  // namespace quench::likelihoods::dirichlet_likelihood_test
