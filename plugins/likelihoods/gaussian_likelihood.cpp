#include "gaussian_likelihood.h"

#include <cmath>

#include "quench/errors.h"
#include "quench/normal.h"

namespace quench::likelihoods {

ParamSchema GaussianLikelihood::schema() {
  ParamSchema s;
  s.real("noise", "noise variance sigma^2", std::nullopt, 1e-300);
  return s;
}

GaussianLikelihood::GaussianLikelihood(const Params& params) : noise_(params.real("noise")) {}

double GaussianLikelihood::log_likelihood(const Observation& o, double f) const {
  const double y = o.y;
  return -0.5 * (std::log(2 * M_PI * noise_) + (y - f) * (y - f) / noise_);
}

double GaussianLikelihood::d_log_likelihood(const Observation& y, double f) const {
  return (y.y - f) / noise_;
}

double GaussianLikelihood::d2_log_likelihood(const Observation&, double) const {
  return -1.0 / noise_;
}

TiltedMoments GaussianLikelihood::tilted_moments(const Observation& o, double m, double v) const {
  const double y = o.y;
  const double s = v + noise_;
  TiltedMoments t;
  t.log_z = -0.5 * (std::log(2 * M_PI * s) + (y - m) * (y - m) / s);
  t.mean = m + v * (y - m) / s;
  t.variance = v - v * v / s;
  return t;
}

std::vector<Hyperparameter> GaussianLikelihood::hyperparameters() const {
  Hyperparameter h;
  h.name = "noise";
  h.value = Eigen::VectorXd::Constant(1, noise_);
  h.lower = 1e-10;
  h.upper = 1e6;
  return {h};
}

void GaussianLikelihood::set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) {
  if (name != "noise") Likelihood::set_hyperparameter(name, value);  // throws
  if (value.size() != 1 || !(value(0) > 0.0))
    throw ConfigError({}, "gaussian likelihood: 'noise' takes one positive number");
  noise_ = value(0);
}

Eigen::VectorXd GaussianLikelihood::d_log_tilted_normalizer(const Observation& o, double m,
                                                            double v) const {
  const double y = o.y;
  const double s = v + noise_;
  return Eigen::VectorXd::Constant(1, 0.5 * ((y - m) * (y - m) / s - 1.0) / s);
}

Eigen::VectorXd GaussianLikelihood::d_log_likelihood_hyperparameters(const Observation& y,
                                                                     double f) const {
  const double r = y.y - f;
  return Eigen::VectorXd::Constant(1, 0.5 * (r * r / noise_ - 1.0) / noise_);
}

TargetMoments GaussianLikelihood::target_moments(double f, double) const { return {f, noise_}; }

double GaussianLikelihood::target_cdf(const Observation& y, double f) const {
  return normal_cdf((y.y - f) / std::sqrt(noise_));
}

TargetMoments GaussianLikelihood::predictive_moments(double m, double v, double) const {
  return {m, v + noise_};
}

}  // namespace quench::likelihoods
