// The Monte-Carlo bootstrap against an exact enumeration of every resample of a tiny data
// set, its error formula against a hand computation, and thread-count invariance.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "toy_models.h"

#include "bootstrap_resamplers.h"
#include "exact_gp_regression.h"
#include "mc_bootstrap.h"
#include "quench/losses.h"

namespace quench::mc_bootstrap {
namespace {

struct Fixture {
  Dataset data;
  Problem problem;
  Fixture(int n, int m, double ratio) {
    std::mt19937 gen(11);
    std::normal_distribution<double> z;
    data.X_train.resize(n, 1);
    data.y_train.resize(n);
    data.X_test.resize(m, 1);
    for (int i = 0; i < n; ++i) {
      data.X_train(i, 0) = 0.7 * i;
      data.y_train(i) = std::sin(data.X_train(i, 0)) + 0.3 * z(gen);
    }
    for (int i = 0; i < m; ++i) data.X_test(i, 0) = 0.5 + i;
    data.y_test = Eigen::VectorXd::Zero(m);
    problem.data = &data;
    problem.kernel = std::make_shared<testing::UnitSquaredExponential>();
    problem.likelihood = std::make_shared<testing::NoiseOnlyGaussian>(0.1);
    auto r = std::make_shared<resamplers::MultinomialBootstrap>(
        Params(resamplers::MultinomialBootstrap::schema(), {{"ratio", ratio}}));
    r->prepare(n);
    problem.resampler = r;
    problem.seed = 5;
    problem.context.make_engine = [](const std::string&) {
      return std::make_shared<gp_regression::ExactGpRegression>(
          Params(gp_regression::ExactGpRegression::schema(), {}));
    };
  }
};

Results run(const Problem& p, std::int64_t samples, int threads) {
  Problem q = p;
  q.context.threads = threads;
  return McBootstrap(Params(McBootstrap::schema(), {{"samples", samples}})).run(q);
}

TEST(McBootstrap, OutOfBagErrorMatchesHandComputation) {
  Eigen::MatrixXd F(2, 3), O(2, 3);
  F << 1, 2, 3, 0, 0, 4;
  O << 1, 0, 1, 0, 0, 1;
  Eigen::VectorXd y(2);
  y << 0, 1;
  // Point 0: out of bag in samples 0 and 2: (1 + 9)/2 = 5. Point 1: sample 2: 9. Mean 7.
  const auto e = out_of_bag_error(F, O, y, square_loss);
  EXPECT_DOUBLE_EQ(e.value, 7.0);
  EXPECT_EQ(e.points, 2);
  EXPECT_GT(e.standard_error, 0.0);
}

TEST(McBootstrap, AgreesWithExactEnumerationOfAllResamples) {
  const int n = 4;
  Fixture f(n, 2, 1.0);
  const auto model = f.problem.context.make_engine("")->prepare_resampling(f.problem);
  // Every sequence of S = N draws is equally likely: 4^4 resamples.
  Eigen::VectorXd num = Eigen::VectorXd::Zero(n), den = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd mean_test = Eigen::VectorXd::Zero(2);
  std::vector<Eigen::VectorXd> test_predictions;
  const int total = 256;
  for (int code = 0; code < total; ++code) {
    Eigen::VectorXd counts = Eigen::VectorXd::Zero(n);
    for (int d = 0, c = code; d < n; ++d, c /= n) counts(c % n) += 1;
    const Eigen::VectorXd pred = model->predict(counts);
    for (int i = 0; i < n; ++i)
      if (counts(i) == 0) {
        num(i) += square_loss(pred(i) - f.data.y_train(i));
        den(i) += 1;
      }
    mean_test += pred.tail(2);
    test_predictions.push_back(pred.tail(2));
  }
  const double exact = (num.array() / den.array()).mean();
  mean_test /= total;
  // Exact central moments of the test predictions over all resamples.
  Eigen::VectorXd var_test = Eigen::VectorXd::Zero(2), m4_test = Eigen::VectorXd::Zero(2);
  for (const auto& p : test_predictions) {
    var_test += (p - mean_test).cwiseAbs2() / total;
    m4_test += (p - mean_test).array().pow(4).matrix() / total;
  }

  const Results r = run(f.problem, 20000, 2);
  const double se = r.scalars.at("test_error_square_stderr");
  EXPECT_GT(se, 0.0);
  // A 4.5-sigma band: fails with probability ~1e-5 if the estimator and its error are right.
  EXPECT_NEAR(r.scalars.at("test_error_square"), exact, 4.5 * se);
  const Eigen::VectorXd mean_se = r.vectors.at("prediction_mean_stderr");
  for (int j = 0; j < 2; ++j) {
    EXPECT_NEAR(r.vectors.at("prediction_mean")(j), mean_test(j), 4.5 * mean_se(j));
    // The sample variance of T draws has standard error sqrt((mu4 - sigma^4) / T).
    const double var_se = std::sqrt((m4_test(j) - var_test(j) * var_test(j)) / 20000);
    EXPECT_NEAR(r.vectors.at("prediction_variance")(j), var_test(j), 4.5 * var_se);
  }
}

TEST(McBootstrap, ResultsDoNotDependOnTheThreadCount) {
  Fixture f(30, 3, 1.0);
  const Results one = run(f.problem, 64, 1), two = run(f.problem, 64, 2);
  EXPECT_EQ(one.scalars.at("test_error_square"), two.scalars.at("test_error_square"));
  EXPECT_EQ(one.matrices.at("predictor_samples"), two.matrices.at("predictor_samples"));
  EXPECT_EQ(one.vectors.at("prediction_variance"), two.vectors.at("prediction_variance"));
}

}  // namespace
}  // namespace quench::mc_bootstrap
