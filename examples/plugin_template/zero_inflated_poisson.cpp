// The zero-inflated Poisson likelihood (zero_inflated_poisson.h) and its library's descriptor.
// Built like matern32.cpp (see CMakeLists.txt); then, e.g.
//
//   quench run examples/plugin_template/zip_pipeline.yaml --plugin-path build-template
//
// Every method below is evaluated in logs: mu = n e^f overflows only for f > 709, and p(0 | f)
// is a two-term log-sum-exp that stays exact when pi or e^-mu underflows.
#include "zero_inflated_poisson.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <boost/math/special_functions/gamma.hpp>

#include "quench/errors.h"
#include "quench/plugin.h"
#include "quench/printable.h"

namespace zip {
namespace {

constexpr const char* kName = "zero_inflated_poisson";

double checked_probability(double pi) {
  if (!(pi >= ZeroInflatedPoisson::kMinZeroProbability &&
        pi <= ZeroInflatedPoisson::kMaxZeroProbability))
    throw quench::ConfigError(
        {}, std::string(kName) + ": 'zero_probability' must be in [" +
                quench::format_number(ZeroInflatedPoisson::kMinZeroProbability) + ", " +
                quench::format_number(ZeroInflatedPoisson::kMaxZeroProbability) + "], got " +
                quench::format_number(pi));
  return pi;
}

}  // namespace

quench::ParamSchema ZeroInflatedPoisson::schema() {
  quench::ParamSchema s;
  s.real("zero_probability", "pi, the probability of a structural zero (pi -> 0: Poisson)", 0.1,
         kMinZeroProbability, kMaxZeroProbability)
      .string("exposure", "data column of the exposures n, rate n e^f (empty: every n is 1)",
              std::string());
  return s;
}

ZeroInflatedPoisson::ZeroInflatedPoisson(const quench::Params& params)
    : ZeroInflatedPoisson(params.real("zero_probability"), params.string("exposure")) {}

ZeroInflatedPoisson::ZeroInflatedPoisson(double zero_probability, std::string exposure)
    : exposure_(std::move(exposure)) {
  set_zero_probability(zero_probability);
}

void ZeroInflatedPoisson::set_zero_probability(double pi) {
  pi_ = checked_probability(pi);
  log_pi_ = std::log(pi_);
  log1m_pi_ = std::log1p(-pi_);
}

ZeroInflatedPoisson::Zero ZeroInflatedPoisson::zero(double log_mu) const {
  // a = log pi (a structural zero), b = log(1 - pi) - mu (a Poisson zero), e = e^-|a - b|:
  // log p = max(a, b) + log1p(e); w = e^b / (e^a + e^b) and 1 - w each 1 / (1 + e) or
  // e / (1 + e), 1 - w not formed as a difference (it is ~pi e^mu for a small pi).
  const double a = log_pi_, b = log1m_pi_ - std::exp(log_mu);
  const double e = std::exp(-std::fabs(a - b));
  const double large = 1.0 / (1.0 + e), small = e / (1.0 + e);
  return {std::max(a, b) + std::log1p(e), b >= a ? large : small, b >= a ? small : large};
}

double ZeroInflatedPoisson::log_likelihood(const quench::Observation& o, double f) const {
  const double log_mu = std::log(o.size) + f;
  if (o.y == 0) return zero(log_mu).log_p;
  return log1m_pi_ + o.y * log_mu - std::exp(log_mu) - std::lgamma(o.y + 1.0);
}

double ZeroInflatedPoisson::d_log_likelihood(const quench::Observation& o, double f) const {
  const double log_mu = std::log(o.size) + f;
  const double mu = std::exp(log_mu);
  if (o.y != 0) return o.y - mu;
  const double w = zero(log_mu).w;
  return w > 0 ? -mu * w : 0.0;  // w = 0 only where e^-mu underflows: mu w -> 0
}

double ZeroInflatedPoisson::d2_log_likelihood(const quench::Observation& o, double f) const {
  const double log_mu = std::log(o.size) + f;
  const double mu = std::exp(log_mu);
  if (o.y != 0) return -mu;
  const Zero z = zero(log_mu);
  // d/df of -mu w, with dw/df = -mu w (1 - w).
  return z.w > 0 ? -mu * z.w * (1.0 - mu * z.not_w) : 0.0;
}

quench::TargetMoments ZeroInflatedPoisson::target_moments(double f, double size) const {
  const double mu = size * std::exp(f);
  return {(1.0 - pi_) * mu, (1.0 - pi_) * mu * (1.0 + pi_ * mu)};
}

double ZeroInflatedPoisson::target_cdf(const quench::Observation& o, double f) const {
  // P(Poisson <= y) = Q(floor(y) + 1, mu) (the Poisson-gamma duality).
  if (o.y < 0) return 0.0;
  return pi_ + (1.0 - pi_) * boost::math::gamma_q(std::floor(o.y) + 1.0, o.size * std::exp(f));
}

std::vector<quench::Hyperparameter> ZeroInflatedPoisson::hyperparameters() const {
  quench::Hyperparameter h;
  h.name = "zero_probability";
  h.value = Eigen::VectorXd::Constant(1, pi_);
  h.lower = kMinZeroProbability;
  h.upper = kMaxZeroProbability;
  h.log_scale = true;  // learned as log pi: the scale of pi near 0, where it matters
  return {h};
}

void ZeroInflatedPoisson::set_hyperparameter(const std::string& name,
                                             const Eigen::VectorXd& value) {
  if (name != "zero_probability") quench::Likelihood::set_hyperparameter(name, value);  // throws
  if (value.size() != 1)
    throw quench::ConfigError({}, std::string(kName) +
                                      ": 'zero_probability' takes one number, got " +
                                      std::to_string(value.size()));
  set_zero_probability(value(0));
}

Eigen::VectorXd ZeroInflatedPoisson::d_log_likelihood_hyperparameters(const quench::Observation& o,
                                                                      double f) const {
  if (o.y != 0) return Eigen::VectorXd::Constant(1, -1.0 / (1.0 - pi_));
  // (1 - e^-mu) / p(0 | f): no cancellation for a small mu, p(0 | f) >= pi never underflows.
  const double log_mu = std::log(o.size) + f;
  return Eigen::VectorXd::Constant(1,
                                   -std::expm1(-std::exp(log_mu)) * std::exp(-zero(log_mu).log_p));
}

// The library's descriptor: one likelihood plugin. A likelihood declares no engines and no
// target use of its own: engines read target_kind() to decide whether they can fit it.
const quench::LibraryDescriptor* describe() {
  static const auto descriptor = quench::make_library(
      "quench_zero_inflated_poisson", "0.1.0",
      {quench::make_plugin<ZeroInflatedPoisson>(
          quench::Family::likelihood, kName, "0.1.0",
          "zero-inflated Poisson counts: 0 with probability pi, else Poisson(n e^f)",
          ZeroInflatedPoisson::schema())});
  return &descriptor;
}

}  // namespace zip

QUENCH_PLUGIN_LIBRARY(zip::describe)
