// The multi-class tests' data, sites and shared checks: C Gaussian clouds in 2-D, random sites of
// the nested-EP form, the multinomial probit likelihood with its defaults, an evidence gradient
// against central differences and a saved model against the fit.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Core>

#include "multiclass_model.h"
#include "multinomial_probit_likelihood.h"
#include "quench/class_likelihood.h"
#include "quench/dataset.h"
#include "quench/hyperparameter_objective.h"
#include "quench/inducing_points.h"
#include "quench/inference_engine.h"
#include "quench/model_archive.h"
#include "quench/parameters.h"
#include "test_kernel.h"

namespace quench::multiclass::test_support {

using testing::TestKernel;

// n points in 2-D around C centres on a circle (radius `spread`), labels i mod C.
inline Dataset class_clouds(int n, int n_test, int classes, double spread, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> g;
  const auto fill = [&](Eigen::MatrixXd& X, Eigen::VectorXd& y, int count) {
    X.resize(count, 2);
    y.resize(count);
    for (int i = 0; i < count; ++i) {
      const int c = i % classes;
      const double angle = 2.0 * M_PI * c / classes;
      y(i) = c;
      X(i, 0) = spread * std::cos(angle) + g(gen);
      X(i, 1) = spread * std::sin(angle) + g(gen);
    }
  };
  Dataset d;
  fill(d.X_train, d.y_train, n);
  fill(d.X_test, d.y_test, n_test);
  d.classes = classes;
  for (int c = 0; c < classes; ++c) d.class_names.push_back(std::to_string(c));
  return d;
}

// Every `step`-th training input as inducing inputs of `form`.
inline std::shared_ptr<InducingInputs> every(const Dataset& d, int step, LowRankForm form) {
  auto z = std::make_shared<InducingInputs>();
  z->form = form;
  z->Z.resize((d.X_train.rows() + step - 1) / step, d.X_train.cols());
  for (Eigen::Index i = 0; i < z->Z.rows(); ++i) z->Z.row(i) = d.X_train.row(i * step);
  return z;
}

inline Eigen::VectorXi labels_of(const Dataset& d) { return d.y_train.cast<int>(); }

// Random sites of the nested-EP form for labels y.
inline void random_sites(const Eigen::VectorXi& y, Eigen::Index C, unsigned seed,
                         Eigen::MatrixXd& pi, Eigen::MatrixXd& h) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.05, 3.0), v(-2.0, 2.0);
  std::vector<ClassSite> sites;
  pi.resize(y.size(), C);
  h.resize(y.size(), C);
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    ClassSite s = ClassSite::zero(C);
    for (Eigen::Index c = 0; c < C; ++c)
      if (c != y(i)) {
        s.tau(c) = u(gen);
        s.nu(c) = v(gen);
      }
    const ClassSiteForm f = class_site_form(y(i), s);
    pi.row(i) = f.pi.transpose();
    h.row(i) = f.h.transpose();
  }
}

inline std::shared_ptr<likelihoods::MultinomialProbitLikelihood> probit_c() {
  return std::make_shared<likelihoods::MultinomialProbitLikelihood>(
      Params(likelihoods::MultinomialProbitLikelihood::schema(), {}));
}

// max |a - b| relative to max(1, max |b|).
inline double max_relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// The objective's gradient at TestKernel(theta) against central differences of its values
// (relative step 1e-5: truncation ~1e-10 and rounding ~1e-11 relative for fits to 1e-12, so
// 1e-6 relative, absolute below 1, is a bound with margin).
inline void expect_gradient_matches_central_differences(HyperparameterObjective& objective,
                                                        const Likelihood& lik,
                                                        const double (&theta)[3]) {
  const ObjectiveValue v = objective.evaluate(TestKernel(theta[0], theta[1], theta[2]), lik);
  ASSERT_EQ(v.status.code, RunStatus::ok) << v.status.message;
  const char* names[] = {"amplitude", "length_scale", "noise"};
  for (int j = 0; j < 3; ++j) {
    const double step = 1e-5 * theta[j];
    double values[2];
    for (int s = 0; s < 2; ++s) {
      TestKernel moved(theta[0], theta[1], theta[2]);
      moved.set_hyperparameter(names[j],
                               Eigen::VectorXd::Constant(1, theta[j] + (s ? step : -step)));
      const ObjectiveValue w = objective.evaluate(moved, lik);
      ASSERT_EQ(w.status.code, RunStatus::ok);
      values[s] = w.value;
    }
    const double fd = (values[1] - values[0]) / (2 * step);
    EXPECT_NEAR(v.gradient(j), fd, 1e-6 * std::max(1.0, std::abs(fd))) << names[j];
  }
}

// A run's model written and read back by `engine` predicts the same bits at the test inputs,
// and those are the run's test probabilities (C classes).
inline void expect_saved_model_predicts_bitwise(const InferenceEngine& engine, const Results& r,
                                                const Problem& p, Eigen::Index classes) {
  ASSERT_TRUE(r.model);
  ModelArchive archive;
  r.model->write(archive);
  const ModelParts parts{p.kernel, p.likelihood, nullptr, &p.data->X_train};
  const auto loaded = engine.read_model(archive, parts);
  const Predictions a = r.model->predict(p.data->X_test), b = loaded->predict(p.data->X_test);
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ((a.values - b.values).cwiseAbs().maxCoeff(), 0.0);
  const Eigen::MatrixXd probability = class_probabilities(a, classes);
  EXPECT_LT((probability.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
  EXPECT_EQ(r.matrices.at("test_probability"), probability);
}

}  // namespace quench::multiclass::test_support
