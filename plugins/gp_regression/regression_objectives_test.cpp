// The regression objectives against independent computations: the log marginal likelihood
// against dense textbook algebra, the closed-form leave-one-out against exact retraining
// without each point, both gradients against central finite differences, and the learner's
// optimum against random restarts.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include "toy_models.h"

#include "exact_gp_regression.h"
#include "lbfgs_optimizer.h"
#include "quench/hyperparameter_learning.h"

namespace quench::gp_regression::regression_objectives_test {
namespace {

struct Fixture {
  Dataset data;
  Problem problem;
  std::shared_ptr<testing::ArdSquaredExponential> kernel;
  std::shared_ptr<testing::NoiseOnlyGaussian> likelihood;
  explicit Fixture(int n = 25) {
    std::mt19937 gen(11);
    std::normal_distribution<double> z;
    data.X_train.resize(n, 2);
    data.y_train.resize(n);
    for (int i = 0; i < n; ++i) {
      data.X_train.row(i) << z(gen), 2 * z(gen);
      data.y_train(i) = std::sin(1.5 * data.X_train(i, 0)) + 0.2 * z(gen);
    }
    kernel = std::make_shared<testing::ArdSquaredExponential>(Eigen::Vector2d(0.8, 3.0), 1.3, 0.01);
    likelihood = std::make_shared<testing::NoiseOnlyGaussian>(0.05);
    problem.data = &data;
    problem.kernel = kernel;
    problem.likelihood = likelihood;
  }
  std::unique_ptr<HyperparameterObjective> objective(const std::string& name) const {
    return ExactGpRegression(Params(ExactGpRegression::schema(), {}))
        .hyperparameter_objective(problem, name);
  }
  Eigen::MatrixXd Ky() const {
    Eigen::MatrixXd K = kernel->cross(data.X_train, data.X_train);
    K.diagonal().array() += kernel->diagonal_noise() + *likelihood->gaussian_noise_variance();
    return K;
  }
};

double log_normal(double y, double mean, double variance) {
  return -0.5 * std::log(2 * M_PI * variance) - 0.5 * (y - mean) * (y - mean) / variance;
}

TEST(RegressionObjectives, EvidenceEqualsDenseFormula) {
  Fixture f;
  const Eigen::MatrixXd Ky = f.Ky();
  const double n = static_cast<double>(f.data.y_train.size());
  const double expected = -0.5 * f.data.y_train.dot(Ky.ldlt().solve(f.data.y_train)) -
                          0.5 * std::log(Ky.determinant()) - 0.5 * n * std::log(2 * M_PI);
  const ObjectiveValue v = f.objective("evidence")->evaluate(*f.kernel, *f.likelihood);
  ASSERT_EQ(v.status.code, RunStatus::ok);
  EXPECT_NEAR(v.value, expected, 1e-10 * std::fabs(expected));
}

TEST(RegressionObjectives, LeaveOneOutEqualsExactRetraining) {
  Fixture f;
  const Eigen::MatrixXd Ky = f.Ky();
  const Eigen::Index n = f.data.y_train.size();
  double expected = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    // The GP trained on every point but i predicts y_i with the noise added.
    std::vector<Eigen::Index> rest;
    for (Eigen::Index j = 0; j < n; ++j)
      if (j != i) rest.push_back(j);
    const Eigen::MatrixXd K_rest = Ky(rest, rest);
    const Eigen::VectorXd k_i = Ky(rest, Eigen::seqN(i, 1));
    const Eigen::VectorXd y_rest = f.data.y_train(rest);
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(K_rest);
    const double mean = k_i.dot(ldlt.solve(y_rest));
    const double variance = Ky(i, i) - k_i.dot(ldlt.solve(k_i));
    expected += log_normal(f.data.y_train(i), mean, variance);
  }
  expected /= static_cast<double>(n);
  const ObjectiveValue v = f.objective("loo")->evaluate(*f.kernel, *f.likelihood);
  ASSERT_EQ(v.status.code, RunStatus::ok);
  EXPECT_NEAR(v.value, expected, 1e-10 * std::fabs(expected));
}

// Central differences in each flat entry theta_j with step h = 1e-5 theta_j: truncation error
// O(h^2 f''') ~ 1e-10 relative, rounding ~ 1e-16 |f| / 1e-5 ~ 1e-11; 1e-6 relative leaves margin.
void expect_gradient_matches_differences(const char* name) {
  Fixture f;
  auto objective = f.objective(name);
  const ObjectiveValue v = objective->evaluate(*f.kernel, *f.likelihood);
  ASSERT_EQ(v.status.code, RunStatus::ok);
  const auto kb = f.kernel->hyperparameters();
  const auto lb = f.likelihood->hyperparameters();
  ASSERT_EQ(v.gradient.size(), flat_size(kb) + flat_size(lb));
  Eigen::Index j = 0;
  auto check = [&](auto& component, const Hyperparameter& h) {
    for (Eigen::Index i = 0; i < h.value.size(); ++i, ++j) {
      const double step = 1e-5 * h.value(i);
      Eigen::VectorXd plus = h.value, minus = h.value;
      plus(i) += step;
      minus(i) -= step;
      component.set_hyperparameter(h.name, plus);
      const double fp = objective->evaluate(*f.kernel, *f.likelihood).value;
      component.set_hyperparameter(h.name, minus);
      const double fm = objective->evaluate(*f.kernel, *f.likelihood).value;
      component.set_hyperparameter(h.name, h.value);
      const double fd = (fp - fm) / (2 * step);
      EXPECT_NEAR(v.gradient(j), fd, 1e-6 * std::max(std::fabs(fd), 1e-3))
          << name << " d/d " << h.name << "[" << i << "]";
    }
  };
  for (const Hyperparameter& h : kb) check(*f.kernel, h);
  for (const Hyperparameter& h : lb) check(*f.likelihood, h);
}

TEST(RegressionObjectives, EvidenceGradientMatchesFiniteDifferences) {
  expect_gradient_matches_differences("evidence");
}

TEST(RegressionObjectives, LeaveOneOutGradientMatchesFiniteDifferences) {
  expect_gradient_matches_differences("loo");
}

TEST(RegressionObjectives, UnknownObjectiveIsRefused) {
  Fixture f;
  EXPECT_THROW(f.objective("evidense"), ConfigError);
}

LearningReport learn(Fixture& f, const std::string& name, int restarts, std::uint64_t seed) {
  auto objective = f.objective(name);
  const optimizers::LbfgsOptimizer lbfgs(Params(optimizers::LbfgsOptimizer::schema(), {}));
  LearningOptions options;
  options.parameters = {"kernel.length_scales", "kernel.amplitude", "likelihood.noise"};
  options.restarts = restarts;
  options.seed = seed;
  return learn_hyperparameters(*f.kernel, *f.likelihood, *objective, lbfgs, options);
}

// At the learned evidence optimum the gradient vanishes, and 6 random restarts around it
// find nothing better.
TEST(RegressionObjectives, LearnedEvidenceOptimumIsStationaryAndNotBeatenByRestarts) {
  Fixture f;
  const LearningReport first = learn(f, "evidence", 0, 0);
  ASSERT_EQ(first.status.code, RunStatus::ok) << first.status.message;
  EXPECT_GT(first.value, first.start_value);
  EXPECT_LT(first.gradient_norm, 1e-5 * std::fabs(first.value));
  const LearningReport again = learn(f, "evidence", 6, 5);  // f holds the learned values
  ASSERT_EQ(again.start_results.size(), 7u);
  for (double r : again.start_results) {
    if (!std::isfinite(r)) continue;
    EXPECT_LE(r, first.value + 1e-6 * std::fabs(first.value));
  }
}

// The leave-one-out surface has several local optima here (one with the likelihood's noise at
// its lower bound); each start ends stationary, and the best of them is reported.
TEST(RegressionObjectives, LearnedLeaveOneOutIsTheBestStationaryStart) {
  Fixture f;
  const LearningReport r = learn(f, "loo", 8, 1);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  EXPECT_LT(r.gradient_norm, 1e-5);
  for (double v : r.start_results) {
    if (!std::isfinite(v)) continue;
    EXPECT_LE(v, r.value);
  }
}

}  // namespace
}  // namespace quench::gp_regression::regression_objectives_test
