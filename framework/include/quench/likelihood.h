// Per-site observation models p(y | f): what a likelihood's target is, the site algebra every
// latent-GP engine shares (log p and its derivatives in f, the tilted moments and their k-fold
// powers) and the predictions of y at a latent value (docs/likelihoods.md).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/class_likelihood.h"
#include "quench/component.h"
#include "quench/hyperparameter.h"
#include "quench/target.h"

namespace quench {

/// Moments of the tilted distribution p(y|f) N(f; m, v) / Z.
struct TiltedMoments {
  double log_z = 0.0;     ///< log Z = log \int p(y|f) N(f; m, v) df
  double mean = 0.0;      ///< E[f]
  double variance = 0.0;  ///< Var[f]
};

/// The mean and variance of the target y, given a latent value or under a latent distribution.
struct TargetMoments {
  double mean = 0.0;
  double variance = 0.0;
};

/// Class labels turned into C regression problems with per-point Gaussian noise (002 eqs
/// 10-11): row i, column c holds the target y^_ic and the noise variance sigma^2_ic.
struct RegressionTargets {
  Eigen::MatrixXd mean;      ///< n x C
  Eigen::MatrixXd variance;  ///< n x C, all > 0
};

class QUENCH_API Likelihood : public Component {
 public:
  ~Likelihood() override;

  // --- The target ---

  /// The kind of target the likelihood serves (quench/target.h); nullopt (the default): none
  /// declared, which pipelines refuse.
  virtual std::optional<TargetKind> target_kind() const { return std::nullopt; }
  /// The data column of each observation's size (the exposure of a count, the trials of a
  /// binomial; Observation::size); empty (the default): every size is 1.
  virtual std::string size_column() const { return {}; }

  // --- One site ---

  /// log p(y | f).
  virtual double log_likelihood(const Observation& y, double f) const = 0;
  /// d/df log p(y | f) and d^2/df^2 log p(y | f).
  virtual double d_log_likelihood(const Observation& y, double f) const = 0;
  virtual double d2_log_likelihood(const Observation& y, double f) const = 0;
  /// An upper bound b on d^2/df^2 log p(y | f) over every y and f: b <= 0 when log p is
  /// concave in f (log_concave()), +infinity (the default) when unknown. Where k v b < 1 the
  /// k-fold tilted density p(y|f)^k N(f; m, v) is log-concave (one mode), so the default tilted
  /// moments take the fast mode-centred rule of quench/tilted_power_moments.h; elsewhere the
  /// adaptive rule of quench/tilted_quadrature.h, which finds every mode. A bound that is too
  /// low integrates a two-mode tilted density around one mode.
  virtual double curvature_bound() const { return std::numeric_limits<double>::infinity(); }
  /// curvature_bound() <= 0: log p(y | f) concave in f for every y.
  bool log_concave() const { return curvature_bound() <= 0; }
  /// Points where log p(y | f) changes its length scale in f (the bends of a link function:
  /// the logit's at s = -6, 0, 6), at most TiltedPowerSite::kMaxTransitions written to out;
  /// the number, or -1 (the default) when unknown: the mode-centred rule then searches for
  /// them, which is slower and less accurate in far tails.
  virtual int transitions(const Observation& /*y*/, double* /*out*/) const { return -1; }

  /// Tilted moments of p(y|f) N(f; m, v), by the quadrature of tilted_moments_power by default;
  /// likelihoods with closed forms override it.
  virtual TiltedMoments tilted_moments(const Observation& y, double m, double v) const;

  /// Moments of p(y|f)^k N(f; m, v) / Z_k (one site of a point drawn k times, 000 eqs 43-46):
  /// k = 0 the Gaussian itself (log_z = 0), k = 1 tilted_moments. The default (k >= 2)
  /// integrates numerically from log_likelihood and its derivatives: mode-centred quadrature
  /// where the tilted density is log-concave (k v curvature_bound() < 1), else the adaptive
  /// multimodal rule (quench/tilted_quadrature.h). Throws std::invalid_argument for
  /// k < 0 or v <= 0.
  virtual TiltedMoments tilted_moments_power(const Observation& y, double m, double v, int k) const;

  /// The noise variance when the likelihood is Gaussian N(y; f, sigma^2), else nullopt.
  /// Engines with closed-form Gaussian algebra (exact GP regression) require it.
  virtual std::optional<double> gaussian_noise_variance() const { return std::nullopt; }

  // --- Predictions of y ---

  /// E[y | f] and Var[y | f] for an observation of the given size. The default sums the
  /// probability mass exp(log_likelihood) over the support of a discrete kind (binary: -1, +1;
  /// successes: 0..size; count: 0, 1, ... until the tail is below 1e-14); a real kind must
  /// override it (ConfigError otherwise).
  virtual TargetMoments target_moments(double f, double size) const;
  /// P(Y <= y.y | f) for an observation of size y.size; the default sums the mass of a discrete
  /// kind as target_moments does; a real kind must override it.
  virtual double target_cdf(const Observation& y, double f) const;
  /// E[y] and Var[y] under f ~ N(m, v) (the law of total variance over target_moments), by
  /// Gauss-Hermite quadrature by default; closed forms override it.
  virtual TargetMoments predictive_moments(double m, double v, double size) const;

  // --- Multi-class and label transforms ---

  /// Class labels 0..classes-1 as heteroskedastic regression targets, one column per class
  /// (the Dirichlet transform of 002 eqs 10-11), or nullopt when the likelihood has no such
  /// transform (the default).
  virtual std::optional<RegressionTargets> regression_targets(const Eigen::VectorXd& /*labels*/,
                                                              Eigen::Index /*classes*/) const {
    return std::nullopt;
  }

  /// The multi-class capability (quench/class_likelihood.h): a likelihood of one label among C
  /// classes with C latents per point returns itself; scalar likelihoods nullptr (the default).
  virtual const ClassLikelihood* classes() const { return nullptr; }

  // --- Learnable hyperparameters ---

  /// The learnable parameters at their current values, in flat-vector order (e.g. the
  /// Gaussian noise variance "noise", the probit label noise "kappa"). The default: none.
  virtual std::vector<Hyperparameter> hyperparameters() const { return {}; }
  /// Sets the block `name`; throws ConfigError for an unknown name or a wrong size. Not
  /// thread-safe: call before sharing the likelihood.
  virtual void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value);
  /// d log p(y | f) / dtheta_j for every entry j of the flat vector, at fixed f. The default
  /// throws ConfigError (a likelihood with hyperparameters gives it or overrides
  /// d_log_tilted_normalizer).
  virtual Eigen::VectorXd d_log_likelihood_hyperparameters(const Observation& y, double f) const;
  /// d log Z / dtheta_j of the tilted normalizer Z = \int p(y|f) N(f; m, v) df for every
  /// entry j of the flat vector, at fixed m and v (the likelihood part of the gradient of an
  /// EP/TAP log evidence). The default is the tilted mean of d_log_likelihood_hyperparameters
  /// by the quadrature rule of tilted_moments_power (tilted_site_rule, quench/tilted_quadrature.h).
  /// Throws ConfigError when the likelihood has no hyperparameters.
  virtual Eigen::VectorXd d_log_tilted_normalizer(const Observation& y, double m, double v) const;
};

}  // namespace quench
