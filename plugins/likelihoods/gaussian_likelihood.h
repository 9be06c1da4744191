// Gaussian observation noise p(y|f) = N(y; f, sigma^2) (000 eq 59 is its energy).
#pragma once

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class GaussianLikelihood final : public Likelihood {
 public:
  static ParamSchema schema();
  explicit GaussianLikelihood(const Params& params);

  double log_likelihood(double y, double f) const override;
  double d_log_likelihood(double y, double f) const override;
  double d2_log_likelihood(double y, double f) const override;
  /// Closed form: Z = N(y; m, v + sigma^2), the product of two Gaussians.
  TiltedMoments tilted_moments(double y, double m, double v) const override;
  std::optional<double> gaussian_noise_variance() const override { return noise_; }

 private:
  double noise_;
};

}  // namespace quench::likelihoods
