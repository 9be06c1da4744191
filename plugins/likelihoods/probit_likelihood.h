// Probit (step likelihood with Gaussian input noise) with label noise:
//   p(y | f) = kappa + (1 - 2 kappa) Phi(y f / sigma),   y = +-1,
// the step Theta(y f) of 001 App. A blurred by Gaussian noise of variance sigma^2, and the
// label-flip probability kappa of 003. With noise = 0 it is the pure step; 001 then puts the
// probit noise v on the covariance diagonal (kernel `noise`), which is equivalent.
#pragma once

#include <limits>

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class ProbitLikelihood final : public Likelihood {
 public:
  static ParamSchema schema();
  explicit ProbitLikelihood(const Params& params);
  ProbitLikelihood(double noise, double kappa);

  /// Binary targets: y = -1 or +1.
  std::optional<TargetKind> target_kind() const override { return TargetKind::binary; }
  double log_likelihood(const Observation& y, double f) const override;
  /// Derivatives in f; for noise = 0 (a step) they are 0 almost everywhere.
  double d_log_likelihood(const Observation& y, double f) const override;
  double d2_log_likelihood(const Observation& y, double f) const override;
  /// log Phi is concave (0); label noise kappa > 0 makes the likelihood bounded below, not
  /// concave (unknown: +infinity).
  double curvature_bound() const override {
    return kappa_ == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  }
  /// Closed form (001 eq 23, 003): Z = kappa + (1 - 2 kappa) Phi(z), z = y m / sqrt(v + sigma^2),
  /// with the D/Phi ratios taken in log space / continued fractions (quench/normal.h).
  TiltedMoments tilted_moments(const Observation& y, double m, double v) const override;
  /// k = 0 the Gaussian, k = 1 tilted_moments. k >= 2 at kappa = 0: the step (noise = 0,
  /// Theta^k = Theta) in closed form, else the mode-centred quadrature of
  /// quench/tilted_power_moments.h on log Phi and its ratios (quench/normal.h). kappa > 0, k >= 2
  /// (not log-concave): exactly, as the binomial mixture over j <= k of the kappa = 0 tilted
  /// distributions Phi^j N with weights C(k, j) kappa^(k-j) (1 - 2 kappa)^j Z_j (k quadratures).
  TiltedMoments tilted_moments_power(const Observation& y, double m, double v,
                                     int k) const override;

  double noise() const { return noise_; }
  double kappa() const { return kappa_; }

  /// "noise" (sigma^2, bounds [1e-10, 1e6]) when the noise was > 0 at construction (0 is the
  /// step likelihood, another model), then "kappa" (bounds [1e-8, 0.49]) when kappa was > 0 at
  /// construction (at kappa = 0, d log Z / d kappa = (1 - 2 Phi(z)) / Phi(z) is unbounded for
  /// wrong-side cavities, and a log-scale coordinate cannot start there). Both log scale.
  std::vector<Hyperparameter> hyperparameters() const override;
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;
  /// With Z = kappa + (1 - 2 kappa) Phi(z), z = y m / s, s^2 = v + sigma^2, a = (1 - 2 kappa)
  /// D(z) / Z: d log Z / dsigma^2 = -a z / (2 s^2) and d log Z / dkappa = (1 - 2 Phi(z)) / Z =
  /// -erf(z / sqrt 2) exp(-log Z), both finite for every z (Z >= kappa > 0, a from the stable
  /// ratios of quench/normal.h).
  Eigen::VectorXd d_log_tilted_normalizer(const Observation& y, double m, double v) const override;

 private:
  double noise_;
  double kappa_;
  bool learn_noise_, learn_kappa_;  // the blocks hyperparameters() lists
};

}  // namespace quench::likelihoods
