// quench::AndersonAccelerator on fixed-point maps with independently known fixed points: a
// linear contraction x -> A x + b (fixed point from an LU solve of (I - A) x = b) and a
// componentwise positive map (fixed point by scalar bisection), against the plain iteration.
#include <cmath>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "quench/anderson.h"
#include "quench/errors.h"

namespace quench::anderson_test {
namespace {

// A symmetric contraction with eigenvalues in [-0.3, 0.95] (spectral radius 0.95: the plain
// iteration loses a factor 0.95 per step, ~450 steps for 1e-10) and a random b.
struct Linear {
  Eigen::MatrixXd A;
  Eigen::VectorXd b, fixed_point;
  explicit Linear(int n) {
    std::srand(11);
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(Eigen::MatrixXd::Random(n, n));
    const Eigen::MatrixXd Q = qr.householderQ();
    const Eigen::VectorXd eig = Eigen::VectorXd::LinSpaced(n, -0.3, 0.95);
    A = Q * eig.asDiagonal() * Q.transpose();
    b = Eigen::VectorXd::Random(n);
    fixed_point = (Eigen::MatrixXd::Identity(n, n) - A).partialPivLu().solve(b);
  }
  Eigen::VectorXd operator()(const Eigen::VectorXd& x) const { return A * x + b; }
};

// Steps until |x - x*| <= tol |x*| (or max_steps), iterating x <- step(x, F(x)).
template <class Map, class Step>
int steps_to(const Map& F, const Eigen::VectorXd& x_star, Eigen::VectorXd x, double tol,
             int max_steps, Step step, Eigen::VectorXd* out = nullptr) {
  int k = 0;
  for (; k < max_steps && (x - x_star).norm() > tol * x_star.norm(); ++k) x = step(x, F(x));
  if (out) *out = x;
  return k;
}

TEST(Anderson, LinearContractionSameFixedPointFaster) {
  const Linear F(40);
  const Eigen::VectorXd x0 = Eigen::VectorXd::Zero(40);
  const int plain = steps_to(F, F.fixed_point, x0, 1e-10, 2000,
                             [](const Eigen::VectorXd&, const Eigen::VectorXd& g) { return g; });
  // The plain iteration's rate is the spectral radius: log(1e-10 |x*| / |x0 - x*|) / log 0.95.
  EXPECT_GT(plain, 300);
  EXPECT_LT(plain, 600);
  for (const int depth : {3, 5, 10}) {
    AndersonAccelerator acc({depth});
    Eigen::VectorXd x;
    const int fast = steps_to(
        F, F.fixed_point, x0, 1e-10, 2000,
        [&](const Eigen::VectorXd& xk, const Eigen::VectorXd& g) { return acc.next(xk, g); }, &x);
    SCOPED_TRACE(depth);
    EXPECT_LT((x - F.fixed_point).norm(), 1e-10 * F.fixed_point.norm());  // same fixed point
    EXPECT_LT(fast * 3, plain);  // observed 125 / 87 / 70 steps against 424
    // At the fixed point the residual is ~0 and the step does not move away.
    const Eigen::VectorXd again = acc.next(x, F(x));
    EXPECT_LT((again - F.fixed_point).norm(), 1e-9 * F.fixed_point.norm());
  }
}

TEST(Anderson, DepthZeroAndDampingArePlainSteps) {
  const Linear F(10);
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(10, 0, 1);
  AndersonAccelerator plain({0});
  AndersonAccelerator damped({0, 1e-10, 0.5});
  Eigen::VectorXd xp = x, xd = x;
  for (int k = 0; k < 5; ++k) {
    const Eigen::VectorXd gp = F(xp), gd = F(xd);
    const Eigen::VectorXd np = plain.next(xp, gp), nd = damped.next(xd, gd);
    EXPECT_EQ((np - gp).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_LT((nd - (0.5 * xd + 0.5 * gd)).cwiseAbs().maxCoeff(), 1e-15);
    xp = np;
    xd = nd;
  }
  EXPECT_EQ(plain.history(), 0);
}

TEST(Anderson, FirstStepIsPlainThenHistoryIsBoundedByDepth) {
  const Linear F(10);
  AndersonAccelerator acc({2});
  Eigen::VectorXd x = Eigen::VectorXd::Zero(10);
  const Eigen::VectorXd first = acc.next(x, F(x));
  EXPECT_EQ((first - F(x)).cwiseAbs().maxCoeff(), 0.0);
  x = first;
  for (int k = 0; k < 6; ++k) x = acc.next(x, F(x));
  EXPECT_LE(acc.history(), 2);
  EXPECT_EQ(acc.steps(), 7);
  acc.reset();
  EXPECT_EQ(acc.history(), 0);
  const Eigen::VectorXd after = acc.next(x, F(x));
  EXPECT_EQ((after - F(x)).cwiseAbs().maxCoeff(), 0.0);  // plain again after reset
}

TEST(Anderson, RestartWhenTheResidualGrows) {
  AndersonAccelerator acc({3});
  const Eigen::VectorXd x = Eigen::VectorXd::Zero(3);
  // Residual norms 1, 0.5, then 2: the third call restarts (keeping its own difference).
  acc.next(x, Eigen::VectorXd::Constant(3, 1.0 / std::sqrt(3.0)));
  acc.next(x + Eigen::VectorXd::Constant(3, 0.1),
           x + Eigen::VectorXd::Constant(3, 0.1 + 0.5 / std::sqrt(3.0)));
  EXPECT_EQ(acc.restarts(), 0);
  EXPECT_EQ(acc.history(), 1);
  acc.next(x + Eigen::VectorXd::Constant(3, 0.2),
           x + Eigen::VectorXd::Constant(3, 0.2 + 2 / std::sqrt(3.0)));
  EXPECT_EQ(acc.restarts(), 1);
  EXPECT_EQ(acc.history(), 1);
  // A size change forgets the history without counting a restart.
  acc.next(Eigen::VectorXd::Zero(2), Eigen::VectorXd::Ones(2));
  EXPECT_EQ(acc.history(), 0);
  EXPECT_EQ(acc.restarts(), 1);
}

TEST(Anderson, DegenerateHistoryGivesAFiniteStep) {
  // F(x) = x + c: the residual never changes, dF = 0 (rank 0): the least-squares coefficients
  // are 0 and the step is the plain one.
  AndersonAccelerator acc({3, 0.0});
  const Eigen::VectorXd c = Eigen::VectorXd::Constant(4, 0.25);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(4);
  for (int k = 0; k < 4; ++k) {
    const Eigen::VectorXd next = acc.next(x, x + c);
    ASSERT_TRUE(next.allFinite());
    EXPECT_LT((next - (x + c)).cwiseAbs().maxCoeff(), 1e-14);
    x = next;
  }
}

TEST(Anderson, PositiveMapInLogCoordinates) {
  // F_i(x) = c_i exp(-0.9 x_i); F'(x*) = -0.9 x* reaches -0.95 for c = 3 (slow, oscillating).
  const Eigen::VectorXd c = Eigen::VectorXd::LinSpaced(20, 0.5, 3.0);
  auto F = [&](const Eigen::VectorXd& x) {
    return (c.array() * (-0.9 * x.array()).exp()).matrix();
  };
  Eigen::VectorXd x_star(20);
  for (Eigen::Index i = 0; i < 20; ++i) {  // bisection of x - c e^{-0.9 x} on [0, c]
    double lo = 0, hi = c(i);
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (mid - c(i) * std::exp(-0.9 * mid) < 0 ? lo : hi) = mid;
    }
    x_star(i) = 0.5 * (lo + hi);
  }
  const Eigen::VectorXd x0 = Eigen::VectorXd::Ones(20);
  const int plain = steps_to(F, x_star, x0, 1e-10, 5000,
                             [](const Eigen::VectorXd&, const Eigen::VectorXd& g) { return g; });
  AndersonAccelerator acc({3});
  Eigen::VectorXd x;
  const int fast = steps_to(
      F, x_star, x0, 1e-10, 5000,
      [&](const Eigen::VectorXd& xk, const Eigen::VectorXd& g) { return acc.next_positive(xk, g); },
      &x);
  EXPECT_LT((x - x_star).norm(), 1e-10 * x_star.norm());
  EXPECT_TRUE((x.array() > 0).all());
  EXPECT_LT(fast * 4, plain);
  EXPECT_THROW(acc.next_positive(-x, F(x)), NumericalError);
}

TEST(Anderson, RejectsInvalidOptions) {
  EXPECT_THROW(AndersonAccelerator({-1}), ConfigError);
  EXPECT_THROW(AndersonAccelerator({3, -1.0}), ConfigError);
  EXPECT_THROW(AndersonAccelerator({3, 1e-10, 0.0}), ConfigError);
}

}  // namespace
}  // namespace quench::anderson_test
