#include "exact_loo.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "quench/errors.h"

namespace quench::exact_loo {

namespace {

// The inner engine through the host's engines.
std::shared_ptr<InferenceEngine> inner_engine(const EngineFactory& engines,
                                              const std::string& name) {
  if (!engines) throw ConfigError({}, "exact_loo needs the host to create its inner engine");
  return engines(name);
}

}  // namespace

ParamSchema ExactLooEngine::schema() {
  ParamSchema s;
  s.plugin("inner", "engine", "classifier engine to retrain (default parameters)",
           std::string("tap"))
      .integer("rows",
               "leave out only this many training rows, evenly spaced over the row order "
               "(0: every row); for a cheaper check of the built-in leave-one-out at large N",
               0, 0);
  return s;
}

ExactLooEngine::ExactLooEngine(const Params& p)
    : inner_(p.string("inner")), rows_(p.integer("rows")) {}

namespace {

// Rows floor(j n / count), j = 0..count-1: every row when count is 0 or at least n.
std::vector<Eigen::Index> left_out_rows(Eigen::Index n, std::int64_t count) {
  const Eigen::Index k = count <= 0 || count >= n ? n : static_cast<Eigen::Index>(count);
  std::vector<Eigen::Index> rows(static_cast<std::size_t>(k));
  for (Eigen::Index j = 0; j < k; ++j)
    rows[static_cast<std::size_t>(j)] = static_cast<Eigen::Index>(
        static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(k));
  return rows;
}

}  // namespace

void ExactLooEngine::check(const Problem& problem, Eigen::Index inducing_count) const {
  inner_engine(problem.context.make_engine, inner_)->check(problem, inducing_count);
}

Results ExactLooEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const std::shared_ptr<InferenceEngine> inner = inner_engine(problem.context.make_engine, inner_);
  const Dataset& d = *problem.data;
  const Eigen::Index n = d.X_train.rows();
  const Eigen::Index classes = d.classes;
  // How the targets are scored: class indices, labels (a binary likelihood, or none: the SVM
  // limit), or the predictive of any other likelihood.
  const Likelihood* lik = problem.likelihood.get();
  const bool labels = classes == 0 && (!lik || lik->target_kind() == TargetKind::binary);
  const Eigen::VectorXd t =
      classes > 0 ? Eigen::VectorXd(class_indices(d, DataPart::train, "exact_loo").cast<double>())
      : labels    ? class_labels(d, DataPart::train, "exact_loo")
                  : d.y_train;

  // The full-data fit: its built-in LOO and test error sit beside the exact LOO, its model is
  // the run's (read back by the inner engine, read_model).
  Results r = inner->run(problem);
  r.info["inner"] = inner_;

  const std::vector<Eigen::Index> left_out = left_out_rows(n, rows_);
  const auto folds_n = static_cast<Eigen::Index>(left_out.size());
  const Eigen::VectorXd t_left = t(left_out);
  // One unit per fold (the training rows without row i; row i the test row): the retrain's test
  // error there (labels and classes), its latent mean (labels), whether it converged, its
  // predictive p(+1 | x_i) (labels; NaN for a classifier without one) or log p(y_i | D without
  // i) and the predictive mean of y_i (other likelihoods), or the C class probabilities at x_i.
  const UnitOutputs folds = map_units(
      left_out.size(), 5 + static_cast<std::size_t>(classes), problem.context,
      [&](std::size_t k, Eigen::Ref<Eigen::VectorXd> out, std::string&) {
        const Eigen::Index i = left_out[k];
        std::vector<Eigen::Index> rest;
        for (Eigen::Index j = 0; j < n; ++j)
          if (j != i) rest.push_back(j);
        Dataset sub = d;
        sub.X_train = d.X_train(rest, Eigen::all);
        sub.y_train = t(rest);
        sub.train_rows.clear();
        sub.X_test = d.X_train.row(i);
        sub.y_test = Eigen::VectorXd::Constant(1, t(i));
        sub.test_rows.clear();
        if (d.size_train.size()) {
          sub.size_train = d.size_train(rest);
          sub.size_test = d.size_train.segment(i, 1);
        }
        Problem p = problem;
        p.data = &sub;
        p.make_model = false;
        const Results ri = inner->run(p);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const auto scalar = [&](const char* name) {
          const auto it = ri.scalars.find(name);
          return it != ri.scalars.end() ? it->second : nan;
        };
        const auto first = [&](const char* name) {
          const auto it = ri.vectors.find(name);
          return it != ri.vectors.end() ? it->second(0) : nan;
        };
        const double error = scalar("test_error");  // absent when the retrain failed
        out(0) = std::isnan(error) ? 1.0 : error;
        out(2) = ri.status.code == RunStatus::ok ? 0.0 : 1.0;
        if (classes > 0) {
          const auto probability = ri.matrices.find("test_probability");
          if (probability != ri.matrices.end())
            out.tail(classes) = probability->second.row(0);
          else
            out.tail(classes).setConstant(nan);
          return;
        }
        out(1) = first("test_mean_field");
        out(3) = labels ? first("test_probability") : first("test_log_predictive_density");
        out(4) = first("test_target_mean");
      });
  const auto not_ok = static_cast<int>(folds.values.row(2).sum());
  if (labels || classes > 0) {
    const double sum = folds.values.row(0).sum();
    r.scalars["exact_loo_error"] = folds_n > 0 ? sum / static_cast<double>(folds_n) : 0.0;
    r.scalars["exact_loo_errors"] = sum;
  }
  if (classes > 0) {
    const Eigen::MatrixXd probability = folds.values.bottomRows(classes).transpose();
    if (probability.allFinite()) {  // beside the built-in one, from the retrains
      r.matrices["exact_loo_probability"] = probability;
      double log_p = 0.0;
      for (Eigen::Index i = 0; i < folds_n; ++i)
        log_p += std::log(probability(i, static_cast<Eigen::Index>(t_left(i))));
      r.scalars["exact_loo_log_predictive"] =
          folds_n > 0 ? log_p / static_cast<double>(folds_n) : 0.0;
    }
  } else if (labels) {
    r.vectors["exact_loo_mean_field"] = folds.values.row(1).transpose();
    if (r.vectors.count("loo_probability"))  // beside the built-in one, from the retrains
      r.vectors["exact_loo_probability"] = folds.values.row(3).transpose();
  } else {
    // The retrains' log predictive densities and predictive means of the left-out targets,
    // beside the built-in loo_log_predictive_density and loo_mean.
    const Eigen::VectorXd density = folds.values.row(3).transpose();
    const Eigen::VectorXd mean = folds.values.row(4).transpose();
    r.vectors["exact_loo_mean_field"] = folds.values.row(1).transpose();
    if (density.allFinite() && folds_n > 0) {
      r.vectors["exact_loo_log_predictive_density"] = density;
      r.scalars["exact_loo_log_predictive"] = density.mean();
      // The built-in estimate on the same rows against the retrains (mean absolute difference).
      const auto builtin = r.vectors.find("loo_log_predictive_density");
      if (builtin != r.vectors.end() && builtin->second.size() == n)
        r.scalars["loo_log_predictive_difference"] =
            (builtin->second(left_out) - density).cwiseAbs().mean();
    }
    if (mean.allFinite() && folds_n > 0) {
      r.vectors["exact_loo_mean"] = mean;
      r.scalars["exact_loo_square_error"] =
          (mean - t_left).squaredNorm() / static_cast<double>(folds_n);
    }
  }
  if (not_ok > 0 && r.status.code == RunStatus::ok)
    r.status = {RunStatus::not_converged,
                std::to_string(not_ok) + " of " + std::to_string(folds_n) +
                    " leave-one-out retrains did not converge",
                r.status.iterations};
  if (folds_n < n) {
    Eigen::VectorXd rows(folds_n);
    for (Eigen::Index j = 0; j < folds_n; ++j) rows(j) = static_cast<double>(left_out[j]);
    r.vectors["exact_loo_rows"] = rows;
  }
  r.timings["exact_loo"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::unique_ptr<Model> ExactLooEngine::read_model(ModelArchive& archive,
                                                  const ModelParts& parts) const {
  return inner_engine(parts.make_engine, inner_)->read_model(archive, parts);
}

}  // namespace quench::exact_loo
