#include "exact_loo.h"

#include <chrono>
#include <cmath>
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
           std::string("tap"));
  return s;
}

ExactLooEngine::ExactLooEngine(const Params& p) : inner_(p.string("inner")) {}

Results ExactLooEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const std::shared_ptr<InferenceEngine> inner = inner_engine(problem.context.make_engine, inner_);
  const Dataset& d = *problem.data;
  const Eigen::Index n = d.X_train.rows();
  // Labels as the inner engine reads them: class indices of a classes target, else +-1.
  const Eigen::VectorXd t =
      d.classes > 0 ? Eigen::VectorXd(class_indices(d, DataPart::train, "exact_loo").cast<double>())
                    : class_labels(d, DataPart::train, "exact_loo");
  const Eigen::Index classes = d.classes;

  // The full-data fit: its built-in LOO and test error sit beside the exact LOO, its model is
  // the run's (read back by the inner engine, read_model).
  Results r = inner->run(problem);
  r.info["inner"] = inner_;

  // One unit per fold: its test error on the left-out point, the latent mean there (binary),
  // whether the retrain converged, and its predictive p(+1 | x_i) (NaN for a classifier
  // without one), or the C class probabilities at x_i (classes target).
  const UnitOutputs folds = map_units(
      static_cast<std::size_t>(n), 4 + static_cast<std::size_t>(classes), problem.context,
      [&](std::size_t k, Eigen::Ref<Eigen::VectorXd> out, std::string&) {
        const auto i = static_cast<Eigen::Index>(k);
        Dataset sub;
        sub.name = d.name;
        sub.input_names = d.input_names;
        sub.X_train.resize(n - 1, d.X_train.cols());
        sub.y_train.resize(n - 1);
        for (Eigen::Index j = 0, row = 0; j < n; ++j) {
          if (j == i) continue;
          sub.X_train.row(row) = d.X_train.row(j);
          sub.y_train(row++) = t(j);
        }
        sub.X_test = d.X_train.row(i);
        sub.y_test = Eigen::VectorXd::Constant(1, t(i));
        sub.classes = classes;
        sub.class_names = d.class_names;
        Problem p = problem;
        p.data = &sub;
        p.make_model = false;
        const Results ri = inner->run(p);
        const auto error = ri.scalars.find("test_error");  // absent when the retrain failed
        out(0) = error != ri.scalars.end() ? error->second : 1.0;
        if (classes > 0) {
          out(2) = ri.status.code == RunStatus::ok ? 0.0 : 1.0;
          const auto probability = ri.matrices.find("test_probability");
          if (probability != ri.matrices.end())
            out.tail(classes) = probability->second.row(0);
          else
            out.tail(classes).setConstant(std::numeric_limits<double>::quiet_NaN());
          return;
        }
        out(1) = ri.vectors.at("test_mean_field")(0);
        out(2) = ri.status.code == RunStatus::ok ? 0.0 : 1.0;
        const auto probability = ri.vectors.find("test_probability");
        out(3) = probability != ri.vectors.end() ? probability->second(0)
                                                 : std::numeric_limits<double>::quiet_NaN();
      });
  const double sum = folds.values.row(0).sum();
  const auto not_ok = static_cast<int>(folds.values.row(2).sum());
  r.scalars["exact_loo_error"] = n > 0 ? sum / static_cast<double>(n) : 0.0;
  r.scalars["exact_loo_errors"] = sum;
  if (classes > 0) {
    const Eigen::MatrixXd probability = folds.values.bottomRows(classes).transpose();
    if (probability.allFinite()) {  // beside the built-in one, from the retrains
      r.matrices["exact_loo_probability"] = probability;
      double log_p = 0.0;
      for (Eigen::Index i = 0; i < n; ++i)
        log_p += std::log(probability(i, static_cast<Eigen::Index>(t(i))));
      r.scalars["exact_loo_log_predictive"] = n > 0 ? log_p / static_cast<double>(n) : 0.0;
    }
  } else {
    r.vectors["exact_loo_mean_field"] = folds.values.row(1).transpose();
    if (r.vectors.count("loo_probability"))  // beside the built-in one, from the retrains
      r.vectors["exact_loo_probability"] = folds.values.row(3).transpose();
  }
  if (not_ok > 0 && r.status.code == RunStatus::ok)
    r.status = {RunStatus::not_converged,
                std::to_string(not_ok) + " of " + std::to_string(n) +
                    " leave-one-out retrains did not converge",
                r.status.iterations};
  r.timings["exact_loo"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::unique_ptr<Model> ExactLooEngine::read_model(ModelArchive& archive,
                                                  const ModelParts& parts) const {
  return inner_engine(parts.make_engine, inner_)->read_model(archive, parts);
}

}  // namespace quench::exact_loo
