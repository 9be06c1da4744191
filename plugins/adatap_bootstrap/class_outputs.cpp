#include "class_outputs.h"

#include <cmath>
#include <string>

#include "quench/class_results.h"
#include "quench/dataset.h"
#include "quench/parallel.h"
#include "quench/rng.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// Eq M12: the fraction of `draws` u ~ N(0, I) at which the class of N(mu + L u, sigma) (the
// largest predictive probability, the lower class on ties) is not `label`; L the spread's
// symmetric root (class_decoupling), so that a fixed point that moves within its tolerance
// moves each draw by as little.
double class_error_rate(const ClassLikelihood& likelihood, const VectorXd& mu, const MatrixXd& L,
                        const MatrixXd& sigma, Index label, int draws, RngStream& rng) {
  VectorXd u(L.cols());
  int wrong = 0;
  for (int d = 0; d < draws; ++d) {
    for (Index j = 0; j < u.size(); ++j) u(j) = rng.normal();
    Index best = 0;
    likelihood.predictive(mu + L * u, sigma).maxCoeff(&best);
    wrong += best != label ? 1 : 0;
  }
  return static_cast<double>(wrong) / draws;
}

// The standard error of a mean of per-input rates, each over `draws` Bernoulli draws.
double rate_stderr(const VectorXd& rates, int draws) {
  const double var = (rates.array() * (1.0 - rates.array())).sum() / (draws - 1.0);
  return std::sqrt(std::max(var, 0.0)) / static_cast<double>(rates.size());
}

}  // namespace

Results class_results(const Problem& problem, const Eigen::VectorXi& y, const ClassSolution& s,
                      const ClassLikelihood& likelihood, const ClassOutputOptions& o) {
  const Index n = s.gamma.rows(), c = s.gamma.cols();
  const int threads = problem.context.threads;
  const int draws = o.error_draws;
  const ClassQuadrature fine = fine_class_quadrature(VectorXd::Ones(1), c, o.rule);
  Results r;
  // Eqs M11-M12 at the training inputs: the cavity N(f; Sigma_c (gamma_c + L u), Sigma_c).
  VectorXd error(n), log_loss(n);
  MatrixXd probability(n, c);
  parallel_for(static_cast<std::size_t>(n), threads, [&](std::size_t j) {
    const auto i = static_cast<Index>(j);
    const MatrixXd sigma = s.dlc.middleCols(i * c, c).inverse();
    const MatrixXd L = sigma * class_decoupling(s.lamc.middleCols(i * c, c));
    const VectorXd mu = sigma * s.gammac.row(i).transpose();
    VectorXd mean, variance;
    averaged_class_probability(likelihood, mu, L, sigma, fine.rule(L.cols(), 0), mean, variance,
                               &log_loss(i), y(i));
    probability.row(i) = mean.transpose();
    RngStream rng(problem.seed, j);
    error(i) = class_error_rate(likelihood, mu, L, sigma, y(i), draws, rng);
  });
  r.scalars["bootstrap_error"] = error.mean();
  r.scalars["bootstrap_error_stderr"] = rate_stderr(error, draws);  // of the u-draws only
  r.scalars["bootstrap_log_loss"] = log_loss.mean();
  r.scalars["test_error_points"] = static_cast<double>(n);
  r.vectors["left_out_error"] = error;
  r.vectors["left_out_log_loss"] = log_loss;
  r.matrices["left_out_probability"] = probability;
  r.matrices["train_prediction_mean"] = s.m;
  r.matrices["train_within_sample_covariance"] = s.V;
  r.matrices["train_prediction_covariance"] = s.C;
  r.scalars["classes"] = static_cast<double>(c);
  r.scalars["expected_sample_size"] = problem.resampler->expected_size();
  r.scalars["iterations"] = s.iterations;
  r.scalars["coarse_iterations"] = s.coarse_iterations;
  r.scalars["final_change"] = s.final_change;
  r.scalars["clamped_spread"] = s.clamped_spread;
  r.scalars["error_draws"] = draws;
  r.info["loss"] = "zero_one";
  return r;
}

void class_test_results(const Problem& problem, const ClassBootstrapModel& model,
                        const ClassLikelihood& likelihood, const ClassOutputOptions& o,
                        Results& r) {
  const Dataset& data = *problem.data;
  const Index n = data.X_train.rows(), mt = data.X_test.rows(), c = data.classes;
  const ClassPredictive f = model.latents(data.X_test);
  const Predictions p = model.predictions(f);
  MatrixXd mean(mt, c), probability(mt, c), variance(mt, c);
  for (Index k = 0; k < c; ++k) {
    mean.col(k) = p.column(class_column("bootstrap_mean", k));
    probability.col(k) = p.column(class_column("probability", k));
    variance.col(k) = p.column(class_column("probability_variance", k));
  }
  r.matrices["prediction_mean"] = mean;
  r.matrices["prediction_probability"] = probability;
  r.matrices["prediction_probability_variance"] = variance;
  add_class_test_outputs(r, data, probability);
  if (data.y_test.size() != mt) return;
  // Eq M12 at the labelled test inputs, over eq M9's distribution.
  const Eigen::VectorXi yt = class_indices(data, DataPart::test, "adatap_bootstrap");
  VectorXd error(mt);
  parallel_for(static_cast<std::size_t>(mt), problem.context.threads, [&](std::size_t j) {
    const auto x = static_cast<Index>(j);
    RngStream rng(problem.seed, static_cast<std::uint64_t>(n) + j);
    error(x) = class_error_rate(likelihood, f.mean.row(x).transpose(),
                                class_decoupling(-f.spread.middleCols(x * c, c)),
                                f.within.middleCols(x * c, c), yt(x), o.error_draws, rng);
  });
  r.scalars["test_bootstrap_error"] = error.mean();
  r.scalars["test_bootstrap_error_stderr"] = rate_stderr(error, o.error_draws);
}

}  // namespace quench::adatap
