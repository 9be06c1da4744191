#include "binomial_likelihood.h"

#include <cmath>
#include <utility>

#include <boost/math/special_functions/beta.hpp>

#include "logistic.h"
#include "quench/errors.h"
#include "quench/normal.h"

namespace quench::likelihoods {

ParamSchema BinomialLikelihood::schema() {
  ParamSchema s;
  s.string("link", "success probability of f: logit (sigma(f)) or probit (Phi(f))",
           std::string("logit"), {"logit", "probit"})
      .string("trials", "data column of the numbers of trials n (empty: every n is 1)",
              std::string());
  return s;
}

BinomialLikelihood::BinomialLikelihood(const Params& params)
    : BinomialLikelihood(link_from_string(params.string("link")), params.string("trials")) {}

BinomialLikelihood::BinomialLikelihood(Link link, std::string trials)
    : link_(link), trials_(std::move(trials)) {}

Link BinomialLikelihood::link_from_string(const std::string& name) {
  if (name == "logit") return Link::logit;
  if (name == "probit") return Link::probit;
  throw ConfigError({}, "binomial: 'link' must be logit or probit, got '" + name + "'");
}

LinkSite BinomialLikelihood::site(const Observation& y) const {
  return LinkSite(link_, y.y, y.size - y.y, 0.0);
}

double BinomialLikelihood::log_normalizer(const Observation& y) const {
  return std::lgamma(y.size + 1) - std::lgamma(y.y + 1) - std::lgamma(y.size - y.y + 1);
}

TiltedMoments BinomialLikelihood::tilted_moments_power(const Observation& y, double m, double v,
                                                       int k) const {
  if (link_ == Link::probit && y.size == 1)
    return bernoulli_probit_.tilted_moments_power({2 * y.y - 1}, m, v, k);
  return LinkLikelihood::tilted_moments_power(y, m, v, k);
}

double BinomialLikelihood::success(double x) const {
  return link_ == Link::logit ? logistic(x) : normal_cdf(x);
}

TargetMoments BinomialLikelihood::target_moments(double f, double size) const {
  const double p = success(f);
  return {size * p, size * p * success(-f)};
}

double BinomialLikelihood::target_cdf(const Observation& o, double f) const {
  // P(Y <= y) = I_q(n - y, y + 1), q = g(-f) = 1 - p; from the smaller of p and q, the argument
  // Boost then takes exactly (I_q(a, b) = 1 - I_p(b, a)).
  const double n = o.size, y = std::floor(o.y);
  if (y < 0) return 0.0;
  if (y >= n) return 1.0;
  return f >= 0 ? boost::math::ibeta(n - y, y + 1, success(-f))
                : boost::math::ibetac(y + 1, n - y, success(f));
}

}  // namespace quench::likelihoods
