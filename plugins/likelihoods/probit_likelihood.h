// Probit (step likelihood with Gaussian input noise) with label noise:
//   p(y | f) = kappa + (1 - 2 kappa) Phi(y f / sigma),   y = +-1,
// the step Theta(y f) of 001 App. A blurred by Gaussian noise of variance sigma^2, and the
// label-flip probability kappa of 003. With noise = 0 it is the pure step; 001 then puts the
// probit noise v on the covariance diagonal (kernel `noise`), which is equivalent.
#pragma once

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class ProbitLikelihood final : public Likelihood {
 public:
  static ParamSchema schema();
  explicit ProbitLikelihood(const Params& params);
  ProbitLikelihood(double noise, double kappa);

  double log_likelihood(double y, double f) const override;
  /// Derivatives in f; for noise = 0 (a step) they are 0 almost everywhere.
  double d_log_likelihood(double y, double f) const override;
  double d2_log_likelihood(double y, double f) const override;
  /// Closed form (001 eq 23, 003): Z = kappa + (1 - 2 kappa) Phi(z), z = y m / sqrt(v + sigma^2),
  /// with the D/Phi ratios taken in log space / continued fractions (quench/normal.h).
  TiltedMoments tilted_moments(double y, double m, double v) const override;

  double noise() const { return noise_; }
  double kappa() const { return kappa_; }

 private:
  double noise_;
  double kappa_;
};

}  // namespace quench::likelihoods
