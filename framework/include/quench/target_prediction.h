// Predictions of the target y from a latent GP's predictive N(m, v) at each input, by the kind
// of target the likelihood declares: one place for every engine, model, `quench predict` and
// Python (docs/likelihoods.md, "Predictions of y").
#pragma once

#include <vector>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/likelihood.h"
#include "quench/model.h"
#include "quench/target.h"

namespace quench {

/// What the predictions of y are asked for besides the latent mean and variance.
struct TargetQuery {
  /// Each input's observation size (the exposure of a count, the trials of a binomial);
  /// empty: 1 for every input.
  Eigen::VectorXd sizes;
  /// Probabilities at which quantiles of y are given (each in (0, 1)).
  std::vector<double> quantiles = {0.05, 0.5, 0.95};
  /// p(y = k) is given for k = 0..max_count (count and successes kinds; -1: none).
  int max_count = 10;
};

/// Appends to `p` the columns of y for latent N(mean_i, variance_i) at each input, by the
/// likelihood's target kind:
/// - binary: `probability` p(y = +1) (the predictive integral of 001 eq 12, exp log Z of the
///   tilted density at y = +1) and `label` (+1 when the latent mean is >= 0, else -1: eq 13);
/// - real, count, successes: `target_mean`, `target_variance` (Likelihood::predictive_moments;
///   target units), `target_quantile_<q>` for each quantile (target units; predictive_quantile)
///   and, for count and successes, `target_p<k>` = p(y = k) for k = 0..max_count.
/// ConfigError for another kind or none.
QUENCH_API void add_target_predictions(Predictions& p, const Likelihood& likelihood,
                                       const Eigen::VectorXd& mean, const Eigen::VectorXd& variance,
                                       const TargetQuery& query = {});

/// The column name of the quantile q ("target_quantile_0.05": q with up to 6 significant
/// digits).
QUENCH_API std::string quantile_column(double q);

/// log p(y_i | f_i ~ N(mean_i, variance_i)) for every observation: the tilted normalizer log Z
/// of the likelihood (the log predictive density of the observed target).
QUENCH_API Eigen::VectorXd log_predictive_density(const Likelihood& likelihood,
                                                  const Observations& y,
                                                  const Eigen::VectorXd& mean,
                                                  const Eigen::VectorXd& variance);

/// The q-quantile of y under f ~ N(m, v) for an observation of the given size: the smallest y
/// with P(Y <= y) >= q, P(Y <= y) = E_f[Likelihood::target_cdf(y, f)] by 32-point Gauss-Hermite
/// quadrature; an integer for discrete kinds (bisection on integers), a root found by TOMS 748
/// to 1e-12 relative for the real kind. std::invalid_argument unless 0 < q < 1.
QUENCH_API double predictive_quantile(const Likelihood& likelihood, double q, double m, double v,
                                      double size);

}  // namespace quench
