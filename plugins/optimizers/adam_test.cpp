// Adam on convex problems against their closed-form minimizers.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "adam_optimizer.h"
#include "quench/mlp.h"

namespace quench::optimizers::adam_test {
namespace {

// Ridge least squares as a sum over examples: sum_i (y_i - a_i^T x)^2 / 2 + lambda |x|^2 / 2,
// minimized at (A^T A + lambda I)^{-1} A^T y.
class Ridge final : public StochasticObjective {
 public:
  Ridge(Eigen::MatrixXd A, Eigen::VectorXd y, double lambda)
      : A_(std::move(A)), y_(std::move(y)), lambda_(lambda) {}
  Eigen::Index dimension() const override { return A_.cols(); }
  Eigen::Index size() const override { return A_.rows(); }
  bool evaluate(const Eigen::VectorXd& x, double* v, Eigen::VectorXd* g) const override {
    std::vector<Eigen::Index> all(static_cast<std::size_t>(A_.rows()));
    for (Eigen::Index i = 0; i < A_.rows(); ++i) all[std::size_t(i)] = i;
    return evaluate_batch(x, all, v, g);
  }
  bool evaluate_batch(const Eigen::VectorXd& x, const std::vector<Eigen::Index>& batch, double* v,
                      Eigen::VectorXd* g) const override {
    const double f = double(A_.rows()) / double(batch.size());
    double value = 0.5 * lambda_ * x.squaredNorm();
    Eigen::VectorXd grad = lambda_ * x;
    for (Eigen::Index i : batch) {
      const double r = A_.row(i).dot(x) - y_(i);
      value += f * 0.5 * r * r;
      grad += f * r * A_.row(i).transpose();
    }
    if (v) *v = value;
    if (g) *g = grad;
    return true;
  }
  Eigen::VectorXd minimizer() const {
    Eigen::MatrixXd H = A_.transpose() * A_;
    H.diagonal().array() += lambda_;
    return H.llt().solve(A_.transpose() * y_);
  }

 private:
  Eigen::MatrixXd A_;
  Eigen::VectorXd y_;
  double lambda_;
};

Ridge make_ridge() {
  RngStream rng(11, 0);
  Eigen::MatrixXd A(40, 3);
  Eigen::VectorXd y(40);
  for (Eigen::Index i = 0; i < 40; ++i) {
    for (Eigen::Index j = 0; j < 3; ++j) A(i, j) = rng.normal();
    y(i) = 1.0 - 2.0 * A(i, 0) + 0.5 * A(i, 2) + 0.3 * rng.normal();
  }
  return {A, y, 2.0};
}

Params adam_params(std::int64_t batch, std::int64_t epochs, double final_fraction) {
  return Params(AdamOptimizer::schema(),
                {{"batch_size", ParamValue(batch)},
                 {"epochs", ParamValue(epochs)},
                 {"learning_rate", ParamValue(0.05)},
                 {"final_learning_rate_fraction", ParamValue(final_fraction)}});
}

TEST(Adam, FullBatchReachesRidgeMinimizer) {
  const Ridge f = make_ridge();
  const AdamOptimizer adam(adam_params(0, 3000, 1e-3));
  Eigen::VectorXd x = Eigen::VectorXd::Zero(3);
  EXPECT_TRUE(adam.minimize(f, x).converged);
  // With the learning rate decayed to 5e-5 the iterate settles within ~lr of the minimizer.
  EXPECT_LT((x - f.minimizer()).norm(), 1e-4);
}

TEST(Adam, MiniBatchesReachRidgeMinimizerAndAreReproducible) {
  const Ridge f = make_ridge();
  const AdamOptimizer adam(adam_params(8, 2000, 1e-4));
  Eigen::VectorXd x = Eigen::VectorXd::Zero(3), x2 = x;
  RngStream rng(1, 2), rng2(1, 2);
  EXPECT_TRUE(adam.minimize_stochastic(f, x, rng).converged);
  adam.minimize_stochastic(f, x2, rng2);
  EXPECT_EQ(x, x2);
  // Mini-batch noise in the gradient is O(sqrt(N/|B|) |a_i r_i|) ~ 10; with a final step of
  // 5e-6 the iterate stays within ~1e-3 of the minimizer (|x*| ~ 2).
  EXPECT_LT((x - f.minimizer()).norm(), 2e-3);
}

TEST(Adam, TrainsTheSharedNetworkOnASeparableProblem) {
  // Softmax regression head of the MLP on two well separated blobs: the training loss must
  // fall far below its starting value log(2) per point.
  RngStream rng(4, 0);
  const Eigen::Index n = 60;
  Eigen::MatrixXd X(n, 2), Y = Eigen::MatrixXd::Zero(n, 2);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int c = int(i % 2);
    X(i, 0) = (c ? 2.0 : -2.0) + 0.5 * rng.normal();
    X(i, 1) = rng.normal();
    Y(i, c) = 1.0;
  }
  const Mlp net(2, 16, 16, 2);
  Eigen::VectorXd theta(net.parameter_count());
  for (Eigen::Index k = 0; k < theta.size(); ++k) theta(k) = rng.normal();
  const Eigen::MatrixXd W;
  const MlpObjective obj(net, X, Y, W, MlpHead::softmax_cross_entropy, 1e-3, {});
  const AdamOptimizer adam(adam_params(16, 100, 0.1));
  EXPECT_TRUE(adam.minimize_stochastic(obj, theta, rng).converged);
  double v = 0;
  obj.evaluate(theta, &v, nullptr);
  EXPECT_LT(v / double(n), 0.05);
}

}  // namespace
}  // namespace quench::optimizers::adam_test
