// L-BFGS against closed-form minimizers.
#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "lbfgs_optimizer.h"

namespace quench::optimizers {
namespace {

// f(x) = 1/2 x^T A x - b^T x, minimized at A^{-1} b.
class Quadratic final : public SmoothObjective {
 public:
  Quadratic(Eigen::MatrixXd A, Eigen::VectorXd b) : A_(std::move(A)), b_(std::move(b)) {}
  Eigen::Index dimension() const override { return b_.size(); }
  bool evaluate(const Eigen::VectorXd& x, double* value, Eigen::VectorXd* g) const override {
    *value = 0.5 * x.dot(A_ * x) - b_.dot(x);
    if (g) *g = A_ * x - b_;
    return true;
  }

 private:
  Eigen::MatrixXd A_;
  Eigen::VectorXd b_;
};

class Rosenbrock final : public SmoothObjective {
 public:
  Eigen::Index dimension() const override { return 2; }
  bool evaluate(const Eigen::VectorXd& x, double* value, Eigen::VectorXd* g) const override {
    const double a = 1 - x(0), b = x(1) - x(0) * x(0);
    *value = a * a + 100 * b * b;
    if (g) *g = Eigen::Vector2d(-2 * a - 400 * x(0) * b, 200 * b);
    return true;
  }
};

TEST(Lbfgs, SolvesAnIllConditionedQuadratic) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Random(8, 8);
  Eigen::MatrixXd A = M * M.transpose() + 0.1 * Eigen::MatrixXd::Identity(8, 8);
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(8, -1, 1);
  LbfgsOptimizer opt(Params(LbfgsOptimizer::schema(), {}));
  Eigen::VectorXd x = Eigen::VectorXd::Zero(8);
  const OptimizerReport r = opt.minimize(Quadratic(A, b), x);
  EXPECT_TRUE(r.converged) << r.message;
  const Eigen::VectorXd exact = A.ldlt().solve(b);
  EXPECT_LT((x - exact).norm(), 1e-6 * exact.norm());
}

TEST(Lbfgs, FindsTheRosenbrockMinimum) {
  LbfgsOptimizer opt(Params(LbfgsOptimizer::schema(), {}));
  Eigen::VectorXd x(2);
  x << -1.2, 1.0;
  opt.minimize(Rosenbrock(), x);
  EXPECT_NEAR(x(0), 1.0, 1e-5);
  EXPECT_NEAR(x(1), 1.0, 1e-5);
}

}  // namespace
}  // namespace quench::optimizers
