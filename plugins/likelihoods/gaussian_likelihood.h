// Gaussian observation noise p(y|f) = N(y; f, sigma^2) (000 eq 59 is its energy).
#pragma once

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class GaussianLikelihood final : public Likelihood {
 public:
  static ParamSchema schema();
  explicit GaussianLikelihood(const Params& params);

  /// Real targets.
  std::optional<TargetKind> target_kind() const override { return TargetKind::real; }
  double log_likelihood(const Observation& y, double f) const override;
  double d_log_likelihood(const Observation& y, double f) const override;
  double d2_log_likelihood(const Observation& y, double f) const override;
  double curvature_bound() const override { return 0.0; }
  /// Closed form: Z = N(y; m, v + sigma^2), the product of two Gaussians.
  TiltedMoments tilted_moments(const Observation& y, double m, double v) const override;
  std::optional<double> gaussian_noise_variance() const override { return noise_; }
  /// E[y | f] = f, Var[y | f] = sigma^2; P(Y <= y | f) = Phi((y - f) / sigma); under
  /// f ~ N(m, v): mean m, variance v + sigma^2.
  TargetMoments target_moments(double f, double size) const override;
  double target_cdf(const Observation& y, double f) const override;
  TargetMoments predictive_moments(double m, double v, double size) const override;

  /// One block, "noise" (sigma^2, log scale, bounds [1e-10, 1e6]).
  std::vector<Hyperparameter> hyperparameters() const override;
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;
  /// d/dsigma^2 log N(y; m, v + sigma^2) = ((y - m)^2 / s - 1) / (2 s), s = v + sigma^2.
  Eigen::VectorXd d_log_tilted_normalizer(const Observation& y, double m, double v) const override;
  /// d/dsigma^2 log N(y; f, sigma^2) = ((y - f)^2 / sigma^2 - 1) / (2 sigma^2).
  Eigen::VectorXd d_log_likelihood_hyperparameters(const Observation& y, double f) const override;

 private:
  double noise_;
};

}  // namespace quench::likelihoods
