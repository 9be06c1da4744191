// The WBB engine: normal means (004 Sec. 3.1) against the closed forms, Mitchell's posterior
// mean against quadrature, thread-count invariance of the draws, and a diabetes run through
// the engine (cross-validated lambda, outputs present and consistent).
#include <cmath>

#include <gtest/gtest.h>

#include "adam_optimizer.h"
#include "coordinate_descent.h"
#include "exponential_weights.h"
#include "normal_means.h"
#include "quench/dataset.h"
#include "quench/draw_summary.h"
#include "quench/mlp.h"
#include "quench/rng.h"
#include "wbb_engine.h"
#include "wbb_linear.h"

namespace quench::wbb::wbb_test {
namespace {

std::shared_ptr<resamplers::ExponentialWeights> weights(Eigen::Index n) {
  auto r = std::make_shared<resamplers::ExponentialWeights>(
      Params(resamplers::ExponentialWeights::schema(), {}));
  r->prepare(n);
  return r;
}

std::shared_ptr<weighted_solvers::CoordinateDescent> cd() {
  return std::make_shared<weighted_solvers::CoordinateDescent>(
      Params(weighted_solvers::CoordinateDescent::schema(), {}));
}

TEST(NormalMeans, MitchellMeanEqualsQuadrature) {
  for (double lambda : {0.5, 1.0, 3.0})
    for (double y : {-4.0, -1.0, 0.0, 0.3, 2.0, 6.0}) {
      // Trapezoid rule on [-30, 30] with step 1e-3 of theta exp(-(y-theta)^2/2 - lambda|theta|).
      double num = 0, den = 0;
      for (double t = -30; t <= 30; t += 1e-3) {
        const double f = std::exp(-0.5 * (y - t) * (y - t) - lambda * std::abs(t));
        num += t * f;
        den += f;
      }
      EXPECT_NEAR(mitchell_posterior_mean(y, lambda), num / den, 1e-6) << y << " " << lambda;
    }
}

TEST(NormalMeans, WbbMeanMatchesClosedForm) {
  // One observation, X = 1, no intercept, common w_0: every draw is soft(y, lambda w0/w1).
  const Eigen::MatrixXd X = Eigen::MatrixXd::Ones(1, 1);
  const auto solver = cd();
  const auto r = weights(1);
  for (double y0 : {-2.5, 0.7, 4.0}) {
    const Eigen::VectorXd y = Eigen::VectorXd::Constant(1, y0);
    LinearSpec spec{&X, &y, 1.0, false};
    const double lambda = 1.0;
    const auto d =
        linear_draws(*solver, spec, lambda, *r, PenaltyWeights::common, PenalizedSolution{}, false,
                     20000, 7, quench::RunContext::on_threads(1));
    const Eigen::VectorXd b = d.beta.col(0);
    const double se = std::sqrt((b.array() - b.mean()).square().mean() / b.size());
    EXPECT_NEAR(b.mean(), wbb_normal_means_mean(y0, lambda), 4 * se) << y0;
  }
}

Dataset diabetes() {
  DataSpec spec;
  spec.train_file = std::string(QUENCH_TEST_DATA) + "/diabetes.csv";
  spec.standardize_inputs = true;
  return load_dataset(spec);
}

TEST(Wbb, DrawsDoNotDependOnThreads) {
  const Dataset data = diabetes();
  LinearSpec spec{&data.X_train, &data.y_train, 1.0, true};
  const auto solver = cd();
  const auto r = weights(data.X_train.rows());
  PenalizedSolution start;
  WeightedLeastSquares base{&data.X_train,
                            &data.y_train,
                            Eigen::VectorXd::Ones(data.X_train.rows()),
                            Eigen::VectorXd::Constant(10, 500.0),
                            1.0,
                            true};
  solver->solve(base, start);
  const auto a = linear_draws(*solver, spec, 500.0, *r, PenaltyWeights::separate, start, true, 64,
                              11, quench::RunContext::on_threads(1));
  const auto b = linear_draws(*solver, spec, 500.0, *r, PenaltyWeights::separate, start, true, 64,
                              11, quench::RunContext::on_threads(2));
  EXPECT_EQ(a.beta, b.beta);
  EXPECT_EQ(a.intercept, b.intercept);
  // Warm and cold starts reach the same minimizer of the same weighted problem.
  const auto c = linear_draws(*solver, spec, 500.0, *r, PenaltyWeights::separate, start, false, 64,
                              11, quench::RunContext::on_threads(2));
  EXPECT_LT((a.beta - c.beta).cwiseAbs().maxCoeff(), 1e-3 * a.beta.cwiseAbs().maxCoeff());
}

TEST(Wbb, DiabetesEngineOutputs) {
  const Dataset data = diabetes();
  Problem problem;
  problem.data = &data;
  problem.resampler = weights(data.X_train.rows());
  problem.optimizer = cd();
  problem.seed = 3;
  WbbEngine engine(Params(WbbEngine::schema(), {{"draws", std::int64_t(200)}}));
  const Results r = engine.run(problem);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  const auto& draws = r.matrices.at("posterior_draws");
  EXPECT_EQ(draws.rows(), 200);
  EXPECT_EQ(draws.cols(), 10);
  const double lambda = r.scalars.at("lambda");
  EXPECT_GT(lambda, r.vectors.at("cv_lambda").minCoeff());
  EXPECT_LT(lambda, r.vectors.at("cv_lambda").maxCoeff());
  // bmi and ltg (s5) are the strongest effects: posterior mass away from zero, and the
  // posterior mean within a few sd of the unweighted solution.
  const auto& mean = r.vectors.at("posterior_mean");
  const auto& sd = r.vectors.at("posterior_sd");
  const auto& mode = r.vectors.at("posterior_mode");
  for (int j : {2, 8}) EXPECT_GT(r.vectors.at("posterior_lower")(j), 0.0);
  for (int j = 0; j < 10; ++j) EXPECT_LT(std::abs(mean(j) - mode(j)), 3 * sd(j) + 1e-9);
}

TEST(Wbb, NetworkAccuracyPosteriorIsThreadInvariant) {
  // 004 Sec. 3.4 on a small digits split: 300 training and 200 test images, a (16, 8) network.
  DataSpec spec;
  spec.train_file = std::string(QUENCH_TEST_DATA) + "/digits.csv";
  spec.split = SplitRule::first_train;
  spec.count = 300;
  Dataset data = load_dataset(spec);
  data.X_test = data.X_test.topRows(200).eval();
  data.y_test = data.y_test.head(200).eval();
  Problem problem;
  problem.data = &data;
  problem.resampler = weights(300);
  problem.optimizer = std::make_shared<optimizers::AdamOptimizer>(Params(
      optimizers::AdamOptimizer::schema(),
      {{"epochs", std::int64_t(10)}, {"learning_rate", 0.01}, {"batch_size", std::int64_t(50)}}));
  problem.seed = 4;
  WbbEngine engine(Params(WbbEngine::schema(), {{"model", std::string("network")},
                                                {"lambda", 1e-4},
                                                {"draws", std::int64_t(4)},
                                                {"hidden1", std::int64_t(16)},
                                                {"hidden2", std::int64_t(8)},
                                                {"penalty_weights", std::string("common")}}));
  problem.context.threads = 1;
  const Results a = engine.run(problem);
  problem.context.threads = 2;
  const Results b = engine.run(problem);
  EXPECT_EQ(a.vectors.at("test_accuracy_draws"), b.vectors.at("test_accuracy_draws"));
  // Ten classes: chance is 0.1; even this small network learns digits far above it.
  EXPECT_GT(a.scalars.at("test_accuracy_mean"), 0.6);
  EXPECT_LE(a.scalars.at("test_accuracy_lower"), a.scalars.at("test_accuracy_upper"));
}

// 004 Sec. 3.4 penalizes the weight matrices only: with the mask the objective minus the
// unpenalized loss is (penalty / 2) sum over weight entries of theta_j^2 (counted here by
// walking the layer layout W_1, b_1, W_2, b_2, W_3, b_3), and its gradient at the biases is
// the loss gradient alone.
TEST(Wbb, NetworkPenaltyCoversWeightMatricesOnly) {
  const Mlp net(3, 4, 5, 2);
  RngStream rng(8, 0);
  Eigen::VectorXd theta(net.parameter_count());
  for (Eigen::Index k = 0; k < theta.size(); ++k) theta(k) = rng.normal();
  Eigen::MatrixXd X(6, 3), Y = Eigen::MatrixXd::Zero(6, 2);
  for (Eigen::Index i = 0; i < 6; ++i) {
    for (Eigen::Index j = 0; j < 3; ++j) X(i, j) = rng.normal();
    Y(i, i % 2) = 1;
  }
  const Eigen::MatrixXd ones = Eigen::MatrixXd::Ones(6, 1);
  const double penalty = 0.7;
  const NetworkObjective objective(net, X, Y, ones, penalty, true);
  Eigen::VectorXd g_loss, g;
  const double loss = net.loss(theta, X, Y, ones, MlpHead::softmax_cross_entropy, &g_loss);
  double value = 0;
  ASSERT_TRUE(objective.evaluate(theta, &value, &g));
  const Eigen::Index sizes[4] = {3, 4, 5, 2};
  double weights_sq = 0;
  Eigen::Index k = 0;
  for (int l = 0; l < 3; ++l) {
    const Eigen::Index nw = sizes[l + 1] * sizes[l], nb = sizes[l + 1];
    weights_sq += theta.segment(k, nw).squaredNorm();
    EXPECT_LT((g.segment(k + nw, nb) - g_loss.segment(k + nw, nb)).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((g.segment(k, nw) - g_loss.segment(k, nw) - penalty * theta.segment(k, nw))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-12);
    k += nw + nb;
  }
  EXPECT_EQ(k, theta.size());
  EXPECT_NEAR(value - loss, 0.5 * penalty * weights_sq, 1e-12 * (1 + value));
}

}  // namespace
}  // namespace quench::wbb::wbb_test
