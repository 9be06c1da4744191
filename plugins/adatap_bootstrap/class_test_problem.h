// C-class test problems of the adatap_bootstrap tests: clouds of points around C centres, the
// multinomial probit, a Poisson bootstrap's occupation, tight solver options, and the checks of
// a run's model that both priors share.
#pragma once

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include "adatap_bootstrap.h"
#include "bootstrap_resamplers.h"
#include "class_model.h"
#include "model_round_trip.h"
#include "multiclass_ep.h"
#include "multinomial_probit_likelihood.h"
#include "quench/class_results.h"
#include "quench/dataset.h"
#include "test_kernel.h"

namespace quench::adatap::class_test {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// n points in 2-D around C centres on a circle of radius `spread`, labels i mod C.
inline void clouds(int n, int classes, double spread, unsigned seed, MatrixXd& X,
                   Eigen::VectorXi& y) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> g;
  X.resize(n, 2);
  y.resize(n);
  for (int i = 0; i < n; ++i) {
    y(i) = i % classes;
    const double angle = 2.0 * M_PI * y(i) / classes;
    X(i, 0) = spread * std::cos(angle) + g(gen);
    X(i, 1) = spread * std::sin(angle) + g(gen);
  }
}

inline MatrixXd gram(const MatrixXd& X, double amplitude, double length) {
  return testing::TestKernel(amplitude, length, 0.0).gram(X);
}

inline likelihoods::MultinomialProbitLikelihood probit_c() {
  return likelihoods::MultinomialProbitLikelihood(
      Params(likelihoods::MultinomialProbitLikelihood::schema(), {}));
}

// The engine's occupation pmf of a Poisson bootstrap at S/N = ratio, normalized over the kept k.
inline Occupation poisson(double ratio) {
  resamplers::PoissonBootstrap r(
      Params(resamplers::PoissonBootstrap::schema(), {{"ratio", ratio}}));
  r.prepare(10);
  return normalized_occupation(r, 1e-12);
}

inline GeneralOptions tight() {
  GeneralOptions o;
  o.tolerance = 1e-11;
  o.max_iterations = 2000;
  o.threads = 2;
  return o;
}

// A C-class problem for the engines: clouds, the multinomial probit, a Poisson bootstrap.
struct ClassProblem {
  Dataset data;
  Problem problem;
  ClassProblem(int n, int m, int classes, double ratio, unsigned seed) {
    Eigen::VectorXi y, yt;
    clouds(n, classes, 1.5, seed, data.X_train, y);
    clouds(m, classes, 1.5, seed + 1, data.X_test, yt);
    data.y_train = y.cast<double>();
    data.y_test = yt.cast<double>();
    data.classes = classes;
    for (int c = 0; c < classes; ++c) data.class_names.push_back(std::to_string(c));
    problem.data = &data;
    problem.kernel = std::make_shared<testing::TestKernel>(2.0, 1.0, 0.0);
    problem.likelihood = std::make_shared<likelihoods::MultinomialProbitLikelihood>(probit_c());
    auto r = std::make_shared<resamplers::PoissonBootstrap>(
        Params(resamplers::PoissonBootstrap::schema(), {{"ratio", ratio}}));
    r->prepare(n);
    problem.resampler = r;
    problem.seed = 13;
    problem.context.threads = 2;
    problem.context.make_engine = [](const std::string&) -> std::shared_ptr<InferenceEngine> {
      return std::make_shared<multiclass::MulticlassEpEngine>(
          Params(multiclass::MulticlassEpEngine::schema(), {}));
    };
  }
};

// A run's model (`kind`, 3 classes, 2-D inputs): at the training inputs eq M9 is the fixed
// point's m, V and C (another computation of M4: the means to `mean_tolerance`, the covariances
// to 1e-9), with a real bootstrap spread; through its file it predicts the same bits at 300 new
// inputs (two blocks); the run's test probabilities are its predictions.
inline void expect_model_is_the_fixed_point_and_survives_its_file(const ClassProblem& f,
                                                                  const Results& r,
                                                                  const std::string& kind,
                                                                  double mean_tolerance) {
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), kind);
  const auto& model = dynamic_cast<const ClassBootstrapModel&>(*r.model);
  const ClassPredictive at_train = model.latents(f.data.X_train);
  const auto max_abs = [](const MatrixXd& a) { return a.cwiseAbs().maxCoeff(); };
  EXPECT_LT(max_abs(at_train.mean - r.matrices.at("train_prediction_mean")), mean_tolerance);
  EXPECT_LT(max_abs(at_train.within - r.matrices.at("train_within_sample_covariance")), 1e-9);
  EXPECT_LT(max_abs(at_train.spread - r.matrices.at("train_prediction_covariance")), 1e-9);
  EXPECT_GT(max_abs(at_train.spread), 1e-3);  // a real bootstrap spread
  const auto loaded =
      testing::through_file(AdatapBootstrap(Params(AdatapBootstrap::schema(), {})), *r.model,
                            {f.problem.kernel, f.problem.likelihood, nullptr, &f.data.X_train});
  EXPECT_EQ(loaded->kind(), kind);
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-4, 4);
  MatrixXd X(300, 2);
  for (Index i = 0; i < X.size(); ++i) X(i) = u(gen);
  const Predictions p = r.model->predict(X), q = loaded->predict(X);
  EXPECT_EQ(p.columns.size(), 10u);  // 3 means, 3 probabilities, 3 variances, label
  EXPECT_TRUE(p.values == q.values);
  const Predictions t = r.model->predict(f.data.X_test);
  for (Index c = 0; c < 3; ++c)
    EXPECT_TRUE(t.column(class_column("probability", c)) ==
                r.matrices.at("prediction_probability").col(c));
}

}  // namespace quench::adatap::class_test
