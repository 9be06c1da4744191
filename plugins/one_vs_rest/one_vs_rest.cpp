#include "one_vs_rest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "one_vs_rest_model.h"
#include "quench/class_kernels.h"
#include "quench/class_results.h"
#include "quench/errors.h"

namespace quench::one_vs_rest {

namespace {

Eigen::VectorXd against_rest(const Eigen::VectorXd& y, Eigen::Index c) {
  return (y.array() == static_cast<double>(c))
      .select(1.0, Eigen::VectorXd::Constant(y.size(), -1.0));
}

// The sum over the C binary problems of the inner engine's objective: class c's problem on
// class c's kernel (quench/class_kernels.h; one kernel shared by every class: the gradient
// summed), the likelihood's hyperparameters shared (their gradient summed, after the kernels').
class SummedObjective final : public HyperparameterObjective {
 public:
  SummedObjective(std::vector<std::unique_ptr<Dataset>> data,
                  std::vector<std::unique_ptr<HyperparameterObjective>> parts)
      : data_(std::move(data)), parts_(std::move(parts)) {}
  std::string quantity() const override { return parts_.front()->quantity(); }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override {
    ObjectiveValue sum;
    sum.value = 0.0;
    if (const std::string why =
            class_kernels_mismatch(kernel, static_cast<Eigen::Index>(parts_.size()));
        !why.empty()) {
      sum.status = {RunStatus::failed, "one_vs_rest: " + why, 0};
      return sum;
    }
    const Eigen::Index shared = flat_size(likelihood.hyperparameters());
    Eigen::VectorXd likelihood_gradient = Eigen::VectorXd::Zero(shared);
    std::optional<ObjectiveValue> failed;
    // Class c's objective on `of`: its kernel entries (the likelihood's summed aside); after a
    // failure, nothing more is evaluated.
    const auto part = [&](const Kernel& of, std::size_t c) -> Eigen::VectorXd {
      if (failed) return Eigen::VectorXd::Zero(flat_size(of.hyperparameters()));
      ObjectiveValue v = parts_[c]->evaluate(of, likelihood);
      if (v.status.code != RunStatus::ok) {
        v.status.message = "class " + std::to_string(c) + " against the rest: " + v.status.message;
        failed = std::move(v);
        return Eigen::VectorXd::Zero(flat_size(of.hyperparameters()));
      }
      sum.value += v.value;
      likelihood_gradient += v.gradient.tail(shared);
      return v.gradient.head(v.gradient.size() - shared);
    };
    const Eigen::VectorXd kernel_gradient =
        class_kernels_gradient(kernel, [&](const Kernel& of, Eigen::Index c) {
          if (c >= 0) return part(of, static_cast<std::size_t>(c));
          Eigen::VectorXd g = part(of, 0);
          for (std::size_t k = 1; k < parts_.size(); ++k) g += part(of, k);
          return g;
        });
    if (failed) return *failed;
    sum.gradient.resize(kernel_gradient.size() + shared);
    sum.gradient << kernel_gradient, likelihood_gradient;
    return sum;
  }

 private:
  std::vector<std::unique_ptr<Dataset>> data_;  // the parts' training data
  std::vector<std::unique_ptr<HyperparameterObjective>> parts_;
};

}  // namespace

Dataset one_class_against_rest(const Dataset& data, Eigen::Index c) {
  Dataset d = data;
  d.y_train = against_rest(data.y_train, c);
  if (data.y_test.size() > 0) d.y_test = against_rest(data.y_test, c);
  d.classes = 0;
  d.class_names.clear();
  return d;
}

ParamSchema OneVsRestEngine::schema() {
  ParamSchema s;
  s.plugin("inner", "engine", "binary classifier engine trained per class (default parameters)",
           std::string("ep"));
  return s;
}

OneVsRestEngine::OneVsRestEngine(const Params& p) : inner_(p.string("inner")) {}

std::shared_ptr<InferenceEngine> OneVsRestEngine::inner(const EngineFactory& engines) const {
  if (!engines) throw ConfigError({}, "one_vs_rest needs the host to create its inner engine");
  return engines(inner_);
}

void OneVsRestEngine::check(const Problem& problem, Eigen::Index inducing_count) const {
  const std::shared_ptr<InferenceEngine> engine = inner(problem.context.make_engine);
  if (problem.data->classes < 2) return;  // refused where the target is read
  const Eigen::Index kernels = problem.kernel ? kernel_classes(*problem.kernel) : 0;
  if (const std::string why =
          problem.kernel ? class_kernels_mismatch(*problem.kernel, problem.data->classes) : "";
      !why.empty())
    throw ConfigError({}, "one_vs_rest: " + why);
  const Dataset binary = one_class_against_rest(*problem.data, 0);
  for (Eigen::Index c = 0; c < std::max<Eigen::Index>(1, kernels); ++c) {
    Problem p = problem;
    p.data = &binary;
    if (problem.kernel) p.kernel = class_kernel(problem.kernel, c);
    engine->check(p, inducing_count);
  }
}

Results OneVsRestEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const std::shared_ptr<InferenceEngine> engine = inner(problem.context.make_engine);
  const Dataset& d = *problem.data;
  const Eigen::VectorXi y = class_indices(d, DataPart::train, "one_vs_rest");
  const Eigen::Index classes = d.classes;
  Results r;
  std::vector<Predictions> loo(static_cast<std::size_t>(classes));
  std::vector<std::shared_ptr<const Model>> models;
  Eigen::VectorXd iterations(classes), evidence(classes);
  bool all_evidence = true;
  for (Eigen::Index c = 0; c < classes; ++c) {
    const Dataset binary = one_class_against_rest(d, c);
    Problem p = problem;
    p.data = &binary;
    p.kernel = class_kernel(problem.kernel, c);
    p.make_model = problem.make_model || d.X_test.rows() > 0;
    p.context.progress = nullptr;
    const Results rc = engine->run(p);
    if (rc.status.code != RunStatus::ok && r.status.code == RunStatus::ok)
      r.status = {rc.status.code,
                  "class " + std::to_string(c) + " against the rest: " + rc.status.message,
                  rc.status.iterations};
    const auto it = rc.scalars.find("iterations");
    iterations(c) = it != rc.scalars.end() ? it->second : 0.0;
    const auto lz = rc.scalars.find("log_evidence");
    all_evidence = all_evidence && lz != rc.scalars.end();
    evidence(c) = all_evidence ? lz->second : 0.0;
    // The built-in LOO of the binary problem at every training point, as predictions.
    Predictions& l = loo[static_cast<std::size_t>(c)];
    const auto p_loo = rc.vectors.find("loo_probability");
    if (p_loo != rc.vectors.end())
      l.add("probability", p_loo->second);
    else
      l.add("decision", rc.vectors.at("cavity_mean"));
    if (p.make_model) {
      if (!rc.model)
        throw ConfigError({}, "one_vs_rest: the inner engine '" + inner_ + "' makes no models");
      models.push_back(rc.model);
    }
    if (problem.context.progress)
      problem.context.progress(static_cast<double>(c + 1) / static_cast<double>(classes));
  }
  bool probabilities = false;
  const Eigen::MatrixXd loo_scores = one_vs_rest_scores(loo, probabilities);
  if (probabilities) {
    add_class_loo_outputs(r, y, loo_scores);
  } else {
    const auto errors = (row_argmax(loo_scores).array() != y.array()).count();
    r.scalars["loo_errors"] = static_cast<double>(errors);
    r.scalars["loo_error"] = static_cast<double>(errors) / static_cast<double>(y.size());
  }
  r.vectors["class_iterations"] = iterations;
  if (all_evidence) {
    r.vectors["class_log_evidence"] = evidence;
    r.scalars["log_evidence"] = evidence.sum();  // the C binary problems are independent
  }
  r.scalars["classes"] = static_cast<double>(classes);
  if (!models.empty()) {
    auto model = std::make_shared<const OneVsRestModel>(std::move(models));
    if (d.X_test.rows() > 0) {
      const Predictions p = model->predict(d.X_test);
      if (probabilities) {
        add_class_test_outputs(r, d, class_probabilities(p, classes));
      } else {
        Eigen::MatrixXd scores(p.values.rows(), classes);
        for (Eigen::Index c = 0; c < classes; ++c)
          scores.col(c) = p.column("decision." + std::to_string(c));
        r.vectors["test_class"] = row_argmax(scores).cast<double>();
        if (d.y_test.size() == d.X_test.rows()) {
          const auto errors = (row_argmax(scores).array() !=
                               class_indices(d, DataPart::test, "one_vs_rest").array())
                                  .count();
          r.scalars["test_errors"] = static_cast<double>(errors);
          r.scalars["test_error"] =
              static_cast<double>(errors) / static_cast<double>(d.X_test.rows());
        }
      }
    }
    if (problem.make_model) r.model = std::move(model);
  }
  r.info["method"] = "one-vs-rest over " + inner_;
  r.info["inner"] = inner_;
  r.timings["fit"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<std::string> OneVsRestEngine::hyperparameter_objectives(const EngineFactory& engines,
                                                                    PriorKind prior) const {
  return engines ? inner(engines)->hyperparameter_objectives(engines, prior)
                 : std::vector<std::string>{};
}

std::unique_ptr<HyperparameterObjective> OneVsRestEngine::hyperparameter_objective(
    const Problem& problem, const std::string& name) const {
  const std::shared_ptr<InferenceEngine> engine = inner(problem.context.make_engine);
  class_indices(*problem.data, DataPart::train, "one_vs_rest");
  std::vector<std::unique_ptr<Dataset>> data;
  std::vector<std::unique_ptr<HyperparameterObjective>> parts;
  for (Eigen::Index c = 0; c < problem.data->classes; ++c) {
    data.push_back(std::make_unique<Dataset>(one_class_against_rest(*problem.data, c)));
    Problem p = problem;
    p.data = data.back().get();
    parts.push_back(engine->hyperparameter_objective(p, name));
  }
  return std::make_unique<SummedObjective>(std::move(data), std::move(parts));
}

std::unique_ptr<Model> OneVsRestEngine::read_model(ModelArchive& archive,
                                                   const ModelParts& parts) const {
  const std::shared_ptr<InferenceEngine> engine = inner(parts.make_engine);
  if (parts.kernel)
    if (const std::string why =
            class_kernels_mismatch(*parts.kernel, archive.integer("posterior/classes"));
        !why.empty())
      throw archive.error("entry 'posterior/classes': " + why);
  return OneVsRestModel::read(archive, [&](ModelArchive& own, Eigen::Index c) {
    ModelParts own_parts = parts;
    if (parts.kernel) own_parts.kernel = class_kernel(parts.kernel, c);
    return engine->read_model(own, own_parts);
  });
}

}  // namespace quench::one_vs_rest
