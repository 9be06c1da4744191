#include "bayesian_lasso.h"

#include <chrono>
#include <cmath>

#include <Eigen/Cholesky>

#include "quench/cholesky.h"
#include "quench/draw_summary.h"
#include "quench/errors.h"
#include "quench/random_variates.h"
#include "quench/rng.h"

namespace quench::bayesian_lasso {

GibbsDraws bayesian_lasso_gibbs(const Eigen::MatrixXd& X_in, const Eigen::VectorXd& y_in,
                                const GibbsOptions& o) {
  const Eigen::Index n = X_in.rows(), p = X_in.cols();
  if (n < 3 || y_in.size() != n) throw ConfigError({}, "bayesian_lasso_gibbs needs n >= 3 rows");
  const Eigen::RowVectorXd xbar = X_in.colwise().mean();
  const double ybar = y_in.mean();
  const Eigen::MatrixXd X = X_in.rowwise() - xbar;
  const Eigen::VectorXd y = y_in.array() - ybar;
  const Eigen::MatrixXd XtX = X.transpose() * X;
  const Eigen::VectorXd Xty = X.transpose() * y;
  RngStream rng(o.seed, kGibbsStream);

  // Start: a ridge fit (penalty = the mean diagonal of X^T X, well defined for p > n), the
  // variance of y, and Park & Casella's lambda suggestion p sqrt(s2) / sum |beta|.
  Eigen::MatrixXd A0 = XtX;
  A0.diagonal().array() += XtX.diagonal().mean() + 1e-12;
  Eigen::VectorXd beta = Cholesky(A0, {}, "X^T X").solve(Xty);
  double s2 = std::max(y.squaredNorm() / double(n - 1), 1e-300);
  Eigen::VectorXd inv_tau2 = Eigen::VectorXd::Ones(p);
  double lambda = o.lambda >= 0 ? o.lambda
                                : static_cast<double>(p) * std::sqrt(s2) /
                                      std::max(beta.cwiseAbs().sum(), 1e-12);
  Eigen::VectorXd tau2_sum = Eigen::VectorXd::Zero(p);

  auto step = [&]() {
    // beta | . ~ N(A^-1 X^T y, s2 A^-1), A = X^T X + D_tau^-1.
    Eigen::MatrixXd A = XtX;
    A.diagonal() += inv_tau2;
    const Cholesky chol(A, {}, "X^T X + D_tau^-1");
    Eigen::VectorXd z(p);
    for (Eigen::Index j = 0; j < p; ++j) z(j) = rng.normal();
    beta = chol.solve(Xty) +
           std::sqrt(s2) * chol.lower().triangularView<Eigen::Lower>().transpose().solve(z);
    // s2 | . ~ InvGamma((n - 1)/2 + p/2, (|y - X beta|^2 + beta^T D^-1 beta)/2).
    const double rate = 0.5 * ((y - X * beta).squaredNorm() + beta.cwiseAbs2().dot(inv_tau2));
    s2 = rate / gamma_variate(rng, 0.5 * double(n - 1 + p));
    // 1/tau_j^2 | . ~ InverseGaussian(sqrt(lambda^2 s2 / beta_j^2), lambda^2).
    for (Eigen::Index j = 0; j < p; ++j) {
      const double mu = std::sqrt(lambda * lambda * s2) / std::max(std::abs(beta(j)), 1e-300);
      inv_tau2(j) = std::max(inverse_gaussian_variate(rng, mu, lambda * lambda), 1e-300);
    }
  };

  GibbsDraws out;
  if (o.lambda < 0) {
    out.lambda_path.resize(o.em_rounds);
    for (int round = 0; round < o.em_rounds; ++round) {
      tau2_sum.setZero();
      for (Eigen::Index t = 0; t < o.em_round_draws; ++t) {
        step();
        tau2_sum += inv_tau2.cwiseInverse();
      }
      // Park & Casella Sec. 3.1: lambda^(k) = sqrt(2p / sum_j E_{lambda^(k-1)}[tau_j^2 | y]).
      lambda = std::sqrt(2.0 * double(p) * double(o.em_round_draws) / tau2_sum.sum());
      out.lambda_path(round) = lambda;
    }
  }
  for (Eigen::Index t = 0; t < o.burn_in; ++t) step();
  out.beta.resize(o.draws, p);
  out.intercept.resize(o.draws);
  out.sigma2.resize(o.draws);
  for (Eigen::Index t = 0; t < o.draws; ++t) {
    for (Eigen::Index k = 0; k < o.thin; ++k) step();
    out.beta.row(t) = beta.transpose();
    out.sigma2(t) = s2;
    // mu | . ~ N(ybar - xbar^T beta, s2 / n) (the intercept of the uncentred model).
    out.intercept(t) = ybar - xbar.dot(beta) + std::sqrt(s2 / double(n)) * rng.normal();
  }
  if (!out.beta.allFinite() || !out.sigma2.allFinite())
    throw NumericalError("bayesian_lasso_gibbs", "non-finite draws");
  out.lambda = lambda;
  return out;
}

ParamSchema BayesianLassoGibbs::schema() {
  ParamSchema s;
  s.integer("draws", "kept draws", 1000, 1, 100000000)
      .integer("burn_in", "iterations discarded after lambda is fixed", 1000, 0)
      .integer("thin", "iterations per kept draw", 1, 1)
      .real("lambda", "fixed lambda of the Laplace prior; absent: empirical Bayes (Monte-Carlo EM)",
            std::nullopt, 0.0)
      .optional()
      .integer("em_rounds", "empirical-Bayes rounds (Park & Casella Sec. 3.1)", 30, 1)
      .integer("em_round_draws", "Gibbs iterations per empirical-Bayes round", 200, 10)
      .real("level", "probability of the central posterior intervals", 0.95, 0.01, 0.9999)
      .boolean("keep_draws", "return the draws x p matrix", true);
  return s;
}

BayesianLassoGibbs::BayesianLassoGibbs(const Params& p)
    : level_(p.real("level")), keep_draws_(p.boolean("keep_draws")) {
  options_.draws = p.integer("draws");
  options_.burn_in = p.integer("burn_in");
  options_.thin = p.integer("thin");
  options_.lambda = p.has("lambda") ? p.real("lambda") : -1.0;
  options_.em_rounds = static_cast<int>(p.integer("em_rounds"));
  options_.em_round_draws = p.integer("em_round_draws");
}

void BayesianLassoGibbs::check(const Problem& problem, Eigen::Index) const {
  const Eigen::Index n = problem.data->X_train.rows();
  if (n < 3)
    throw ConfigError({}, "bayesian_lasso_gibbs needs at least 3 training rows, the data has " +
                              std::to_string(n));
}

Results BayesianLassoGibbs::run(const Problem& problem) const {
  check(problem, 0);
  const auto start = std::chrono::steady_clock::now();
  const Dataset& data = *problem.data;
  GibbsOptions o = options_;
  o.seed = problem.seed;
  const GibbsDraws d = bayesian_lasso_gibbs(data.X_train, data.y_train, o);
  Results r;
  const DrawSummary s = summarize_draws(d.beta, level_);
  r.vectors["posterior_mean"] = s.mean;
  r.vectors["posterior_sd"] = s.sd;
  r.vectors["posterior_median"] = s.median;
  r.vectors["posterior_lower"] = s.lower;
  r.vectors["posterior_upper"] = s.upper;
  if (keep_draws_) r.matrices["posterior_draws"] = d.beta;
  r.vectors["intercept_draws"] = d.intercept;
  r.vectors["sigma2_draws"] = d.sigma2;
  if (d.lambda_path.size() > 0) r.vectors["em_lambda"] = d.lambda_path;
  r.scalars["lambda"] = d.lambda;
  r.scalars["draws"] = static_cast<double>(o.draws);
  r.scalars["sigma2_mean"] = d.sigma2.mean();
  if (data.X_test.rows() > 0) {
    const Eigen::VectorXd pred = (data.X_test * s.mean).array() + d.intercept.mean();
    r.vectors["prediction_mean"] = pred;
    r.scalars["test_mse"] = (data.y_test - pred).squaredNorm() / double(pred.size());
  }
  std::string names;
  for (const auto& c : data.input_names) names += (names.empty() ? "" : ",") + c;
  r.info["coefficients"] = names;
  r.info["lambda"] = o.lambda < 0 ? "empirical Bayes" : "fixed";
  r.timings["sampling"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace quench::bayesian_lasso
