#include "negative_binomial_likelihood.h"

#include <cmath>
#include <utility>

#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/log1p.hpp>

#include "log_gamma_ratio.h"
#include "logistic.h"
#include "positive_parameter.h"

namespace quench::likelihoods {

namespace {

constexpr const char* kNegativeBinomial = "negative_binomial";

// t = log(mu / r) = log n + f - log r.
double log_mean_over_dispersion(double size, double f, double r) {
  return std::log(size) + f - std::log(r);
}

}  // namespace

ParamSchema NegativeBinomialLikelihood::schema() {
  ParamSchema s;
  s.real("dispersion", "dispersion r > 0: Var[y | f] = mu + mu^2 / r (r -> infinity: Poisson)", 1.0)
      .string("exposure", "data column of the exposures n, mean n e^f (empty: every n is 1)",
              std::string());
  return s;
}

NegativeBinomialLikelihood::NegativeBinomialLikelihood(const Params& params)
    : NegativeBinomialLikelihood(params.real("dispersion"), params.string("exposure")) {}

NegativeBinomialLikelihood::NegativeBinomialLikelihood(double dispersion, std::string exposure)
    : r_(positive_parameter(kNegativeBinomial, "dispersion", dispersion)),
      exposure_(std::move(exposure)) {}

LinkSite NegativeBinomialLikelihood::site(const Observation& y) const {
  return LinkSite(Link::logit, y.y, r_, log_mean_over_dispersion(y.size, 0.0, r_));
}

double NegativeBinomialLikelihood::log_normalizer(const Observation& y) const {
  return log_gamma_ratio(r_, y.y) - std::lgamma(y.y + 1.0);
}

TargetMoments NegativeBinomialLikelihood::target_moments(double f, double size) const {
  const double mu = size * std::exp(f);
  return {mu, mu * (1.0 + mu / r_)};
}

double NegativeBinomialLikelihood::target_cdf(const Observation& o, double f) const {
  // P(Y <= y) = I_p(r, y + 1), p = r / (r + mu) = 1 - q; from the smaller of p and q, the
  // argument Boost then takes exactly (I_p(a, b) = 1 - I_q(b, a)).
  if (o.y < 0) return 0.0;
  const double t = log_mean_over_dispersion(o.size, f, r_);
  const double b = std::floor(o.y) + 1.0;
  return t >= 0 ? boost::math::ibeta(r_, b, logistic(-t)) : boost::math::ibetac(b, r_, logistic(t));
}

TargetMoments NegativeBinomialLikelihood::predictive_moments(double m, double v,
                                                             double size) const {
  const double mean = size * std::exp(m + 0.5 * v);
  return {mean, mean + mean * mean * (std::expm1(v) + std::exp(v) / r_)};
}

std::vector<Hyperparameter> NegativeBinomialLikelihood::hyperparameters() const {
  Hyperparameter h;
  h.name = "dispersion";
  h.value = Eigen::VectorXd::Constant(1, r_);
  h.lower = 1e-4;
  h.upper = 1e6;
  return {h};
}

void NegativeBinomialLikelihood::set_hyperparameter(const std::string& name,
                                                    const Eigen::VectorXd& value) {
  if (name != "dispersion") Likelihood::set_hyperparameter(name, value);  // throws
  r_ = positive_block(kNegativeBinomial, name, value);
}

Eigen::VectorXd NegativeBinomialLikelihood::d_log_likelihood_hyperparameters(const Observation& o,
                                                                             double f) const {
  // psi(y + r) - psi(r) - log(1 + y/r) + log(1 + c) - c with c = (y - mu) / (r + mu) =
  // y sigma(-t) / r - sigma(t) and 1 + c = (r + y) / (r + mu): each part of the size of the
  // result (~ (y - (y - mu)^2) / (2 r^2) as r -> infinity), log(1 + c) - c by log1pmx near 0.
  const double y = o.y, t = log_mean_over_dispersion(o.size, f, r_);
  const double c = y * logistic(-t) / r_ - logistic(t);
  const double log1p_minus_c =
      std::fabs(c) < 0.5 ? boost::math::log1pmx(c) : std::log1p(y / r_) + log_logistic(-t) - c;
  return Eigen::VectorXd::Constant(1, digamma_difference_excess(r_, y) + log1p_minus_c);
}

}  // namespace quench::likelihoods
