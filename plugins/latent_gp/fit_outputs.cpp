#include "fit_outputs.h"

#include <cmath>
#include <string>
#include <utility>

#include "quench/target_prediction.h"

namespace quench::latent_gp {

namespace {

bool binary(const Likelihood& lik) { return lik.target_kind() == TargetKind::binary; }

}  // namespace

void add_loo_outputs(Results& r, const Likelihood& lik, const Observations& y,
                     const Eigen::VectorXd& m, const Eigen::VectorXd& v) {
  const Eigen::Index n = y.rows();
  if (binary(lik)) {
    double log_predictive = 0.0;
    for (Eigen::Index i = 0; i < n; ++i)
      log_predictive += lik.tilted_moments(y[i], m(i), v(i)).log_z;  // no log(1 - p) cancellation
    Predictions p;
    add_target_predictions(p, lik, m, v);
    r.vectors["loo_probability"] = p.column("probability");
    if (n > 0) r.scalars["loo_log_predictive"] = log_predictive / static_cast<double>(n);
    return;
  }
  const Eigen::VectorXd density = log_predictive_density(lik, y, m, v);
  Eigen::VectorXd mean(n);
  for (Eigen::Index i = 0; i < n; ++i) mean(i) = lik.predictive_moments(m(i), v(i), y[i].size).mean;
  r.vectors["loo_log_predictive_density"] = density;
  r.vectors["loo_mean"] = mean;
  if (n > 0) {
    r.scalars["loo_log_predictive"] = density.mean();
    r.scalars["loo_square_error"] = (mean - y.y).squaredNorm() / static_cast<double>(n);
  }
}

void add_fit(Results& r, const Likelihood& lik, const Observations& y, const MeanFieldFit& fit) {
  r.vectors["mean_field"] = fit.mean_field;
  r.vectors["cavity_mean"] = fit.cavity_mean;
  r.vectors["cavity_variance"] = fit.cavity_variance;
  if (binary(lik)) {
    const Eigen::VectorXd& t = y.y;
    r.vectors["alpha"] = t.cwiseProduct(fit.slope);           // 001's alpha = t u
    r.vectors["stability"] = t.cwiseProduct(fit.mean_field);  // t_i <h_i> (001 Fig. 3)
    r.scalars["loo_error"] = error_rate(t, fit.cavity_mean);  // eq 32
    r.scalars["loo_errors"] = static_cast<double>(error_count(t, fit.cavity_mean));
    add_loo_outputs(r, lik, y, fit.cavity_mean, fit.cavity_variance);
    r.scalars["train_error"] = error_rate(t, fit.mean_field);
  } else {
    r.vectors["mean_weights"] = fit.slope;
    add_loo_outputs(r, lik, y, fit.cavity_mean, fit.cavity_variance);
  }
  r.scalars["iterations"] = fit.status.iterations;
  r.status = fit.status;
}

void add_model_predictions(Results& r, const Problem& problem,
                           const std::function<std::shared_ptr<const Model>()>& make) {
  const Dataset& d = *problem.data;
  if (d.X_test.rows() == 0 && !problem.make_model) return;
  const std::shared_ptr<const Model> model = make();
  if (problem.make_model) r.model = model;
  if (d.X_test.rows() == 0) return;
  TargetQuery query;
  query.sizes = d.size_test;
  const Predictions p = model->predict(d.X_test, query);
  static const std::pair<const char*, const char*> kRenamed[] = {
      {"latent_mean", "test_mean_field"},
      {"decision", "test_mean_field"},
      {"latent_variance", "test_variance"},
      {"label", "test_class"}};
  for (std::size_t j = 0; j < p.columns.size(); ++j) {
    std::string name = "test_" + p.columns[j];
    for (const auto& [column, result] : kRenamed)
      if (p.columns[j] == column) name = result;
    r.vectors[name] = p.values.col(static_cast<Eigen::Index>(j));
  }
  if (d.y_test.size() != d.X_test.rows()) return;
  const Likelihood* lik = problem.likelihood.get();
  const Eigen::VectorXd& h = r.vectors.at("test_mean_field");
  if (!lik || binary(*lik)) {  // labels (an SVM has no likelihood)
    const Eigen::VectorXd t = class_labels(d, DataPart::test, "classifier");
    r.scalars["test_error"] = error_rate(t, h);
    r.scalars["test_errors"] = static_cast<double>(error_count(t, h));
    return;
  }
  const Observations y = observations(d, DataPart::test, *lik->target_kind(), "latent GP");
  const Eigen::VectorXd density = log_predictive_density(*lik, y, h, r.vectors.at("test_variance"));
  r.vectors["test_log_predictive_density"] = density;
  r.scalars["test_log_predictive"] = density.mean();
  r.scalars["test_square_error"] =
      (r.vectors.at("test_target_mean") - y.y).squaredNorm() / static_cast<double>(y.rows());
}

}  // namespace quench::latent_gp
