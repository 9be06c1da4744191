// Random Fourier features of the Gaussian kernel: phi(x)^T phi(x') is a Monte-Carlo estimate of
// K(x, x') with D terms, each of variance <= v0^2 (z_j = v0 [cos(w^T (x - x')) +
// cos(w^T (x + x') + 2 b)], |z_j| <= 2 v0, Var z_j <= v0^2), so each entry is within
// 5 v0 / sqrt(D) of the kernel except with probability ~6e-7.
#include <cmath>

#include <gtest/gtest.h>

#include "kernels.h"
#include "quench/rng.h"

namespace quench::kernels::rff_test {
namespace {

Eigen::MatrixXd inputs() {
  RngStream rng(9, 0);
  Eigen::MatrixXd X(6, 3);
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.cols(); ++j) X(i, j) = rng.normal();
  return X;
}

TEST(RandomFourierFeatures, InnerProductsEstimateTheKernel) {
  const Eigen::Index D = 20000;
  const double v0 = 1.7, v1 = 0.3;
  auto k = make_gaussian(
      Params(gaussian_schema(), {{"length_scales", std::vector<double>{1.0, 2.0, 0.7}},
                                 {"amplitude", v0},
                                 {"bias", v1},
                                 {"random_features", std::int64_t{D}},
                                 {"feature_seed", std::int64_t{3}}}));
  const Eigen::MatrixXd X = inputs();
  k->prepare(X);
  const FeatureMap* map = k->feature_map();
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->dimension(), D + 1);  // the bias feature
  const Eigen::MatrixXd F = map->features(X);
  const Eigen::MatrixXd approx = F * F.transpose(), exact = k->cross(X, X);
  EXPECT_LT((approx - exact).cwiseAbs().maxCoeff(), 5 * v0 / std::sqrt(double(D)));
  // Not trivially equal: the Monte-Carlo error is visible.
  EXPECT_GT((approx - exact).cwiseAbs().maxCoeff(), 1e-6);
  // Seeded: the same map again, row by row (features do not depend on the batch).
  EXPECT_EQ(map->features(X.topRows(2)), F.topRows(2));
}

TEST(RandomFourierFeatures, AbsentByDefault) {
  auto k = make_gaussian(Params(gaussian_schema(), {}));
  k->prepare(inputs());
  EXPECT_EQ(k->feature_map(), nullptr);
}

}  // namespace
}  // namespace quench::kernels::rff_test
