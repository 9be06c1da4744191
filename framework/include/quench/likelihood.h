// Per-site observation models p(y | f).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/class_likelihood.h"
#include "quench/component.h"
#include "quench/hyperparameter.h"

namespace quench {

/// Moments of the tilted distribution p(y|f) N(f; m, v) / Z.
struct TiltedMoments {
  double log_z = 0.0;     ///< log Z = log \int p(y|f) N(f; m, v) df
  double mean = 0.0;      ///< E[f]
  double variance = 0.0;  ///< Var[f]
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

  /// log p(y | f).
  virtual double log_likelihood(double y, double f) const = 0;
  /// d/df log p(y | f) and d^2/df^2 log p(y | f).
  virtual double d_log_likelihood(double y, double f) const = 0;
  virtual double d2_log_likelihood(double y, double f) const = 0;

  /// Tilted moments of p(y|f) N(f; m, v). The default integrates by Gauss-Hermite quadrature;
  /// likelihoods with closed forms override it.
  virtual TiltedMoments tilted_moments(double y, double m, double v) const;

  /// Moments of p(y|f)^k N(f; m, v) / Z_k (one site of a point drawn k times, 000 eqs 43-46):
  /// k = 0 the Gaussian itself (log_z = 0), k = 1 tilted_moments(y, m, v).
  /// The default (k >= 2) needs a log-concave likelihood: mode-centred Gauss-Legendre
  /// quadrature on log_likelihood / d_log_likelihood / d2_log_likelihood
  /// (quench/tilted_power_moments.h). Throws std::invalid_argument for k < 0 or v <= 0.
  virtual TiltedMoments tilted_moments_power(double y, double m, double v, int k) const;

  /// The noise variance when the likelihood is Gaussian N(y; f, sigma^2), else nullopt.
  /// Engines with closed-form Gaussian algebra (exact GP regression) require it.
  virtual std::optional<double> gaussian_noise_variance() const { return std::nullopt; }

  /// Label transform applied to the training targets before inference (identity by default;
  /// e.g. the Dirichlet transform of 002 eqs 10-11).
  virtual Eigen::VectorXd transform_targets(const Eigen::VectorXd& y) const { return y; }
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
  /// d log Z / dtheta_j of the tilted normalizer Z = \int p(y|f) N(f; m, v) df for every
  /// entry j of the flat vector, at fixed m and v (the likelihood part of the gradient of an
  /// EP/TAP log evidence). Throws ConfigError when the likelihood has no hyperparameters.
  virtual Eigen::VectorXd d_log_tilted_normalizer(double y, double m, double v) const;
};

}  // namespace quench
