// The shared network core (quench/mlp.h): gradients against central finite differences for
// both heads and all weight shapes, and mini-batch objectives against the full sum.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "quench/mlp.h"
#include "quench/rng.h"

namespace quench::mlp_test {
namespace {

Eigen::MatrixXd gaussian_matrix(Eigen::Index r, Eigen::Index c, RngStream& rng) {
  Eigen::MatrixXd M(r, c);
  for (Eigen::Index j = 0; j < c; ++j)
    for (Eigen::Index i = 0; i < r; ++i) M(i, j) = rng.normal();
  return M;
}

struct Case {
  MlpHead head;
  int weights;  // 0 none, 1 per example, 2 per output
};

class MlpGradient : public ::testing::TestWithParam<Case> {};

TEST_P(MlpGradient, MatchesCentralDifferences) {
  const Case c = GetParam();
  RngStream rng(7, 0);
  const Mlp net(3, 5, 4, 3);
  const Eigen::Index n = 6;
  const Eigen::MatrixXd X = gaussian_matrix(n, 3, rng);
  Eigen::MatrixXd Y = gaussian_matrix(n, 3, rng);
  if (c.head == MlpHead::softmax_cross_entropy) Y = softmax_rows(Y);  // soft targets
  Eigen::MatrixXd W;
  if (c.weights == 1) W = gaussian_matrix(n, 1, rng).array().abs();
  if (c.weights == 2) W = gaussian_matrix(n, 3, rng).array().abs();
  const Eigen::VectorXd theta = gaussian_matrix(net.parameter_count(), 1, rng);
  Eigen::VectorXd g;
  net.loss(theta, X, Y, W, c.head, &g);
  // Central differences have error O(h^2 f''') ~ 1e-10 here; ReLU kinks are hit with
  // probability ~ h, negligible at h = 1e-6 for 6 points.
  const double h = 1e-6;
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    Eigen::VectorXd tp = theta, tm = theta;
    tp(k) += h;
    tm(k) -= h;
    const double fd =
        (net.loss(tp, X, Y, W, c.head, nullptr) - net.loss(tm, X, Y, W, c.head, nullptr)) / (2 * h);
    EXPECT_NEAR(g(k), fd, 1e-6 * (1 + std::abs(fd))) << "parameter " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Heads, MlpGradient,
                         ::testing::Values(Case{MlpHead::square, 0}, Case{MlpHead::square, 1},
                                           Case{MlpHead::square, 2},
                                           Case{MlpHead::softmax_cross_entropy, 0},
                                           Case{MlpHead::softmax_cross_entropy, 1}));

TEST(Mlp, ForwardMatchesExplicitFormula) {
  // 002 eq 2 written out for one input with scalar loops.
  RngStream rng(3, 1);
  const Mlp net(2, 3, 2, 1);
  const Eigen::VectorXd th = gaussian_matrix(net.parameter_count(), 1, rng);
  const Eigen::MatrixXd x = gaussian_matrix(1, 2, rng);
  // Layout: W1 (3x2 col-major), b1 (3), W2 (2x3), b2 (2), W3 (1x2), b3 (1).
  int o = 0;
  auto layer = [&](const std::vector<double>& in, int out, bool relu) {
    const int d = int(in.size());
    std::vector<double> z(std::size_t(out), 0.0);
    for (int j = 0; j < d; ++j)
      for (int i = 0; i < out; ++i) z[std::size_t(i)] += th(o + j * out + i) * in[std::size_t(j)];
    o += out * d;
    for (int i = 0; i < out; ++i) {
      z[std::size_t(i)] = z[std::size_t(i)] / std::sqrt(double(d)) + th(o + i);
      if (relu) z[std::size_t(i)] = std::max(0.0, z[std::size_t(i)]);
    }
    o += out;
    return z;
  };
  const auto h1 = layer({x(0, 0), x(0, 1)}, 3, true);
  const auto h2 = layer(h1, 2, true);
  const auto f = layer(h2, 1, false);
  EXPECT_NEAR(net.forward(th, x)(0, 0), f[0], 1e-12);
}

TEST(MlpObjective, FullBatchEqualsEvaluateAndBatchesAreUnbiased) {
  RngStream rng(5, 2);
  const Mlp net(2, 4, 4, 2);
  const Eigen::MatrixXd X = gaussian_matrix(4, 2, rng);
  const Eigen::MatrixXd Y = gaussian_matrix(4, 2, rng);
  const Eigen::MatrixXd W;
  const Eigen::VectorXd centre = gaussian_matrix(net.parameter_count(), 1, rng);
  const MlpObjective obj(net, X, Y, W, MlpHead::square, 0.5, centre);
  const Eigen::VectorXd th = gaussian_matrix(net.parameter_count(), 1, rng);
  double full = 0, batch_all = 0;
  Eigen::VectorXd g_full, g_all;
  obj.evaluate(th, &full, &g_full);
  obj.evaluate_batch(th, {0, 1, 2, 3}, &batch_all, &g_all);
  EXPECT_NEAR(full, batch_all, 1e-12 * std::abs(full));
  EXPECT_LT((g_full - g_all).norm(), 1e-12 * g_full.norm());
  // The mean over the disjoint batches {0,1} and {2,3} (each scaled by N/|B| = 2) is the sum.
  double a = 0, b = 0;
  Eigen::VectorXd ga, gb;
  obj.evaluate_batch(th, {0, 1}, &a, &ga);
  obj.evaluate_batch(th, {2, 3}, &b, &gb);
  EXPECT_NEAR(0.5 * (a + b), full, 1e-12 * std::abs(full));
  EXPECT_LT((0.5 * (ga + gb) - g_full).norm(), 1e-12 * g_full.norm());
}

// The mini-batch objective's gradient, penalty included, against central differences of its
// value (the penalty gradient and the N/|B| factor are accumulated in place, not re-derived).
TEST(MlpObjective, BatchGradientWithPenaltyMatchesCentralDifferences) {
  RngStream rng(9, 1);
  const Mlp net(3, 5, 4, 2);
  const Eigen::MatrixXd X = gaussian_matrix(7, 3, rng), Y = gaussian_matrix(7, 2, rng);
  const Eigen::MatrixXd W = gaussian_matrix(7, 2, rng).array().abs();
  const Eigen::VectorXd centre = gaussian_matrix(net.parameter_count(), 1, rng);
  const MlpObjective obj(net, X, Y, W, MlpHead::square, 0.7, centre);
  const Eigen::VectorXd th = gaussian_matrix(net.parameter_count(), 1, rng);
  const std::vector<Eigen::Index> batch{1, 4, 6};
  Eigen::VectorXd g;
  double v = 0;
  obj.evaluate_batch(th, batch, &v, &g);
  const double h = 1e-6;  // as in MlpGradient
  for (Eigen::Index k = 0; k < th.size(); ++k) {
    Eigen::VectorXd tp = th, tm = th;
    tp(k) += h;
    tm(k) -= h;
    double vp = 0, vm = 0;
    obj.evaluate_batch(tp, batch, &vp, nullptr);
    obj.evaluate_batch(tm, batch, &vm, nullptr);
    const double fd = (vp - vm) / (2 * h);
    EXPECT_NEAR(g(k), fd, 1e-6 * (1 + std::abs(fd))) << "parameter " << k;
  }
}

}  // namespace
}  // namespace quench::mlp_test
