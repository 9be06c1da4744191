// The multiclass_ep engine: nested EP (multiclass_ep.h) on the pipeline's data, its built-in
// leave-one-out, log Z_EP with its gradient for `learn:`, and its model.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "class_loo_objective.h"
#include "inducing_multiclass_model.h"
#include "multiclass_ep.h"
#include "multiclass_model.h"
#include "multiclass_prior.h"
#include "quench/class_kernels.h"
#include "quench/drawn_points.h"
#include "quench/errors.h"
#include "quench/memory_budget.h"

namespace quench::multiclass {

namespace {

// A learning objective evaluated at nested EP's fixed point on the exact prior or, with inducing
// inputs, on the inducing-point prior (multiclass_prior.h; the inputs stay where the run chose
// them), each evaluation warm-started from the sites of the best value so far (cold again,
// within the same max_iterations, when that fails): a line-search step that overshoots does not
// become the next start.
class ClassFitObjective : public HyperparameterObjective {
 public:
  /// The fits sweep to `fit_tol`.
  ClassFitObjective(const Problem& problem, MulticlassEpOptions options, double fit_tol)
      : X_(problem.data->X_train),
        y_(class_indices(*problem.data, DataPart::train, "multiclass_ep")),
        classes_(problem.data->classes),
        inducing_(problem.inducing),
        threads_(problem.context.threads),
        options_(std::move(options)) {
    require_class_likelihood(problem.likelihood.get(), "multiclass_ep");
    options_.progress = nullptr;
    options_.tol = fit_tol;
  }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override {
    const ClassLikelihood* lik = likelihood.classes();
    if (!lik) throw ConfigError({}, "multiclass_ep: the likelihood is not multi-class");
    if (!likelihood.hyperparameters().empty())
      throw ConfigError({},
                        "multiclass_ep: learning the likelihood's hyperparameters is not "
                        "supported");
    ObjectiveValue out;
    try {
      const std::unique_ptr<MulticlassPrior> prior =
          make_multiclass_prior(kernel, X_, inducing_.get(), threads_);
      last_ = solve_multiclass_ep(prior->classes(), y_, classes_, *lik, options_,
                                  best_ ? &*best_ : nullptr);
      out.status = last_.status;
      if (last_.status.code != RunStatus::ok) return out;
      const Status fit_status = out.status;
      out = at_fixed_point(kernel, *prior, *lik, last_);
      if (out.status.code == RunStatus::ok) out.status = fit_status;
    } catch (const NumericalError& e) {
      out.status = {RunStatus::failed, e.what(), 0};
      return out;
    }
    if (out.status.code != RunStatus::ok) return out;
    if (!std::isfinite(out.value) || !out.gradient.allFinite()) {
      out.status = {RunStatus::failed, quantity() + " or its gradient is not finite", 0};
      return out;
    }
    if (!best_ || out.value > best_value_) {
      best_value_ = out.value;
      best_ = std::move(last_);
    }
    return out;
  }

 protected:
  /// The value and gradient at the converged fit on `prior`.
  virtual ObjectiveValue at_fixed_point(const Kernel& kernel, const MulticlassPrior& prior,
                                        const ClassLikelihood& likelihood,
                                        const MulticlassFit& fit) const = 0;
  const Eigen::MatrixXd& inputs() const { return X_; }
  const Eigen::VectorXi& labels() const { return y_; }
  int threads() const { return threads_; }

 private:
  Eigen::MatrixXd X_;
  Eigen::VectorXi y_;
  Eigen::Index classes_;
  std::shared_ptr<const InducingInputs> inducing_;
  int threads_;
  MulticlassEpOptions options_;
  MulticlassFit last_;
  std::optional<MulticlassFit> best_;
  double best_value_ = 0.0;
};

// log Z_EP and its gradient, the fits to learning_tol: log Z_EP is stationary in the sites.
class MulticlassEvidence final : public ClassFitObjective {
 public:
  MulticlassEvidence(const Problem& problem, const MulticlassEpOptions& options)
      : ClassFitObjective(problem, options, options.learning_tol) {}
  std::string quantity() const override { return "log_evidence"; }

 private:
  ObjectiveValue at_fixed_point(const Kernel&, const MulticlassPrior& prior, const ClassLikelihood&,
                                const MulticlassFit& fit) const override {
    ObjectiveValue out;
    out.value = multiclass_log_evidence(labels(), fit);
    out.gradient = prior.evidence_gradient(labels(), fit);
    return out;
  }
};

// The built-in leave-one-out log predictive and its gradient (class_loo_objective.h), on the
// exact prior. It is not stationary in the sites (an error in them moves it to first order), so
// its fits sweep to tol, not learning_tol.
class MulticlassLoo final : public ClassFitObjective {
 public:
  MulticlassLoo(const Problem& problem, const MulticlassEpOptions& options)
      : ClassFitObjective(problem, options, options.tol) {}
  std::string quantity() const override { return "loo_log_predictive"; }

 private:
  ObjectiveValue at_fixed_point(const Kernel& kernel, const MulticlassPrior&,
                                const ClassLikelihood& likelihood,
                                const MulticlassFit& fit) const override {
    return class_loo_value_and_gradient(kernel, inputs(), class_gram_matrices(kernel, inputs()),
                                        labels(), likelihood, fit, threads());
  }
};

// Retrains of multiclass_ep on counted data (MulticlassEpEngine::prepare_resampling): the drawn
// points, each counted as often as it is drawn (solve_multiclass_ep's counts), on the exact
// prior of their inputs or on the inducing-point prior of the run's inducing inputs at them
// (a point drawn k times keeps one latent and, with FITC, one residual).
class ResampledMulticlass final : public ResampledModel {
 public:
  ResampledMulticlass(const Problem& problem, MulticlassEpOptions options)
      : kernel_(problem.kernel),
        likelihood_(problem.likelihood),
        lik_(require_class_likelihood(problem.likelihood.get(), "multiclass_ep")),
        X_(problem.data->X_train),
        inputs_(problem.data->X_train.rows() + problem.data->X_test.rows(),
                problem.data->X_train.cols()),
        y_(class_indices(*problem.data, DataPart::train, "multiclass_ep")),
        classes_(problem.data->classes),
        inducing_(problem.inducing),
        options_(std::move(options)) {
    inputs_ << problem.data->X_train, problem.data->X_test;
    options_.progress = nullptr;
  }
  Eigen::Index classes() const override { return classes_; }
  Eigen::VectorXd predict(const Eigen::VectorXd& weights, Eigen::VectorXd*) const override {
    const DrawnPoints drawn = drawn_points(weights, y_.size(), "multiclass_ep");
    const Eigen::Index m = inputs_.rows();
    Eigen::MatrixXd probability(classes_, m);
    if (drawn.rows.empty()) {              // no data: the prior predictive
      Eigen::MatrixXd prior(classes_, m);  // each class's prior variance at each input
      for (Eigen::Index c = 0; c < classes_; ++c) {
        const Kernel& kernel = class_kernel(*kernel_, c);
        prior.row(c) = (kernel.diagonal(inputs_).array() + kernel.diagonal_noise()).transpose();
      }
      for (Eigen::Index j = 0; j < m; ++j)
        probability.col(j) = lik_.predictive(Eigen::VectorXd::Zero(classes_),
                                             Eigen::MatrixXd(prior.col(j).asDiagonal()));
    } else {
      const Eigen::MatrixXd X = X_(drawn.rows, Eigen::all);
      const Eigen::VectorXi y = y_(drawn.rows);
      const std::unique_ptr<MulticlassPrior> prior =
          make_multiclass_prior(*kernel_, X, inducing_.get(), 1);
      const MulticlassFit fit = solve_multiclass_ep(prior->classes(), y, classes_, lik_, options_,
                                                    nullptr, drawn.counts.cast<double>());
      if (fit.status.code != RunStatus::ok)
        throw NumericalError("multiclass_ep", "bootstrap retrain: " + fit.status.message);
      const auto model = prior->model(kernel_, likelihood_, y, fit);
      probability = class_probabilities(model->predict(inputs_), classes_).transpose();
    }
    return Eigen::Map<const Eigen::VectorXd>(probability.data(), probability.size());
  }

 private:
  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Likelihood> likelihood_;
  const ClassLikelihood& lik_;
  Eigen::MatrixXd X_, inputs_;
  Eigen::VectorXi y_;
  Eigen::Index classes_;
  std::shared_ptr<const InducingInputs> inducing_;
  MulticlassEpOptions options_;
};

}  // namespace

std::unique_ptr<ResampledModel> MulticlassEpEngine::prepare_resampling(
    const Problem& problem) const {
  return std::make_unique<ResampledMulticlass>(problem, options_);
}

ParamSchema MulticlassEpEngine::schema() {
  ParamSchema s;
  s.real("damping", "fraction of a sweep's new sites taken (natural parameters)", 0.5, 1e-3, 1.0)
      .real("tol",
            "max change per sweep of the posterior means and variances, relative to the prior's "
            "sd and variance at the point, at convergence",
            1e-9, 0.0)
      .real("learning_tol",
            "tol for learning's evaluations of log Z_EP and its gradient (docs/multiclass.md, "
            "Learning); the loo objective's fits sweep to tol",
            1e-6, 0.0)
      .integer("acceleration_depth",
               "Anderson mixing of the last this many sweeps (0: plain damped nested EP)", 5, 0)
      .integer("max_iterations", "maximum number of outer sweeps", 500, 1)
      .integer("inner_sweeps", "inner EP sweeps per outer sweep (nested EP: 1)", 1, 1);
  return s;
}

MulticlassEpEngine::MulticlassEpEngine(const Params& p) {
  options_.damping = p.real("damping");
  options_.tol = p.real("tol");
  options_.learning_tol = p.real("learning_tol");
  options_.acceleration_depth = static_cast<int>(p.integer("acceleration_depth"));
  options_.max_iterations = static_cast<int>(p.integer("max_iterations"));
  options_.inner_sweeps = static_cast<int>(p.integer("inner_sweeps"));
}

namespace {

// A run's outputs from its fit on `prior` and the prior's model of that fit.
Results fit_outputs(const Problem& problem, const MulticlassPrior& prior,
                    const MulticlassEpOptions& options) {
  const ClassLikelihood& lik = require_class_likelihood(problem.likelihood.get(), "multiclass_ep");
  const Dataset& d = *problem.data;
  const Eigen::VectorXi y = class_indices(d, DataPart::train, "multiclass_ep");
  MulticlassEpOptions o = options;
  o.progress = problem.context.progress;
  const MulticlassFit fit = solve_multiclass_ep(prior.classes(), y, d.classes, lik, o);
  Results r;
  r.status = fit.status;
  r.scalars["iterations"] = fit.status.iterations;
  r.scalars["classes"] = static_cast<double>(d.classes);
  r.matrices["latent_mean"] = fit.posterior.mean;
  r.scalars["train_error"] =
      static_cast<double>((row_argmax(fit.posterior.mean).array() != y.array()).count()) /
      static_cast<double>(std::max<Eigen::Index>(1, y.size()));
  if (fit.status.code != RunStatus::failed && fit.skipped == 0) {
    // Outputs of a fit that stopped short of tol too: its status says so.
    if (fit.status.code == RunStatus::ok) {
      const double lz = multiclass_log_evidence(y, fit);
      if (std::isfinite(lz)) r.scalars["log_evidence"] = lz;
    }
    // The built-in leave-one-out: the predictive of every point at its cavity.
    const Eigen::Index n = y.size(), classes = d.classes;
    Eigen::MatrixXd loo(n, classes);
    for (Eigen::Index i = 0; i < n; ++i)
      loo.row(i) = lik.predictive(fit.cavity_mean.row(i).transpose(),
                                  fit.cavity_covariance.middleCols(i * classes, classes))
                       .transpose();
    add_class_loo_outputs(r, y, loo);
    if (d.X_test.rows() > 0 || problem.make_model) {
      std::shared_ptr<const Model> model = prior.model(problem.kernel, problem.likelihood, y, fit);
      if (d.X_test.rows() > 0)
        add_class_test_outputs(r, d, class_probabilities(model->predict(d.X_test), classes));
      if (problem.make_model) r.model = std::move(model);
    }
  }
  return r;
}

}  // namespace

void MulticlassEpEngine::check(const Problem& problem, Eigen::Index inducing_count) const {
  const Eigen::Index n = problem.data->X_train.rows(), classes = problem.data->classes;
  const Eigen::Index kernels = problem.kernel ? kernel_classes(*problem.kernel) : 0;
  if (const std::string why =
          problem.kernel ? class_kernels_mismatch(*problem.kernel, classes) : "";
      !why.empty())
    throw ConfigError({}, "multiclass_ep: " + why);
  if (inducing_count == 0) {
    // With a kernel per class, K_c and the gradient's weights W_c of each class.
    require_dense_memory(n,
                         static_cast<double>(classes + (kernels > 0 ? 2 * kernels - 1 : 0)) + 3.0,
                         "multiclass_ep with C = " + std::to_string(classes) + " classes");
    return;
  }
  // C matrices of N x M in the algebra, and each kernel's factor U (in double and single).
  const double c = static_cast<double>(classes), m = static_cast<double>(inducing_count),
               u = 1.5 * static_cast<double>(std::max<Eigen::Index>(1, kernels));
  require_memory(8.0 * ((c + u) * static_cast<double>(n) * m + c * m * c * m),
                 "multiclass_ep on the inducing-point prior (C matrices of N x M, each kernel's "
                 "factor, and one of CM x CM; N = " +
                     std::to_string(n) + ", C = " + std::to_string(classes) +
                     ", M = " + std::to_string(inducing_count) + ")");
}

Results MulticlassEpEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  check(problem, problem.inducing ? problem.inducing->Z.rows() : 0);
  const std::unique_ptr<MulticlassPrior> prior = make_multiclass_prior(
      *problem.kernel, problem.data->X_train, problem.inducing.get(), problem.context.threads);
  Results r = fit_outputs(problem, *prior, options_);
  r.info["method"] =
      "nested expectation propagation, multinomial probit (Riihimaki et al. 2013)" + prior->where();
  r.timings["fit"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<std::string> MulticlassEpEngine::hyperparameter_objectives(const EngineFactory&,
                                                                       PriorKind prior) const {
  if (prior == PriorKind::inducing) return {"evidence"};
  return {"evidence", "loo"};
}

std::unique_ptr<HyperparameterObjective> MulticlassEpEngine::hyperparameter_objective(
    const Problem& problem, const std::string& name) const {
  if (name == "evidence") return std::make_unique<MulticlassEvidence>(problem, options_);
  if (name == "loo" && problem.inducing)
    throw ConfigError({},
                      "multiclass_ep: no hyperparameter objective 'loo' on the inducing-point "
                      "prior (it has: evidence)");
  if (name == "loo") {
    // class_loo_objective.h: six matrices of order CN (I + P Pi, its LU, B, Sigma, X B, W), the
    // adjoint's matrix of order 2(C - 1)N and its LU, and the C Gram matrices.
    const double n = static_cast<double>(problem.data->X_train.rows()),
                 c = static_cast<double>(problem.data->classes);
    require_memory(8.0 * n * n * (6.0 * c * c + 8.0 * (c - 1.0) * (c - 1.0) + c),
                   "multiclass_ep's loo objective (eight dense matrices of order C N or 2(C - 1) "
                   "N; N = " +
                       std::to_string(problem.data->X_train.rows()) +
                       ", C = " + std::to_string(problem.data->classes) + ")");
    return std::make_unique<MulticlassLoo>(problem, options_);
  }
  throw ConfigError(
      {}, "multiclass_ep: no hyperparameter objective '" + name + "' (it has: evidence, loo)");
}

std::unique_ptr<Model> MulticlassEpEngine::read_model(ModelArchive& archive,
                                                      const ModelParts& parts) const {
  return read_multiclass_model(archive, parts);
}

}  // namespace quench::multiclass
