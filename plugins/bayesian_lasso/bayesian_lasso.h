// The Bayesian LASSO of Park & Casella (2008), the reference of 004 Sec. 3.1-3.2 (eq 11):
//   y | mu, beta, s2 ~ N(mu 1 + X beta, s2 I),  beta_j | s2, tau_j^2 ~ N(0, s2 tau_j^2),
//   tau_j^2 ~ Exp(lambda^2 / 2),  pi(s2) = 1/s2,  flat mu (integrated out by centring),
// sampled by Gibbs; lambda fixed or by empirical Bayes (Park & Casella Sec. 3.1, Monte-Carlo
// EM: lambda <- sqrt(2p / sum_j E[tau_j^2 | y])).
#pragma once

#include <cstdint>

#include <Eigen/Core>

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::bayesian_lasso {

struct GibbsOptions {
  Eigen::Index draws = 1000, burn_in = 500, thin = 1;
  double lambda = -1;  ///< < 0: empirical Bayes
  int em_rounds = 20;
  Eigen::Index em_round_draws = 200;
  std::uint64_t seed = 0;
};

struct GibbsDraws {
  Eigen::MatrixXd beta;  ///< draws x p
  Eigen::VectorXd intercept, sigma2;
  Eigen::VectorXd lambda_path;  ///< lambda after each EM round (empirical Bayes)
  double lambda = 0;
};

/// Runs the Gibbs sampler on (X, y) (centred internally); stream RngStream(seed, kGibbsStream).
GibbsDraws bayesian_lasso_gibbs(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                const GibbsOptions& options);

inline constexpr std::uint64_t kGibbsStream = 0xB1A5'50FF'0000'0000ULL;

class BayesianLassoGibbs final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit BayesianLassoGibbs(const Params& params);
  Results run(const Problem& problem) const override;
  /// At least 3 training rows (the sampler's centring and its variance's n - 1 degrees).
  void check(const Problem& problem, Eigen::Index inducing_count) const override;

 private:
  GibbsOptions options_;
  double level_;
  bool keep_draws_;
};

}  // namespace quench::bayesian_lasso
