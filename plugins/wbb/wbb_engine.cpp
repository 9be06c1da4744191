#include "wbb_engine.h"

#include <chrono>
#include <cmath>

#include "quench/draw_summary.h"
#include "quench/errors.h"
#include "quench/penalized_solver.h"
#include "wbb_linear.h"

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

void put_summary(Results& r, const Eigen::MatrixXd& draws, double level) {
  const DrawSummary s = summarize_draws(draws, level);
  r.vectors["posterior_mean"] = s.mean;
  r.vectors["posterior_sd"] = s.sd;
  r.vectors["posterior_median"] = s.median;
  r.vectors["posterior_lower"] = s.lower;
  r.vectors["posterior_upper"] = s.upper;
  r.vectors["posterior_zero_fraction"] = s.zero_fraction;
  r.matrices["posterior_draws"] = draws;
}

}  // namespace

ParamSchema WbbEngine::schema() {
  ParamSchema s;
  s.string("model", "linear (weighted least squares + penalty) or trend_filter", "linear",
           {"linear", "trend_filter"})
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
      .boolean("keep_draws", "return the T x p draws", true);
  return s;
}

WbbEngine::WbbEngine(const Params& params) : params_(params) {
  if (params_.string("model") == "trend_filter" && params_.string("penalty_weights") == "separate")
    throw ConfigError({},
                      "model trend_filter needs penalty_weights common or none (the "
                      "generalized-LASSO penalty is not separable)");
  if (params_.string("model") == "trend_filter" && !params_.has("lambda"))
    throw ConfigError({}, "model trend_filter needs lambda (004 Fig. 4 uses lambda = 1000)");
}

Results WbbEngine::run(const Problem& problem) const {
  if (!problem.resampler) throw ConfigError({}, "wbb needs a resampler (exponential_weights)");
  return params_.string("model") == "linear" ? run_linear(problem) : run_trend(problem);
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
  if (!mode_report.converged)
    r.status = {RunStatus::not_converged, "unweighted fit: " + mode_report.message,
                mode_report.iterations};

  const auto T = static_cast<Eigen::Index>(params_.integer("draws"));
  const auto t0 = Clock::now();
  const LinearDraws d = linear_draws(solver, spec, lambda, *problem.resampler,
                                     penalty_weights_from_string(params_.string("penalty_weights")),
                                     mode, params_.boolean("warm_start"), T, problem.seed,
                                     problem.context.threads, problem.context.progress);
  r.timings["draws"] = since(t0);
  r.timings["per_draw"] = since(t0) / static_cast<double>(T);
  if (d.not_converged > 0 && r.status.code == RunStatus::ok)
    r.status = {RunStatus::not_converged,
                std::to_string(d.not_converged) + " draws hit the solver's sweep limit", 0};

  put_summary(r, d.beta, params_.real("level"));
  if (!params_.boolean("keep_draws")) r.matrices.erase("posterior_draws");
  r.vectors["posterior_mode"] = mode.beta;
  r.vectors["intercept_draws"] = d.intercept;
  r.scalars["intercept_mode"] = mode.intercept;
  r.scalars["lambda"] = lambda;
  r.scalars["draws"] = static_cast<double>(T);
  r.scalars["mean_solver_iterations"] = d.sweeps.mean();
  r.scalars["mode_solver_iterations"] = mode_report.iterations;
  // Posterior of the fitted values at the training and test inputs.
  auto fitted = [&](const Eigen::MatrixXd& X, const std::string& prefix) {
    if (X.rows() == 0) return;
    const Eigen::MatrixXd F = (X * d.beta.transpose()).rowwise() + d.intercept.transpose();
    const Eigen::VectorXd mean = F.rowwise().mean();
    r.vectors[prefix + "mean"] = mean;
    r.vectors[prefix + "variance"] =
        (F.colwise() - mean).rowwise().squaredNorm() / std::max<double>(T - 1, 1);
  };
  fitted(data.X_train, "train_prediction_");
  fitted(data.X_test, "prediction_");
  if (data.X_test.rows() > 0) {
    const Eigen::VectorXd e = data.y_test - r.vectors["prediction_mean"];
    r.scalars["test_mse"] = e.squaredNorm() / static_cast<double>(e.size());
  }
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
  Results r;
  TrendFilteringProblem base;
  base.y = &y;
  base.weights = Eigen::VectorXd::Ones(y.size());
  base.lambda = lambda;
  base.order = order;
  PenalizedSolution mode;
  const auto mode_report = solver.solve(base, mode);
  if (!mode_report.converged)
    r.status = {RunStatus::not_converged, "unweighted fit: " + mode_report.message,
                mode_report.iterations};
  const auto T = static_cast<Eigen::Index>(params_.integer("draws"));
  const auto t0 = Clock::now();
  const TrendDraws d = trend_draws(solver, y, order, lambda, *problem.resampler,
                                   penalty_weights_from_string(params_.string("penalty_weights")),
                                   mode, params_.boolean("warm_start"), T, problem.seed,
                                   problem.context.threads, problem.context.progress);
  r.timings["draws"] = since(t0);
  r.timings["per_draw"] = since(t0) / static_cast<double>(T);
  if (d.not_converged > 0 && r.status.code == RunStatus::ok)
    r.status = {RunStatus::not_converged,
                std::to_string(d.not_converged) + " draws hit the ADMM iteration limit", 0};
  put_summary(r, d.beta, params_.real("level"));
  if (!params_.boolean("keep_draws")) r.matrices.erase("posterior_draws");
  const Eigen::VectorXd sd = r.vectors["posterior_sd"];
  r.vectors["posterior_mode"] = mode.beta;
  r.vectors["fit"] = mode.beta;
  r.vectors["fit_lower"] = mode.beta - 2 * sd;  // 004 Fig. 4: beta-hat +- 2 se
  r.vectors["fit_upper"] = mode.beta + 2 * sd;
  r.vectors["train_prediction_mean"] = r.vectors["posterior_mean"];
  r.vectors["train_prediction_variance"] = sd.cwiseProduct(sd);
  r.scalars["lambda"] = lambda;
  r.scalars["draws"] = static_cast<double>(T);
  r.scalars["mode_duality_gap"] = mode.duality_gap;
  r.scalars["mode_solver_iterations"] = mode_report.iterations;
  r.scalars["mean_solver_iterations"] = d.iterations.mean();
  r.info["objective"] =
      "1/2 sum_i w_i (y_i - beta_i)^2 + lambda w0 ||D^(" + std::to_string(order + 1) + ") beta||_1";
  return r;
}

}  // namespace quench::wbb
