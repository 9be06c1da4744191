#include "mc_bootstrap.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "mc_bootstrap_model.h"
#include "quench/errors.h"
#include "quench/losses.h"
#include "quench/memory_budget.h"
#include "quench/rng.h"
#include "quench/target_prediction.h"

namespace quench::mc_bootstrap {
namespace {

// The loss a target's kind calls for: the 0/1 loss of labels, the regression losses of the
// latent prediction for the closed-form Gaussian, the predictive losses otherwise.
std::string automatic_loss(const Likelihood& lik) {
  if (lik.target_kind() == TargetKind::binary) return "zero_one";
  return lik.gaussian_noise_variance() ? "regression" : "predictive";
}

// The 0/1 loss Theta(-t f) of the class sgn f (the classification guide's eq 3), a tie f = 0
// counting as an error as in the classifiers' own error rates.
double zero_one_loss(double f, double t) { return t * f <= 0.0 ? 1.0 : 0.0; }

// The bootstrap of a C-class inner engine (ResampledModel::classes() = C): the out-of-bag 0/1
// error of the retrains' classes (the largest probability, the lower class on ties) and their
// out-of-bag log loss (-log of the left-out label's probability), at
// labelled test inputs the mean over samples of the test error rate, and the bootstrap mean and
// standard error of every class probability at the test inputs (M x C).
void class_bootstrap(const Problem& problem, const ResampledModel& model, Eigen::Index T,
                     Results& r) {
  const Dataset& data = *problem.data;
  const Eigen::Index n = data.X_train.rows(), m = data.X_test.rows(), C = model.classes();
  const Eigen::VectorXi y = class_indices(data, DataPart::train, "mc_bootstrap");
  // One unit per sample (its own RNG stream): the retrain's probabilities at the training then
  // test inputs (C per input), which points it left out, its size.
  const UnitOutputs units =
      map_units(static_cast<std::size_t>(T), (n + m) * C + n + 1, problem.context,
                [&](std::size_t t, Eigen::Ref<Eigen::VectorXd> out, std::string&) {
                  RngStream rng(problem.seed, t);
                  const Eigen::VectorXd w = problem.resampler->sample(rng);
                  out.head((n + m) * C) = model.predict(w);
                  out.segment((n + m) * C, n) = (w.array() == 0.0).cast<double>();
                  out(out.size() - 1) = w.sum();
                });
  const Eigen::MatrixXd& U = units.values;
  const auto O = U.middleRows((n + m) * C, n);
  const auto wrong = [&](Eigen::Index input, Eigen::Index t, Eigen::Index label) {
    Eigen::Index best = 0;
    U.col(t).segment(input * C, C).maxCoeff(&best);
    return best != label ? 1.0 : 0.0;
  };
  Eigen::MatrixXd E(n, T);  // the retrain's 0/1 error at training input i
  for (Eigen::Index t = 0; t < T; ++t)
    for (Eigen::Index i = 0; i < n; ++i) E(i, t) = wrong(i, t, y(i));
  const auto e =
      out_of_bag_error(E, O, Eigen::VectorXd::Zero(n), [](double error, double) { return error; });
  r.scalars["bootstrap_error"] = e.value;
  r.scalars["bootstrap_error_stderr"] = e.standard_error;
  r.scalars["test_error_points"] = static_cast<double>(e.points);
  if (e.points == n) r.vectors["left_out_error"] = e.per_point;
  Eigen::MatrixXd loss(n, T);  // the retrain's log loss at training input i
  for (Eigen::Index t = 0; t < T; ++t)
    for (Eigen::Index i = 0; i < n; ++i) loss(i, t) = -std::log(U(i * C + y(i), t));
  const auto l =
      out_of_bag_error(loss, O, Eigen::VectorXd::Zero(n), [](double v, double) { return v; });
  r.scalars["bootstrap_log_loss"] = l.value;
  r.scalars["bootstrap_log_loss_stderr"] = l.standard_error;
  if (l.points == n) r.vectors["left_out_log_loss"] = l.per_point;
  if (m > 0) {
    Eigen::MatrixXd mean(m, C), stderr_(m, C);
    for (Eigen::Index x = 0; x < m; ++x)
      for (Eigen::Index c = 0; c < C; ++c) {
        const Eigen::VectorXd p = U.row((n + x) * C + c).transpose();
        mean(x, c) = p.mean();
        stderr_(x, c) = T > 1 ? std::sqrt((p.array() - p.mean()).square().sum() /
                                          static_cast<double>((T - 1) * T))
                              : 0.0;
      }
    r.matrices["prediction_probability"] = mean;
    r.matrices["prediction_probability_stderr"] = stderr_;
    if (data.y_test.size() == m) {
      const Eigen::VectorXi yt = class_indices(data, DataPart::test, "mc_bootstrap");
      Eigen::VectorXd rate = Eigen::VectorXd::Zero(T);
      for (Eigen::Index t = 0; t < T; ++t)
        for (Eigen::Index x = 0; x < m; ++x) rate(t) += wrong(n + x, t, yt(x)) / double(m);
      r.scalars["test_bootstrap_error"] = rate.mean();
      r.scalars["test_bootstrap_error_stderr"] =
          T > 1 ? std::sqrt((rate.array() - rate.mean()).square().sum() /
                            static_cast<double>((T - 1) * T))
                : 0.0;
    }
  }
  r.scalars["classes"] = static_cast<double>(C);
  r.scalars["samples"] = static_cast<double>(T);
  r.scalars["mean_sample_size"] = U.row(U.rows() - 1).mean();
  r.scalars["expected_sample_size"] = problem.resampler->expected_size();
  r.info["loss"] = "zero_one";
}

}  // namespace

ParamSchema McBootstrap::schema() {
  ParamSchema s;
  s.integer("samples",
            "number of resampled data sets T (at least 2: a standard error over one is undefined)",
            1000, 2, 10000000)
      .plugin("inner", "engine", "engine retrained on each resampled data set",
              "exact_gp_regression")
      .string("loss",
              "regression: square and epsilon-insensitive losses of the prediction; zero_one: "
              "the 0/1 loss of its sign against class labels -1/+1 or 0/1; auto: zero_one "
              "when the training targets are such labels, else regression",
              "auto", {"auto", "regression", "zero_one"})
      .real("epsilon", "epsilon of the epsilon-insensitive test loss (000 Fig. 1)", 0.1, 0.0)
      .real("beta", "smoothing beta of the epsilon-insensitive loss, in (0, 1]", 0.1, 1e-9, 1.0)
      .boolean("keep_samples",
               "return the predictor at every training input for every sample (N x T)", true);
  return s;
}

McBootstrap::McBootstrap(const Params& p)
    : samples_(p.integer("samples")),
      inner_(p.string("inner")),
      loss_(p.string("loss")),
      epsilon_(p.real("epsilon")),
      beta_(p.real("beta")),
      keep_samples_(p.boolean("keep_samples")) {}

void McBootstrap::check(const Problem& problem, Eigen::Index inducing_count) const {
  if (!problem.context.make_engine)
    throw ConfigError({}, "mc_bootstrap needs the host to create its inner engine");
  const auto inner = problem.context.make_engine(inner_);
  const InferenceEngine::Retraining retraining = inner->retraining();
  if (!retraining.possible)
    throw ConfigError({}, "engine '" + inner_ +
                              "' cannot be retrained on resampled data (mc_bootstrap's inner "
                              "engine must be)");
  if (problem.resampler && !problem.resampler->draws_counts() && !retraining.real_weights)
    throw ConfigError({}, "engine '" + inner_ +
                              "' retrains on occupation counts; the resampler draws real "
                              "weights (a Bayesian bootstrap): use a bootstrap or subsample "
                              "resampler");
  if (inducing_count > 0 && !retraining.inducing_prior)
    throw ConfigError({}, "engine '" + inner_ +
                              "' retrains on the exact prior only: its bootstrap is not built "
                              "on the inducing-point prior (remove the inducing: block)");
  inner->check(problem, inducing_count);
  const Likelihood& lik = *problem.likelihood;
  if (problem.data->classes > 0) {
    if (loss_ == "regression")
      throw ConfigError({},
                        "mc_bootstrap loss 'regression' does not apply to the classes of "
                        "engine '" +
                            inner_ + "'");
  } else if (loss_ == "zero_one" && lik.target_kind() != TargetKind::binary) {
    throw ConfigError({},
                      "mc_bootstrap loss 'zero_one' needs a binary likelihood (labels "
                      "-1/+1), not one of " +
                          std::string(to_string(lik.target_kind().value_or(TargetKind::any))) +
                          " targets");
  } else if ((loss_ == "auto" ? automatic_loss(lik) : loss_) == "predictive" &&
             !retraining.latent_variance) {
    throw ConfigError({},
                      "mc_bootstrap loss 'predictive' needs retrains with a latent variance; "
                      "engine '" +
                          inner_ + "' gives none");
  }
  // Every sample's outputs are held until the averages (map_units): its predictions at the N
  // training and M test inputs (C each for classes) and its N out-of-bag flags, at least.
  const auto n = static_cast<double>(problem.data->X_train.rows()),
             m = static_cast<double>(problem.data->X_test.rows()),
             classes = static_cast<double>(std::max<Eigen::Index>(problem.data->classes, 1));
  require_memory(8.0 * ((n + m) * classes + n + 1) * static_cast<double>(samples_),
                 "mc_bootstrap's " + std::to_string(samples_) +
                     " samples (each held as its predictions at every input and its "
                     "out-of-bag flags)");
}

Results McBootstrap::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  check(problem, problem.inducing ? problem.inducing->Z.rows() : 0);
  const Dataset& data = *problem.data;
  const Likelihood& lik = *problem.likelihood;
  const Eigen::Index n = data.X_train.rows(), m = data.X_test.rows();
  const auto T = static_cast<Eigen::Index>(samples_);
  const auto inner = problem.context.make_engine(inner_);
  const auto model = inner->prepare_resampling(problem);
  if (!model)
    throw ConfigError({}, "engine '" + inner_ + "' cannot be retrained on resampled data");
  const auto prepared = std::chrono::steady_clock::now();
  if (model->classes() > 0) {
    Results r;
    class_bootstrap(problem, *model, T, r);
    r.info["inner_engine"] = inner_;
    const double sampling =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - prepared).count();
    r.timings["prepare"] = std::chrono::duration<double>(prepared - start).count();
    r.timings["sampling"] = sampling;
    r.timings["per_sample"] = sampling / static_cast<double>(T);
    return r;
  }
  const std::string loss = loss_ == "auto" ? automatic_loss(lik) : loss_;
  const bool zero_one = loss == "zero_one", predictive = loss == "predictive";
  const Observations y = observations(data, DataPart::train,
                                      lik.target_kind().value_or(TargetKind::any), "mc_bootstrap");

  // The retrains are kept (as kernel expansions) when they make the model; the model then also
  // gives the test outputs, so a saved model predicts exactly what the run reported.
  const bool keep_retrains = model->kernel_expansion() && (m > 0 || problem.make_model);
  // The inputs the retrains expand over: the training inputs, or the inducing inputs.
  const Eigen::MatrixXd& X_expansion =
      model->expansion_inputs() ? *model->expansion_inputs() : data.X_train;
  if (keep_retrains)
    require_memory(8.0 * static_cast<double>(X_expansion.rows()) * static_cast<double>(T),
                   "mc_bootstrap keeping its " + std::to_string(T) + " retrains (N x T)");
  // Each retrain's predictive of y at the test inputs through its latent variance, averaged
  // below: p(+1 | x, D) for labels (the Monte-Carlo counterpart of the classification guide's
  // eq 21), the predictive mean of y otherwise.
  const bool test_predictive = m > 0 && model->latent_variance() && (zero_one || predictive);

  // One unit per sample with its own RNG stream (the result does not depend on the threads or
  // processes): its predictions at the training then test inputs (F), which points it left
  // out (O), its size, the retrain's coefficients (A), its test predictive (P) and, for the
  // predictive loss, its square error and negative log predictive density at every training
  // point (Q, L).
  const Eigen::Index kept_rows = keep_retrains ? X_expansion.rows() : 0,
                     test_rows = test_predictive ? m : 0, loss_rows = predictive ? n : 0;
  const std::size_t width =
      static_cast<std::size_t>((n + m) + n + 1 + kept_rows + test_rows + 2 * loss_rows);
  const UnitOutputs units = map_units(
      static_cast<std::size_t>(T), width, problem.context,
      [&](std::size_t t, Eigen::Ref<Eigen::VectorXd> out, std::string&) {
        RngStream rng(problem.seed, t);
        const Eigen::VectorXd w = problem.resampler->sample(rng);
        Eigen::VectorXd a, variance;
        Eigen::VectorXd* coefficients = keep_retrains ? &a : nullptr;
        const bool latent = test_predictive || predictive;
        const Eigen::VectorXd f = latent
                                      ? model->predict_latent(w, coefficients, variance, predictive)
                                      : model->predict(w, coefficients);
        out.head(n + m) = f;
        out.segment(n + m, n) = (w.array() == 0.0).cast<double>();
        out(2 * n + m) = w.sum();
        Eigen::Index at = 2 * n + m + 1;
        if (keep_retrains) out.segment(at, kept_rows) = a;
        at += kept_rows;
        if (test_predictive) {
          Predictions p;
          add_target_predictions(p, lik, f.tail(m), variance.tail(m), {data.size_test, {}, -1});
          out.segment(at, m) = p.column(zero_one ? "probability" : "target_mean");
        }
        at += test_rows;
        if (predictive) {
          for (Eigen::Index i = 0; i < n; ++i) {
            const double mean = lik.predictive_moments(f(i), variance(i), y[i].size).mean;
            out(at + i) = (y.y(i) - mean) * (y.y(i) - mean);
          }
          out.segment(at + n, n) = -log_predictive_density(lik, y, f.head(n), variance.head(n));
        }
      });
  const Eigen::MatrixXd& U = units.values;
  const auto F = U.topRows(n + m);
  const auto O = U.middleRows(n + m, n);
  const Eigen::VectorXd sizes = U.row(2 * n + m).transpose();
  Eigen::MatrixXd A = U.middleRows(2 * n + m + 1, kept_rows);
  const auto P = U.middleRows(2 * n + m + 1 + kept_rows, test_rows);
  const auto losses = U.bottomRows(2 * loss_rows);
  const auto sampled = std::chrono::steady_clock::now();

  Results r;
  const Eigen::MatrixXd F_train = F.topRows(n);
  // Efron's out-of-bag mean of a loss whose per-sample values are the rows of E (n x T).
  const auto precomputed = [&](const Eigen::MatrixXd& E) {
    return out_of_bag_error(E, O, Eigen::VectorXd::Zero(n), [](double e, double) { return e; });
  };
  if (zero_one) {
    // The out-of-bag 0/1 error (000 eq 21; the classification guide's eq 3) and its per-point
    // summands, the left-out error rates.
    const auto e = out_of_bag_error(F_train, O, y.y, zero_one_loss);
    r.scalars["bootstrap_error"] = e.value;
    r.scalars["bootstrap_error_stderr"] = e.standard_error;
    r.scalars["test_error_points"] = static_cast<double>(e.points);
    if (e.points == n)
      r.vectors["left_out_error"] = e.per_point;
    else
      r.info["left_out_error"] = "not reported: " + std::to_string(n - e.points) +
                                 " training points were never left out (more samples)";
    // At labelled test inputs: the mean over samples of Theta(-y f_x) (the Monte-Carlo
    // counterpart of the guide's eq 22), averaged over the inputs; sd/sqrt(T) of the per-sample
    // error rates.
    if (m > 0 && data.y_test.size() == m) {
      const Eigen::VectorXd test_labels = class_labels(data, DataPart::test, "mc_bootstrap");
      Eigen::VectorXd rate(T);
      for (Eigen::Index t = 0; t < T; ++t) {
        double errors = 0.0;
        for (Eigen::Index x = 0; x < m; ++x) errors += zero_one_loss(F(n + x, t), test_labels(x));
        rate(t) = errors / static_cast<double>(m);
      }
      r.scalars["test_bootstrap_error"] = rate.mean();
      r.scalars["test_bootstrap_error_stderr"] =
          T > 1 ? std::sqrt((rate.array() - rate.mean()).square().sum() /
                            static_cast<double>((T - 1) * T))
                : 0.0;
    }
    r.info["loss"] = "zero_one";
  } else if (predictive) {
    // The out-of-bag square error of the predicted mean of y and negative log predictive
    // density of y (each retrain's predictive at a point it left out).
    const auto square = precomputed(losses.topRows(n));
    const auto density = precomputed(losses.bottomRows(n));
    r.scalars["test_error_square"] = square.value;
    r.scalars["test_error_square_stderr"] = square.standard_error;
    r.scalars["test_error_log_predictive"] = density.value;
    r.scalars["test_error_log_predictive_stderr"] = density.standard_error;
    r.scalars["test_error_points"] = static_cast<double>(square.points);
    if (square.points == n) r.vectors["left_out_log_predictive"] = -density.per_point;
    r.info["loss"] = "predictive";
  } else {
    const auto square = out_of_bag_error(F_train, O, data.y_train,
                                         [](double f, double v) { return square_loss(f - v); });
    const auto eps = out_of_bag_error(F_train, O, data.y_train, [this](double f, double v) {
      return eps_insensitive_loss(f - v, epsilon_, beta_);
    });
    r.scalars["test_error_square"] = square.value;
    r.scalars["test_error_square_stderr"] = square.standard_error;
    r.scalars["test_error_eps_insensitive"] = eps.value;
    r.scalars["test_error_eps_insensitive_stderr"] = eps.standard_error;
    r.scalars["test_error_points"] = static_cast<double>(square.points);
    r.info["loss"] = "regression";
    r.info["loss_eps_insensitive"] =
        "epsilon=" + std::to_string(epsilon_) + ", beta=" + std::to_string(beta_);
  }
  r.scalars["samples"] = static_cast<double>(T);
  r.scalars["mean_sample_size"] = sizes.mean();
  r.scalars["expected_sample_size"] = problem.resampler->expected_size();

  // Bootstrap mean and variance of the prediction (000 eq 20 by simulation).
  auto put_moments = [&](const std::string& prefix, const Eigen::VectorXd& mean,
                         const Eigen::VectorXd& var) {
    r.vectors[prefix + "mean"] = mean;
    r.vectors[prefix + "variance"] = var;
    r.vectors[prefix + "mean_stderr"] = (var / static_cast<double>(T)).cwiseSqrt();
  };
  auto moments = [&](const Eigen::MatrixXd& G, const std::string& prefix) {
    const Eigen::VectorXd mean = G.rowwise().mean();
    put_moments(prefix, mean,
                T > 1
                    ? Eigen::VectorXd((G.colwise() - mean).rowwise().squaredNorm() / double(T - 1))
                    : Eigen::VectorXd::Zero(G.rows()));
  };
  moments(F_train, "train_prediction_");
  if (test_predictive) {
    // The bootstrap mean over retrains of their predictive at the test inputs.
    const std::string name = zero_one ? "prediction_probability" : "prediction_target_mean";
    const Eigen::VectorXd mean = P.rowwise().mean();
    r.vectors[name] = mean;
    r.vectors[name + "_stderr"] =
        T > 1 ? Eigen::VectorXd(((P.colwise() - mean).rowwise().squaredNorm() /
                                 static_cast<double>((T - 1) * T))
                                    .cwiseSqrt())
              : Eigen::VectorXd::Zero(m);
  }
  if (keep_retrains) {
    auto fitted = std::make_shared<const McBootstrapModel>(
        problem.kernel, X_expansion, std::move(A), problem.resampler->expected_size(),
        model->expansion_inputs() != nullptr);
    if (m > 0) {
      const Predictions p = fitted->predict(data.X_test);
      put_moments("prediction_", p.column("bootstrap_mean"), p.column("bootstrap_variance"));
    }
    if (problem.make_model) r.model = std::move(fitted);
  } else {
    if (m > 0) moments(F.bottomRows(m), "prediction_");
    if (problem.make_model)
      r.info["model_refused"] =
          "the retrains of inner engine '" + inner_ +
          "' are not kernel expansions over the training inputs, so they cannot "
          "be kept to predict new inputs";
  }
  if (keep_samples_) r.matrices["predictor_samples"] = F_train;
  r.info["inner_engine"] = inner_;
  using seconds = std::chrono::duration<double>;
  r.timings["prepare"] = seconds(prepared - start).count();
  r.timings["sampling"] = seconds(sampled - prepared).count();
  r.timings["per_sample"] = seconds(sampled - prepared).count() / static_cast<double>(T);
  return r;
}

std::unique_ptr<Model> McBootstrap::read_model(ModelArchive& archive,
                                               const ModelParts& parts) const {
  return McBootstrapModel::read(archive, parts);
}

}  // namespace quench::mc_bootstrap
