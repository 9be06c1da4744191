// Exact GP regression against dense textbook formulas, and the weighted fast path of the
// bootstrap (noise sigma^2/s_i on distinct points) against its definition (rows repeated).
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include "toy_models.h"

#include "exact_gp_regression.h"

namespace quench::gp_regression::exact_gp_regression_test {
namespace {

struct Fixture {
  Dataset data;
  Problem problem;
  explicit Fixture(int n = 12, int m = 5) {
    std::mt19937 gen(3);
    std::normal_distribution<double> z;
    data.X_train.resize(n, 2);
    data.y_train.resize(n);
    data.X_test.resize(m, 2);
    for (int i = 0; i < n; ++i) {
      data.X_train.row(i) << z(gen), z(gen);
      data.y_train(i) = std::sin(data.X_train(i, 0)) + 0.1 * z(gen);
    }
    for (int i = 0; i < m; ++i) data.X_test.row(i) << z(gen), z(gen);
    data.y_test = Eigen::VectorXd::Zero(m);
    problem.data = &data;
    problem.kernel = std::make_shared<testing::UnitSquaredExponential>();
    problem.likelihood = std::make_shared<testing::NoiseOnlyGaussian>(0.05);
  }
};

ExactGpRegression engine() { return ExactGpRegression(Params(ExactGpRegression::schema(), {})); }

TEST(ExactGpRegression, MatchesDenseFormulas) {
  Fixture f;
  const Results r = engine().run(f.problem);
  const Eigen::MatrixXd K = f.problem.kernel->cross(f.data.X_train, f.data.X_train);
  const Eigen::MatrixXd Ks = f.problem.kernel->cross(f.data.X_test, f.data.X_train);
  const Eigen::MatrixXd Ky = K + 0.05 * Eigen::MatrixXd::Identity(K.rows(), K.cols());
  const Eigen::MatrixXd Kinv = Ky.inverse();
  const Eigen::VectorXd mean = Ks * Kinv * f.data.y_train;
  const Eigen::VectorXd var = (Eigen::MatrixXd::Ones(5, 5) - Ks * Kinv * Ks.transpose()).diagonal();
  EXPECT_LT((r.vectors.at("test_mean") - mean).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((r.vectors.at("test_variance") - var).cwiseAbs().maxCoeff(), 1e-10);
  const Eigen::VectorXd train_var = (K - K * Kinv * K).diagonal();
  EXPECT_LT((r.vectors.at("train_variance") - train_var).cwiseAbs().maxCoeff(), 1e-10);
  const double lml = -0.5 * f.data.y_train.dot(Kinv * f.data.y_train) -
                     0.5 * std::log(Ky.determinant()) - 0.5 * 12 * std::log(2 * M_PI);
  EXPECT_NEAR(r.scalars.at("log_marginal_likelihood"), lml, 1e-10);
}

TEST(ExactGpRegression, WeightedRetrainEqualsRepeatedRows) {
  Fixture f;
  auto model = engine().prepare_resampling(f.problem);
  ASSERT_TRUE(model);
  Eigen::VectorXd counts(12);
  counts << 0, 1, 2, 0, 3, 1, 0, 0, 1, 2, 1, 1;
  const Eigen::VectorXd fast = model->predict(counts);

  // The definition: a data set where point i appears counts(i) times.
  Dataset repeated;
  int rows = static_cast<int>(counts.sum());
  repeated.X_train.resize(rows, 2);
  repeated.y_train.resize(rows);
  for (int i = 0, r = 0; i < 12; ++i)
    for (int c = 0; c < counts(i); ++c, ++r) {
      repeated.X_train.row(r) = f.data.X_train.row(i);
      repeated.y_train(r) = f.data.y_train(i);
    }
  repeated.X_test.resize(17, 2);
  repeated.X_test << f.data.X_train, f.data.X_test;
  Problem p = f.problem;
  p.data = &repeated;
  const Results slow = engine().run(p);
  ASSERT_EQ(fast.size(), 17);
  EXPECT_LT((fast - slow.vectors.at("test_mean")).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(ExactGpRegression, UnitWeightsReproduceTheFullFit) {
  Fixture f;
  const Results r = engine().run(f.problem);
  const Eigen::VectorXd all =
      engine().prepare_resampling(f.problem)->predict(Eigen::VectorXd::Ones(12));
  EXPECT_LT((all.head(12) - r.vectors.at("train_mean")).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((all.tail(5) - r.vectors.at("test_mean")).cwiseAbs().maxCoeff(), 1e-10);
}

}  // namespace
}  // namespace quench::gp_regression::exact_gp_regression_test
