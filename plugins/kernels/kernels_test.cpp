// Kernels against their scalar definitions (001 App. B, 003 eq 1, 000 Sec. 5, R&W Ch. 4,
// scikit-learn) and their limits and special cases.
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Eigenvalues>

#include "kernels.h"
#include "quench/errors.h"

namespace quench::kernels::kernels_test {
namespace {

Eigen::MatrixXd random_inputs(int n, int d, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> z;
  Eigen::MatrixXd X(n, d);
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < d; ++l) X(i, l) = z(gen) * (1.0 + l);
  return X;
}

using Values = std::map<std::string, ParamValue>;
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

// R&W eq 4.31 with ARD weights, per pair.
TEST(Kernels, PeriodicMatchesExpSineSquared) {
  const Eigen::MatrixXd A = random_inputs(6, 3, 11), B = random_inputs(4, 3, 12);
  const std::vector<double> l{0.8, 1.7, 2.5};
  auto k = make_periodic(
      Params(periodic_schema(),
             {{"length_scales", l}, {"period", 1.9}, {"amplitude", 1.3}, {"bias", 0.2}}));
  k->prepare(A);
  expect_matches(*k, A, B, [&](const Eigen::RowVectorXd& x, const Eigen::RowVectorXd& y) {
    double s = 0;
    for (int i = 0; i < 3; ++i) s += std::pow(std::sin(M_PI * (x(i) - y(i)) / 1.9) / l[i], 2);
    return 1.3 * std::exp(-2 * s) + 0.2;
  });
}

// One input: scikit-learn's ExpSineSquared(length_scale=l, periodicity=p), exp(-2 sin^2(pi d /
// p) / l^2), times v0, plus v1; at d = p the covariance of a point with itself, v0 + v1, at d = p/2
// the farthest, v0 exp(-2 / l^2) + v1.
TEST(Kernels, PeriodicMatchesScikitLearnInOneDimension) {
  const double l = 0.7, p = 1.9, v0 = 1.3, v1 = 0.2;
  auto k = make_periodic(Params(
      periodic_schema(),
      {{"length_scales", std::vector<double>{l}}, {"period", p}, {"amplitude", v0}, {"bias", v1}}));
  const Eigen::MatrixXd X = random_inputs(9, 1, 13);
  k->prepare(X);
  const Eigen::MatrixXd K = k->cross(X, X);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      const double s = std::sin(M_PI * std::abs(X(i, 0) - X(j, 0)) / p);
      EXPECT_NEAR(K(i, j), v0 * std::exp(-2 * s * s / (l * l)) + v1, 1e-14);
    }
  const Eigen::MatrixXd x = Eigen::MatrixXd::Constant(1, 1, 0.3);
  EXPECT_NEAR(k->cross(x, x.array() + p)(0, 0), v0 + v1, 1e-14);
  EXPECT_NEAR(k->cross(x, x.array() + p / 2)(0, 0), v0 * std::exp(-2 / (l * l)) + v1, 1e-14);
}

// k(x, x' + p e_l) = k(x, x') for a shift by the period in any dimension, or in all at once.
TEST(Kernels, PeriodicRepeatsWithThePeriod) {
  const double p = 1.3;
  const Eigen::MatrixXd A = random_inputs(6, 3, 14), B = random_inputs(5, 3, 15);
  auto k =
      make_periodic(Params(periodic_schema(), {{"width", 0.4}, {"period", p}, {"amplitude", 1.3}}));
  k->prepare(A);
  const Eigen::MatrixXd K = k->cross(A, B);
  for (int l = 0; l <= 3; ++l) {
    Eigen::MatrixXd shifted = B;
    if (l < 3)
      shifted.col(l).array() += p;
    else
      shifted.array() -= p;
    EXPECT_LE((k->cross(A, shifted) - K).cwiseAbs().maxCoeff(), 1e-14) << l;
  }
}

// R&W eq 4.19 with ARD weights, per pair.
TEST(Kernels, RationalQuadraticMatchesDefinition) {
  const Eigen::MatrixXd A = random_inputs(6, 2, 16), B = random_inputs(3, 2, 17);
  auto k = make_rational_quadratic(
      Params(rational_quadratic_schema(),
             {{"length_scales", std::vector<double>{1.5, 0.6}}, {"alpha", 0.7}, {"bias", 0.1}}));
  k->prepare(A);
  expect_matches(*k, A, B, [](const Eigen::RowVectorXd& x, const Eigen::RowVectorXd& y) {
    const double D = std::pow((x(0) - y(0)) / 1.5, 2) + std::pow((x(1) - y(1)) / 0.6, 2);
    return std::pow(1 + D / (2 * 0.7), -0.7) + 0.1;
  });
}

// alpha -> infinity: (1 + D/(2 alpha))^-alpha = exp(-D/2 + D^2/(8 alpha) + ...), the gaussian to
// D^2/(8 alpha) relative: below 1e-7 at alpha = 1e8 for the distances here (D < 8).
TEST(Kernels, RationalQuadraticTendsToTheGaussian) {
  const Eigen::MatrixXd A = random_inputs(8, 2, 18);
  const Values common{{"length_scales", std::vector<double>{3.0, 5.0}}, {"amplitude", 1.3}};
  Values rq = common;
  rq.emplace("alpha", 1e8);
  auto k = make_rational_quadratic(Params(rational_quadratic_schema(), rq));
  auto g = make_gaussian(Params(gaussian_schema(), common));
  k->prepare(A);
  g->prepare(A);
  const Eigen::MatrixXd G = g->cross(A, A);
  ASSERT_GT(G.minCoeff(), 1.3 * std::exp(-4.0));  // D < 8
  EXPECT_LE(((k->cross(A, A) - G).array() / G.array()).abs().maxCoeff(), 1e-7);
}

// alpha = beta and weights 2 alpha w_l give 001's cauchy (1 + sum_l w_l d_l^2)^-beta.
TEST(Kernels, RationalQuadraticWithScaledWeightsIsCauchy) {
  const Eigen::MatrixXd A = random_inputs(6, 3, 19), B = random_inputs(4, 3, 20);
  const double beta = 1.6;
  const std::vector<double> w{0.5, 0.2, 0.1};
  std::vector<double> w_rq;
  for (double x : w) w_rq.push_back(2 * beta * x);
  auto rq = make_rational_quadratic(
      Params(rational_quadratic_schema(), {{"weights", w_rq}, {"alpha", beta}, {"bias", 0.3}}));
  auto cauchy =
      make_cauchy(Params(cauchy_schema(), {{"weights", w}, {"beta", beta}, {"bias", 0.3}}));
  rq->prepare(A);
  cauchy->prepare(A);
  EXPECT_LE((rq->cross(A, B) - cauchy->cross(A, B)).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LE((rq->gram(A) - cauchy->gram(A)).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(Kernels, ConstantIsTheValueEverywhere) {
  const Eigen::MatrixXd A = random_inputs(6, 3, 21), B = random_inputs(4, 3, 22);
  auto k = make_constant(Params(constant_schema(), {{"value", 0.8}}));
  k->prepare(A);
  EXPECT_TRUE(k->cross(A, B) == Eigen::MatrixXd::Constant(6, 4, 0.8));
  EXPECT_TRUE(k->gram(A) == Eigen::MatrixXd::Constant(6, 6, 0.8));
  EXPECT_TRUE(k->diagonal(A) == Eigen::VectorXd::Constant(6, 0.8));
  EXPECT_EQ(k->diagonal_noise(), 0.0);
  EXPECT_EQ(make_constant(Params(constant_schema(), {}))->cross(A, B)(0, 0), 1.0);  // default
}

// Zero across every pair of row sets, the same rows included; noise I on the training Gram.
TEST(Kernels, WhiteIsNoiseOnTheGramDiagonalOnly) {
  const Eigen::MatrixXd A = random_inputs(6, 3, 23), B = random_inputs(4, 3, 24);
  auto k = make_white(Params(white_schema(), {{"noise", 0.3}}));
  k->prepare(A);
  EXPECT_TRUE(k->cross(A, B) == Eigen::MatrixXd::Zero(6, 4));
  EXPECT_TRUE(k->cross(A, A) == Eigen::MatrixXd::Zero(6, 6));
  EXPECT_TRUE(k->diagonal(A) == Eigen::VectorXd::Zero(6));
  EXPECT_EQ(k->diagonal_noise(), 0.3);
  EXPECT_TRUE(k->gram(A) == 0.3 * Eigen::MatrixXd::Identity(6, 6));
  EXPECT_EQ(make_white(Params(white_schema(), {}))->diagonal_noise(), 1.0);  // default
}

// Stationary kernels depend on differences only, so inputs far from the origin (years near
// 2000, a length scale of 0.137 as CO2's shortest) give the kernel of the same inputs shifted to
// 0. The expansion ||a||^2 + ||b||^2 - 2 a.b about the origin loses ~1e-9 of each squared
// distance there, 3.5e-8 of K (measured with the origin at 0); about the training mean only
// the rounding of the inputs themselves is left (ulp(1990) = 2.3e-13 times |dK/dx| <= 4.4/l,
// ~7e-12).
TEST(Kernels, StationaryKernelsDoNotLoseDigitsFarFromTheOrigin) {
  const Eigen::MatrixXd shifted = 0.3 * random_inputs(30, 1, 61);
  const Eigen::MatrixXd years = shifted.array() + 1990.0;
  using Factory = std::unique_ptr<Kernel> (*)(const Params&);
  const std::vector<std::tuple<const char*, Factory, ParamSchema>> kernels{
      {"gaussian", make_gaussian, gaussian_schema()},
      {"rational_quadratic", make_rational_quadratic, rational_quadratic_schema()},
      {"periodic", make_periodic, periodic_schema()}};
  for (const auto& [name, make, schema] : kernels) {
    SCOPED_TRACE(name);
    const Params p(schema, {{"length_scales", std::vector<double>{0.137}}});
    auto far = make(p), near = make(p);
    far->prepare(years);
    near->prepare(shifted);
    const Eigen::MatrixXd K = far->cross(years, years), K0 = near->cross(shifted, shifted);
    EXPECT_LE((K - K0).cwiseAbs().maxCoeff(), 1e-11);
    const Eigen::MatrixXd W = K0;
    EXPECT_LE((far->gram_derivative_contractions(years, W) -
               near->gram_derivative_contractions(shifted, W))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-9 * near->gram_derivative_contractions(shifted, W).cwiseAbs().maxCoeff());
  }
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
}  // namespace quench::kernels::kernels_test
