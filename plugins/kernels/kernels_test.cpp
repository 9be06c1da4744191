// Kernels against their scalar definitions (001 App. B, 003 eq 1, 000 Sec. 5).
#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include <Eigen/Eigenvalues>

#include "kernels.h"
#include "quench/errors.h"

namespace quench::kernels {
namespace {

Eigen::MatrixXd random_inputs(int n, int d, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> z;
  Eigen::MatrixXd X(n, d);
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < d; ++l) X(i, l) = z(gen) * (1.0 + l);
  return X;
}

using Scalar = std::function<double(const Eigen::RowVectorXd&, const Eigen::RowVectorXd&)>;

void expect_matches(const Kernel& k, const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                    const Scalar& f) {
  const Eigen::MatrixXd K = k.cross(A, B);
  ASSERT_EQ(K.rows(), A.rows());
  ASSERT_EQ(K.cols(), B.rows());
  for (int i = 0; i < A.rows(); ++i)
    for (int j = 0; j < B.rows(); ++j)
      EXPECT_NEAR(K(i, j), f(A.row(i), B.row(j)), 1e-12 * (1 + std::abs(K(i, j))));
  const Eigen::VectorXd diag = k.diagonal(A);
  const Eigen::MatrixXd KA = k.cross(A, A);
  // 1e-7, not 1e-12: on the diagonal the arcsin kernel evaluates asin(1 - O(eps)), where
  // rounding of order 1e-16 in the argument moves the value by sqrt(2e-16) ~ 1.4e-8.
  for (int i = 0; i < A.rows(); ++i) EXPECT_NEAR(diag(i), KA(i, i), 1e-7);
  // A covariance function gives a positive semi-definite Gram matrix.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(KA);
  EXPECT_GT(eig.eigenvalues().minCoeff(), -1e-9 * eig.eigenvalues().maxCoeff());
}

TEST(Kernels, GaussianWithArdWeightsMatchesDefinition) {
  const Eigen::MatrixXd A = random_inputs(7, 3, 1), B = random_inputs(5, 3, 2);
  auto k = make_gaussian(Params(gaussian_schema(), {{"weights", std::vector<double>{0.5, 0.2, 0.1}},
                                                    {"amplitude", 2.0},
                                                    {"bias", 0.3},
                                                    {"noise", 0.01}}));
  k->prepare(A);
  const double w[3] = {0.5, 0.2, 0.1};
  expect_matches(*k, A, B, [&](const Eigen::RowVectorXd& x, const Eigen::RowVectorXd& y) {
    double s = 0;
    for (int l = 0; l < 3; ++l) s += w[l] * (x(l) - y(l)) * (x(l) - y(l));
    return 2.0 * std::exp(-0.5 * s) + 0.3;
  });
  EXPECT_DOUBLE_EQ(k->diagonal_noise(), 0.01);
  const Eigen::MatrixXd G = k->gram(A);
  EXPECT_NEAR(G(0, 0), 2.0 + 0.3 + 0.01, 1e-14);
}

TEST(Kernels, GaussianPaper000ParametrisationUsesSqrtOfInputVariance) {
  const Eigen::MatrixXd X = random_inputs(40, 4, 3);
  auto k = make_gaussian(
      Params(gaussian_schema(), {{"l2", 73.54}, {"scaling", std::string("sqrt_variance")}}));
  k->prepare(X);
  Eigen::VectorXd v(4);
  for (int l = 0; l < 4; ++l) {
    const double m = X.col(l).mean();
    v(l) = std::sqrt((X.col(l).array() - m).square().sum() / (X.rows() - 1));
  }
  expect_matches(*k, X.topRows(6), X.bottomRows(4),
                 [&](const Eigen::RowVectorXd& x, const Eigen::RowVectorXd& y) {
                   double s = 0;
                   for (int l = 0; l < 4; ++l) s += (x(l) - y(l)) * (x(l) - y(l)) / (v(l) * 73.54);
                   return std::exp(-s);
                 });
}

TEST(Kernels, LengthScalesAreInverseSquareWeights) {
  const Eigen::MatrixXd X = random_inputs(5, 2, 10);
  auto by_scale =
      make_gaussian(Params(gaussian_schema(), {{"length_scales", std::vector<double>{2.0, 0.5}}}));
  auto by_weight =
      make_gaussian(Params(gaussian_schema(), {{"weights", std::vector<double>{0.25, 4.0}}}));
  by_scale->prepare(X);
  by_weight->prepare(X);
  EXPECT_LT((by_scale->cross(X, X) - by_weight->cross(X, X)).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_THROW(make_gaussian(Params(gaussian_schema(), {{"length_scales", std::vector<double>{1.0}},
                                                        {"weights", std::vector<double>{1.0}}})),
               ConfigError);
}

TEST(Kernels, GaussianWidthGivesEqualWeightsOverDimension) {
  const Eigen::MatrixXd X = random_inputs(5, 4, 4);
  auto k = make_gaussian(Params(gaussian_schema(), {{"width", 2.0}}));
  k->prepare(X);
  expect_matches(*k, X, X, [&](const Eigen::RowVectorXd& x, const Eigen::RowVectorXd& y) {
    return std::exp(-0.5 * (x - y).squaredNorm() / (2.0 * 4));
  });
}

TEST(Kernels, LinearMatchesDefinition) {
  const Eigen::MatrixXd A = random_inputs(6, 2, 5);
  auto k = make_linear(
      Params(linear_schema(), {{"weights", std::vector<double>{0.5, 2.0}}, {"bias", 1.0}}));
  k->prepare(A);
  expect_matches(*k, A, A, [](const Eigen::RowVectorXd& x, const Eigen::RowVectorXd& y) {
    return 0.5 * x(0) * y(0) + 2.0 * x(1) * y(1) + 1.0;
  });
}

TEST(Kernels, InfiniteNetMatchesArcsinFormula) {
  const Eigen::MatrixXd A = random_inputs(6, 3, 6), B = random_inputs(4, 3, 7);
  auto k = make_infinite_net(Params(infinite_net_schema(), {{"width", 0.5}, {"amplitude", 1.5}}));
  k->prepare(A);
  const double w = 1.0 / (0.5 * 3);
  expect_matches(*k, A, B, [&](const Eigen::RowVectorXd& x, const Eigen::RowVectorXd& y) {
    const double sxy = 1 + w * x.dot(y), sxx = 1 + w * x.squaredNorm(),
                 syy = 1 + w * y.squaredNorm();
    return 1.5 * 2.0 / M_PI * std::asin(sxy / std::sqrt(sxx * syy));
  });
}

TEST(Kernels, CauchyMatchesRationalQuadratic) {
  const Eigen::MatrixXd A = random_inputs(6, 2, 8), B = random_inputs(3, 2, 9);
  auto k = make_cauchy(
      Params(cauchy_schema(), {{"weights", std::vector<double>{1.0, 0.25}}, {"beta", 2.0}}));
  k->prepare(A);
  expect_matches(*k, A, B, [](const Eigen::RowVectorXd& x, const Eigen::RowVectorXd& y) {
    const double s = (x(0) - y(0)) * (x(0) - y(0)) + 0.25 * (x(1) - y(1)) * (x(1) - y(1));
    return std::pow(1 + s, -2.0);
  });
}

TEST(Kernels, ConflictingAndMismatchedWeightsAreRefused) {
  EXPECT_THROW(make_gaussian(Params(gaussian_schema(), {{"width", 1.0}, {"l2", 2.0}})),
               ConfigError);
  EXPECT_THROW(make_gaussian(Params(gaussian_schema(), {{"scaling", std::string("variance")}})),
               ConfigError);
  auto k = make_gaussian(Params(gaussian_schema(), {{"weights", std::vector<double>{1.0}}}));
  EXPECT_THROW(k->prepare(random_inputs(3, 2, 1)), ConfigError);
  auto unprepared = make_gaussian(Params(gaussian_schema(), {}));
  EXPECT_THROW(unprepared->cross(random_inputs(2, 2, 1), random_inputs(2, 2, 1)), ConfigError);
}

}  // namespace
}  // namespace quench::kernels
