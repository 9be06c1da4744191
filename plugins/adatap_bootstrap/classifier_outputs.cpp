#include "classifier_outputs.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "quench/gauss_hermite.h"
#include "quench/normal.h"
#include "quench/target_prediction.h"

namespace quench::adatap {

double gaussian_error(double y, double mean, double sd) {
  return sd > 0 ? normal_cdf(-y * mean / sd) : (y * mean < 0 ? 1.0 : 0.0);
}

ClassifierModelMaker dense_classifier_model(const Problem& problem, GeneralSolution& sol,
                                            AdatapModel::Form form) {
  return [&problem, &sol, form]() -> std::shared_ptr<const Model> {
    const bool classifier = form == AdatapModel::Form::classifier;
    return std::make_shared<const AdatapModel>(
        problem.kernel, problem.data->X_train, std::move(sol.G), sol.dl, sol.gamma, sol.lam,
        problem.resampler->expected_size(), form, classifier ? problem.likelihood : nullptr);
  };
}

namespace {

// Gauss-Hermite nodes of the average over a left-out predictor's bootstrap distribution.
constexpr int kLossNodes = 32;

// The losses of a left-out point's predictive averaged over its predictor's bootstrap
// distribution: f^_i given k_i = 0 is N(gamma_c / Delta lambda_c, -lambda_c / Delta lambda_c^2)
// over the samples that leave i out, and its within-sample variance 1 / Delta lambda_c (000 eqs
// 26, 35-37: the replica cavity), so -log p(y_i | D) and (y_i - E[y_i | D])^2 averaged over
// u ~ N(0, 1) at f^_i = mean + sd u.
struct LeftOutLosses {
  Eigen::VectorXd log_predictive, square;
};
LeftOutLosses left_out_losses(const Likelihood& lik, const Observations& y,
                              const GeneralSolution& sol) {
  const GaussHermiteRule& rule = gauss_hermite(kLossNodes);
  const Eigen::Index n = y.rows();
  LeftOutLosses l{Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    const double v = 1.0 / sol.dlc(i), mean = sol.gammac(i) * v;
    const double sd = std::sqrt(std::max(-sol.lamc(i), 0.0)) * v;
    for (std::size_t j = 0; j < rule.nodes.size(); ++j) {
      const double f = mean + sd * rule.nodes[j];
      const double predicted = lik.predictive_moments(f, v, y[i].size).mean;
      l.log_predictive(i) += rule.weights[j] * lik.tilted_moments(y[i], f, v).log_z;
      l.square(i) += rule.weights[j] * (y.y(i) - predicted) * (y.y(i) - predicted);
    }
  }
  return l;
}

}  // namespace

Results classifier_results(const Problem& problem, const Observations& y,
                           const GeneralSolution& sol, AdatapModel::Form form,
                           const ClassifierModelMaker& make_model) {
  const Dataset& data = *problem.data;
  const Eigen::Index n = y.rows(), m = data.X_test.rows();
  const bool classifier = form == AdatapModel::Form::classifier;
  const bool labels = !classifier || problem.likelihood->target_kind() == TargetKind::binary;
  Results r;
  if (labels) {
    // Eq 18: f^_i given k_i = 0 is N(gamma_c / Delta lambda_c, -lambda_c / Delta lambda_c^2); the
    // 0/1 loss averaged over it. Eq 20: the predictive probability of the left-out label.
    Eigen::VectorXd left_out_error(n), left_out_probability(classifier ? n : 0);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double v = 1.0 / sol.dlc(i), mean = sol.gammac(i) * v;
      const double sd = std::sqrt(std::max(-sol.lamc(i), 0.0)) * v;
      left_out_error(i) = gaussian_error(y.y(i), mean, sd);
      if (classifier)
        left_out_probability(i) =
            std::exp(problem.likelihood->tilted_moments(y[i], mean, v + sd * sd).log_z);
    }
    r.scalars["bootstrap_error"] = left_out_error.mean();
    r.vectors["left_out_error"] = left_out_error;
    if (classifier) r.vectors["left_out_probability"] = left_out_probability;
  } else {
    const LeftOutLosses l = left_out_losses(*problem.likelihood, y, sol);
    r.scalars["test_error_log_predictive"] = -l.log_predictive.mean();
    r.scalars["test_error_square"] = l.square.mean();
    r.scalars["test_error_points"] = static_cast<double>(n);
    r.vectors["left_out_log_predictive"] = l.log_predictive;
  }
  r.scalars["expected_sample_size"] = problem.resampler->expected_size();
  r.scalars["iterations"] = sol.iterations;
  r.scalars["final_change"] = sol.final_change;
  r.vectors["train_prediction_mean"] = sol.m;      // eq 39
  r.vectors["train_prediction_variance"] = sol.C;  // eq 40
  if (classifier) r.vectors["train_within_sample_variance"] = sol.V;
  r.vectors["delta_lambda"] = sol.dl;
  r.vectors["delta_lambda_c"] = sol.dlc;
  r.vectors["gamma_c"] = sol.gammac;
  r.vectors["lambda_c"] = sol.lamc;
  if (sol.converged && (m > 0 || problem.make_model)) {
    const std::shared_ptr<const Model> model = make_model();
    if (m > 0) {  // eqs 19, 21; eq 22 where the test labels are known
      TargetQuery query;
      query.sizes = data.size_test;
      const Predictions p = model->predict(data.X_test, query);
      const Eigen::VectorXd mean = p.column("bootstrap_mean");
      const Eigen::VectorXd variance = p.column("bootstrap_variance");
      r.vectors["prediction_mean"] = mean;
      r.vectors["prediction_variance"] = variance;
      for (std::size_t j = 0; j < p.columns.size(); ++j) {
        const std::string& c = p.columns[j];
        if (c == "bootstrap_mean" || c == "bootstrap_variance" || c == "within_sample_variance")
          continue;
        r.vectors[c == "label" ? "test_class" : "prediction_" + c] =
            p.values.col(static_cast<Eigen::Index>(j));
      }
      if (labels && data.y_test.size() == m) {
        const Eigen::VectorXd t = class_labels(data, DataPart::test, "adatap_bootstrap");
        Eigen::VectorXd errors(m);
        for (Eigen::Index i = 0; i < m; ++i)
          errors(i) = gaussian_error(t(i), mean(i), std::sqrt(std::max(variance(i), 0.0)));
        r.vectors["test_bootstrap_errors"] = errors;
        r.scalars["test_bootstrap_error"] = errors.mean();
      }
    }
    if (problem.make_model) r.model = model;
  }
  r.status.iterations = sol.iterations;
  if (!sol.converged) r.status = Status{RunStatus::not_converged, sol.message, sol.iterations};
  return r;
}

}  // namespace quench::adatap
