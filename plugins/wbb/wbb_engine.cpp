#include "wbb_engine.h"

#include <chrono>
#include <cmath>

#include "quench/draw_summary.h"
#include "quench/errors.h"
#include "quench/mlp.h"
#include "quench/penalized_solver.h"
#include "quench/rng.h"
#include "quench/units.h"
#include "wbb_linear.h"
#include "wbb_model.h"

namespace quench::wbb {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

const PenalizedSolver& solver_of(const Problem& problem) {
  const auto* s = dynamic_cast<const PenalizedSolver*>(problem.optimizer.get());
  if (!s)
    throw ConfigError({},
                      "wbb needs a penalized least-squares optimizer (coordinate_descent for "
                      "model linear, trend_filter_admm for model trend_filter)");
  return *s;
}

// What every penalized model reports about its draws: the unweighted fit's and the draws'
// convergence (a draw that hit the solver's limit is a status, never silent), the timings, and
// the posterior summary of the T x p draws.
void put_draws(Results& r, const OptimizerReport& mode_report, const Eigen::MatrixXd& draws,
               Eigen::Index not_converged, const std::string& limit, double seconds, double level,
               bool keep_draws) {
  if (!mode_report.converged)
    r.status = {RunStatus::not_converged, "unweighted fit: " + mode_report.message,
                mode_report.iterations};
  else if (not_converged > 0)
    r.status = {RunStatus::not_converged, std::to_string(not_converged) + " draws hit the " + limit,
                0};
  r.timings["draws"] = seconds;
  r.timings["per_draw"] = seconds / static_cast<double>(draws.rows());
  const DrawSummary s = summarize_draws(draws, level);
  r.vectors["posterior_mean"] = s.mean;
  r.vectors["posterior_sd"] = s.sd;
  r.vectors["posterior_median"] = s.median;
  r.vectors["posterior_lower"] = s.lower;
  r.vectors["posterior_upper"] = s.upper;
  r.vectors["posterior_zero_fraction"] = s.zero_fraction;
  if (keep_draws) r.matrices["posterior_draws"] = draws;
}

// A regression model's predictions at X (none when X has no rows) as the run's outputs
// prefix + mean, variance, lower, median, upper (the central `level` interval and the median
// of the draws' fitted values, as posterior_lower / _median / _upper for the coefficients).
void add_model_predictions(Results& r, const Model& model, const Eigen::MatrixXd& X,
                           const std::string& prefix) {
  if (X.rows() == 0) return;
  const Predictions p = model.predict(X);
  static const char* const kOutputs[] = {"mean", "variance", "lower", "median", "upper"};
  for (Eigen::Index j = 0; j < p.values.cols(); ++j)
    r.vectors[prefix + kOutputs[j]] = p.values.col(j);
}

}  // namespace

ParamSchema WbbEngine::schema() {
  ParamSchema s;
  s.string("model",
           "linear (weighted least squares + penalty), trend_filter or network (2 ReLU layers)",
           "linear", {"linear", "trend_filter", "network"})
      .integer("draws", "number of WBB draws T", 1000, 1, 100000000)
      .string("penalty", "l1 (LASSO), l2 (ridge) or elastic_net (linear model)", "l1",
              {"l1", "l2", "elastic_net"})
      .real("l1_ratio", "elastic-net mixing alpha for penalty elastic_net", 0.5, 0.0, 1.0)
      .string("penalty_weights",
              "w_0: one common Exp(1) weight, separate weights per coefficient, or none (004 "
              "Sec. 2.4)",
              "separate", {"common", "separate", "none"})
      .real("lambda", "penalty lambda; absent: K-fold cross-validation (linear model)",
            std::nullopt, 0.0)
      .optional()
      .string("cv_rule", "lambda of minimum CV error or the one-standard-error rule", "min",
              {"min", "one_se"})
      .integer("cv_folds", "folds K of the cross-validation", 10, 2, 1000)
      .integer("path_length", "lambdas on the cross-validation path", 100, 2, 10000)
      .real("path_min_ratio", "smallest lambda of the path relative to lambda_max", 1e-4, 1e-12,
            1.0)
      .boolean("intercept", "fit an unpenalized intercept (linear model)", true)
      .integer("order", "trend-filtering order k (penalty on D^(k+1))", 3, 0, 10)
      .boolean("warm_start", "start every draw from the unweighted solution", true)
      .real("level", "probability of the central posterior intervals", 0.95, 0.01, 0.9999)
      .boolean("keep_draws", "return the T x p draws", true)
      .integer("hidden1", "network: width of the first hidden layer (004: 128)", 128, 1)
      .integer("hidden2", "network: width of the second hidden layer (004: 64)", 64, 1)
      .string("network_start",
              "network: every draw an independent fit from its own seeded N(0, 1) start "
              "(random; 004 Algorithm 1 optimizes each weighted objective afresh) or from "
              "the trained unweighted network (mode)",
              "random", {"random", "mode"})
      .integer("network_passes",
               "network: optimizer runs (each of the optimizer's epochs) per fit, for the "
               "unweighted network and for every draw",
               3, 1, 1000)
      .boolean("penalize_biases",
               "network: include the biases in phi (004 Sec. 3.4 penalizes the weight "
               "matrices only: phi = sum_l ||W_l||^2)",
               false);
  return s;
}

WbbEngine::WbbEngine(const Params& params) : params_(params) {
  if (params_.string("model") == "trend_filter" && params_.string("penalty_weights") == "separate")
    throw ConfigError({},
                      "model trend_filter needs penalty_weights common or none (the "
                      "generalized-LASSO penalty is not separable)");
  if (params_.string("model") == "network" && !params_.has("lambda"))
    throw ConfigError({}, "model network needs lambda (004 Sec. 3.4 uses lambda = 1e-4)");
  if (params_.string("model") == "trend_filter" && !params_.has("lambda"))
    throw ConfigError({}, "model trend_filter needs lambda (004 Fig. 4 uses lambda = 1000)");
}

void WbbEngine::check(const Problem& problem, Eigen::Index) const {
  if (!problem.resampler) throw ConfigError({}, "wbb needs a resampler (exponential_weights)");
  const Dataset& data = *problem.data;
  const std::string& model = params_.string("model");
  if (model == "network") {
    if (data.X_test.rows() == 0)
      throw ConfigError({}, "model network needs a test set (data.split) for the accuracy");
    return;
  }
  solver_of(problem);
  const auto n = data.X_train.rows();
  if (model == "linear" && !params_.has("lambda") && params_.integer("cv_folds") > n)
    throw ConfigError({}, "cv_folds " + std::to_string(params_.integer("cv_folds")) +
                              " (lambda by cross-validation) exceeds the " + std::to_string(n) +
                              " training rows");
  // Inputs the draws' splines cannot be evaluated on, when they predict.
  if (model == "trend_filter" && (data.X_test.rows() > 0 || problem.make_model)) {
    const std::string why =
        check_positions(data.X_train, static_cast<int>(params_.integer("order")));
    if (!why.empty())
      throw ConfigError({},
                        "model trend_filter cannot predict at new inputs (test rows, saved "
                        "models): " +
                            why);
  }
}

Results WbbEngine::run(const Problem& problem) const {
  check(problem, 0);
  const std::string& model = params_.string("model");
  if (model == "network") return run_network(problem);
  return model == "linear" ? run_linear(problem) : run_trend(problem);
}

std::unique_ptr<Model> WbbEngine::read_model(ModelArchive& archive, const ModelParts& parts) const {
  const std::string& model = params_.string("model");
  if (model == "network") return NetworkDrawsModel::read(archive, parts);
  if (model == "trend_filter") return TrendFilterDrawsModel::read(archive, parts);
  return LinearDrawsModel::read(archive, parts);
}

Results WbbEngine::run_linear(const Problem& problem) const {
  const auto start = Clock::now();
  const PenalizedSolver& solver = solver_of(problem);
  const Dataset& data = *problem.data;
  const Eigen::Index n = data.X_train.rows(), p = data.X_train.cols();
  const std::string penalty = params_.string("penalty");
  LinearSpec spec;
  spec.X = &data.X_train;
  spec.y = &data.y_train;
  spec.l1_ratio = penalty == "l1" ? 1.0 : penalty == "l2" ? 0.0 : params_.real("l1_ratio");
  spec.intercept = params_.boolean("intercept");
  Results r;

  double lambda;
  if (params_.has("lambda")) {
    lambda = params_.real("lambda");
  } else {
    const auto cv =
        cross_validate(solver, spec, static_cast<int>(params_.integer("cv_folds")),
                       static_cast<int>(params_.integer("path_length")),
                       params_.real("path_min_ratio"), problem.seed, problem.context.threads);
    lambda = params_.string("cv_rule") == "min" ? cv.lambda_min : cv.lambda_1se;
    r.vectors["cv_lambda"] = cv.lambdas;
    r.vectors["cv_error"] = cv.error;
    r.vectors["cv_error_stderr"] = cv.error_sd;
    r.scalars["cv_lambda_min"] = cv.lambda_min;
    r.scalars["cv_lambda_1se"] = cv.lambda_1se;
  }
  r.timings["lambda_selection"] = since(start);

  // The unweighted solution (posterior mode, 004 eq 1) is every draw's warm start.
  WeightedLeastSquares base;
  base.X = spec.X;
  base.y = spec.y;
  base.weights = Eigen::VectorXd::Ones(n);
  base.penalty = Eigen::VectorXd::Constant(p, lambda);
  base.l1_ratio = spec.l1_ratio;
  base.intercept = spec.intercept;
  PenalizedSolution mode;
  const auto mode_report = solver.solve(base, mode);

  const auto T = static_cast<Eigen::Index>(params_.integer("draws"));
  const auto t0 = Clock::now();
  const LinearDraws d =
      linear_draws(solver, spec, lambda, *problem.resampler,
                   penalty_weights_from_string(params_.string("penalty_weights")), mode,
                   params_.boolean("warm_start"), T, problem.seed, problem.context);
  put_draws(r, mode_report, d.beta, d.not_converged, "solver's sweep limit", since(t0),
            params_.real("level"), params_.boolean("keep_draws"));
  r.vectors["posterior_mode"] = mode.beta;
  r.vectors["intercept_draws"] = d.intercept;
  r.scalars["intercept_mode"] = mode.intercept;
  r.scalars["lambda"] = lambda;
  r.scalars["draws"] = static_cast<double>(T);
  r.scalars["mean_solver_iterations"] = d.sweeps.mean();
  r.scalars["mode_solver_iterations"] = mode_report.iterations;
  // Posterior of the fitted values at the training and test inputs, by the model a saved
  // model is (so it reproduces these numbers exactly).
  const auto model = std::make_shared<const LinearDrawsModel>(
      d.beta, d.intercept, quantile_levels(params_.real("level")));
  add_model_predictions(r, *model, data.X_train, "train_prediction_");
  add_model_predictions(r, *model, data.X_test, "prediction_");
  if (data.X_test.rows() > 0) {
    const Eigen::VectorXd e = data.y_test - r.vectors["prediction_mean"];
    r.scalars["test_mse"] = e.squaredNorm() / static_cast<double>(e.size());
  }
  if (problem.make_model) r.model = model;
  std::string names;
  for (const auto& s : data.input_names) names += (names.empty() ? "" : ",") + s;
  r.info["coefficients"] = names;
  r.info["objective"] =
      "1/2 sum_i w_i (y_i - b - x_i^T beta)^2 + lambda sum_j w0_j [a |beta_j| + (1-a)/2 "
      "beta_j^2], a = " +
      std::to_string(spec.l1_ratio);
  r.info["penalty_weights"] = params_.string("penalty_weights");
  r.status.iterations = mode_report.iterations;
  return r;
}

Results WbbEngine::run_trend(const Problem& problem) const {
  const PenalizedSolver& solver = solver_of(problem);
  const Eigen::VectorXd& y = problem.data->y_train;
  const int order = static_cast<int>(params_.integer("order"));
  const double lambda = params_.real("lambda");
  const bool predicts = problem.data->X_test.rows() > 0 || problem.make_model;
  Results r;
  TrendFilteringProblem base;
  base.y = &y;
  base.weights = Eigen::VectorXd::Ones(y.size());
  base.lambda = lambda;
  base.order = order;
  PenalizedSolution mode;
  const auto mode_report = solver.solve(base, mode);
  const auto T = static_cast<Eigen::Index>(params_.integer("draws"));
  const auto t0 = Clock::now();
  const TrendDraws d =
      trend_draws(solver, y, order, lambda, *problem.resampler,
                  penalty_weights_from_string(params_.string("penalty_weights")), mode,
                  params_.boolean("warm_start"), T, problem.seed, problem.context);
  put_draws(r, mode_report, d.beta, d.not_converged, "ADMM iteration limit", since(t0),
            params_.real("level"), params_.boolean("keep_draws"));
  const Eigen::VectorXd sd = r.vectors["posterior_sd"];
  r.vectors["posterior_mode"] = mode.beta;
  r.vectors["fit"] = mode.beta;
  r.vectors["fit_lower"] = mode.beta - 2 * sd;  // 004 Fig. 4: beta-hat +- 2 se
  r.vectors["fit_upper"] = mode.beta + 2 * sd;
  r.vectors["train_prediction_mean"] = r.vectors["posterior_mean"];
  r.vectors["train_prediction_variance"] = sd.cwiseProduct(sd);
  // At test inputs (and saved): the draws' discrete splines (discrete_spline.h).
  if (predicts) {
    const auto model = std::make_shared<const TrendFilterDrawsModel>(
        problem.data->X_train, d.beta, order, quantile_levels(params_.real("level")));
    add_model_predictions(r, *model, problem.data->X_test, "prediction_");
    if (problem.data->y_test.size() > 0) {
      const Eigen::VectorXd e = problem.data->y_test - r.vectors["prediction_mean"];
      r.scalars["test_mse"] = e.squaredNorm() / static_cast<double>(e.size());
    }
    if (problem.make_model) r.model = model;
  }
  r.scalars["lambda"] = lambda;
  r.scalars["draws"] = static_cast<double>(T);
  r.scalars["mode_duality_gap"] = mode.duality_gap;
  r.scalars["mode_solver_iterations"] = mode_report.iterations;
  r.scalars["mean_solver_iterations"] = d.iterations.mean();
  r.info["objective"] =
      "1/2 sum_i w_i (y_i - beta_i)^2 + lambda w0 ||D^(" + std::to_string(order + 1) + ") beta||_1";
  return r;
}

Eigen::VectorXd network_weight_mask(const Mlp& net) {
  // The flat layout of quench::Mlp: W_1 (D_1 x D_0), b_1, W_2, b_2, W_3, b_3.
  Eigen::VectorXd mask(net.parameter_count());
  Eigen::Index k = 0;
  for (int l = 0; l < 3; ++l) {
    const Eigen::Index nw = net.width(l + 1) * net.width(l), nb = net.width(l + 1);
    mask.segment(k, nw).setOnes();
    mask.segment(k + nw, nb).setZero();
    k += nw + nb;
  }
  return mask;
}

// The shared MlpObjective carries the penalty itself when it covers every parameter;
// otherwise it is built with penalty 0 and the masked term is added here.
NetworkObjective::NetworkObjective(const Mlp& net, const Eigen::MatrixXd& X,
                                   const Eigen::MatrixXd& Y, const Eigen::MatrixXd& weights,
                                   double penalty, bool weights_only)
    : loss_(net, X, Y, weights, MlpHead::softmax_cross_entropy, weights_only ? 0.0 : penalty,
            Eigen::VectorXd::Zero(net.parameter_count())),
      mask_(weights_only ? network_weight_mask(net) : Eigen::VectorXd()),
      penalty_(penalty) {}

bool NetworkObjective::add(const Eigen::VectorXd& x, bool ok, double* value,
                           Eigen::VectorXd* g) const {
  if (mask_.size() == 0) return ok;
  if (value) *value += 0.5 * penalty_ * x.cwiseProduct(mask_).squaredNorm();
  if (g) *g += penalty_ * x.cwiseProduct(mask_);
  return ok;
}

// 004 Sec. 3.4: (W, b)_w = argmin sum_i w_i l_i(y_i | x_i, W, b) + lambda w_0 phi(W, b), l_i the
// softmax cross-entropy, phi = sum_l ||W_l||^2 (weight matrices only, as 004; biases too with
// penalize_biases), by the pipeline's stochastic optimizer (Adam mini-batches, 004 App.). Each
// draw is an independent fit (Algorithm 1) from its own seeded N(0, 1) start (network_start
// random) or from the trained unweighted network (mode), with its own mini-batch stream:
// deterministic for any thread count. Output: the posterior of the test accuracy, and the
// posterior predictive at the test rows by the model of the draws (NetworkDrawsModel).
Results WbbEngine::run_network(const Problem& problem) const {
  const Dataset& data = *problem.data;
  const Eigen::Index n = data.X_train.rows(), d = data.X_train.cols();
  auto classes = [&data](DataPart part) {
    const Eigen::VectorXd& y = part == DataPart::train ? data.y_train : data.y_test;
    for (Eigen::Index i = 0; i < y.size(); ++i)
      if (y(i) < 0 || y(i) != std::floor(y(i)))
        throw target_error(data, part, i, "class labels must be 0, 1, 2, ...");
    return static_cast<Eigen::Index>(y.maxCoeff()) + 1;
  };
  const Eigen::Index C = std::max(classes(DataPart::train), classes(DataPart::test));
  Eigen::MatrixXd Y = Eigen::MatrixXd::Zero(n, C);
  for (Eigen::Index i = 0; i < n; ++i) Y(i, static_cast<Eigen::Index>(data.y_train(i))) = 1;
  const Mlp net(d, params_.integer("hidden1"), params_.integer("hidden2"), C);
  const double lambda = params_.real("lambda");
  auto accuracy = [&](const Eigen::VectorXd& theta) {
    const Eigen::MatrixXd F = net.forward(theta, data.X_test);
    double right = 0;
    for (Eigen::Index i = 0; i < F.rows(); ++i) {
      Eigen::Index c;
      F.row(i).maxCoeff(&c);
      right += c == static_cast<Eigen::Index>(data.y_test(i));
    }
    return right / static_cast<double>(F.rows());
  };
  // Unweighted fit from N(0, 1) parameters (the NTK parametrisation scales them per layer).
  RngStream init(problem.seed, kCrossValidationStream + 1);
  Eigen::VectorXd mode(net.parameter_count());
  for (Eigen::Index k = 0; k < mode.size(); ++k) mode(k) = init.normal();
  const Eigen::MatrixXd ones = Eigen::MatrixXd::Ones(n, 1);
  const bool weights_only = !params_.boolean("penalize_biases");
  const auto passes = static_cast<int>(params_.integer("network_passes"));
  const bool random_start = params_.string("network_start") == "random";
  {
    const NetworkObjective objective(net, data.X_train, Y, ones, 2 * lambda, weights_only);
    for (int pass = 0; pass < passes; ++pass)
      problem.optimizer->minimize_stochastic(objective, mode, init);
  }
  const auto T = static_cast<Eigen::Index>(params_.integer("draws"));
  const bool common = params_.string("penalty_weights") != "none";
  const Eigen::Index P = net.parameter_count();
  const auto t0 = Clock::now();
  // One unit per draw: its test accuracy and its parameters.
  const UnitOutputs units = map_units(
      static_cast<std::size_t>(T), 1 + P, problem.context,
      [&](std::size_t t, Eigen::Ref<Eigen::VectorXd> out, std::string&) {
        RngStream rng(problem.seed, t);
        const Eigen::MatrixXd w = problem.resampler->sample(rng);
        const double w0 = common ? exponential_draws(rng, 1)(0) : 1.0;
        const NetworkObjective objective(net, data.X_train, Y, w, 2 * lambda * w0, weights_only);
        Eigen::VectorXd theta = mode;
        if (random_start)
          for (Eigen::Index k = 0; k < theta.size(); ++k) theta(k) = rng.normal();
        for (int pass = 0; pass < (random_start ? passes : 1); ++pass)
          problem.optimizer->minimize_stochastic(objective, theta, rng);
        out(0) = accuracy(theta);
        out.tail(P) = theta;
      });
  const Eigen::VectorXd acc = units.values.row(0).transpose();
  Eigen::MatrixXd thetas = units.values.bottomRows(P).transpose();  // one draw per row
  Results r;
  r.timings["draws"] = since(t0);
  r.timings["per_draw"] = since(t0) / static_cast<double>(T);
  const DrawSummary s = summarize_draws(acc, params_.real("level"));
  r.vectors["test_accuracy_draws"] = acc;
  r.scalars["test_accuracy_mean"] = s.mean(0);
  r.scalars["test_accuracy_sd"] = s.sd(0);
  r.scalars["test_accuracy_lower"] = s.lower(0);
  r.scalars["test_accuracy_upper"] = s.upper(0);
  r.scalars["test_accuracy_mode"] = accuracy(mode);
  // The posterior predictive at the test inputs: the model's class probabilities averaged
  // over the draws and the class of largest mean probability, and that label's accuracy.
  const auto model = std::make_shared<const NetworkDrawsModel>(
      net, std::move(thetas), quantile_levels(params_.real("level")));
  const Predictions p = model->predict(data.X_test);
  const Eigen::VectorXd label = p.column("label");
  if (C == 2) r.vectors["test_probability"] = p.column("probability");
  r.vectors["test_class"] = label;
  r.scalars["test_accuracy_of_mean_probability"] =
      (label.array() == data.y_test.array()).cast<double>().mean();
  if (problem.make_model) r.model = model;
  r.scalars["lambda"] = lambda;
  r.scalars["draws"] = static_cast<double>(T);
  r.info["objective"] = params_.boolean("penalize_biases")
                            ? "sum_i w_i CE_i + lambda w0 ||theta||^2 (2 ReLU layers)"
                            : "sum_i w_i CE_i + lambda w0 sum_l ||W_l||^2 (2 ReLU layers, 004 "
                              "Sec. 3.4)";
  r.info["network_start"] = params_.string("network_start");
  return r;
}

}  // namespace quench::wbb
