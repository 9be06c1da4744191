// The default implementations of quench::Likelihood: tilted moments by quadrature (mode-centred
// for log-concave tilted densities, adaptive otherwise), predictions of y from the probability mass
// of a discrete target, and the hyperparameter gradient of log Z as a tilted mean.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "quench/errors.h"
#include "quench/gauss_hermite.h"
#include "quench/likelihood.h"
#include "quench/tilted_quadrature.h"

namespace quench {

namespace {

// The most mass points a default count distribution is summed over.
constexpr long kMaxCountTerms = 10'000'000;
// Gauss-Hermite nodes of predictive_moments' default.
constexpr int kPredictiveNodes = 32;

// Calls visit(y, p(y | f)) for every point of a discrete kind's support with mass: binary -1, +1;
// successes 0..size; counts 0, 1, ... until, past the mode, the tail left is below 1e-15 of the
// mass summed (bounded by the geometric series of the last ratio p(k) / p(k - 1), an upper bound
// for a log-concave mass function; NumericalError when it does not end within kMaxCountTerms).
// ConfigError for the real kind (no mass to sum) or none declared.
template <class Visit>
void for_each_outcome(const Likelihood& lik, double f, double size, Visit&& visit) {
  const auto kind = lik.target_kind();
  const auto p = [&](double y) { return std::exp(lik.log_likelihood({y, size}, f)); };
  if (kind == TargetKind::binary) {
    visit(-1.0, p(-1.0));
    visit(1.0, p(1.0));
  } else if (kind == TargetKind::successes) {
    for (double y = 0; y <= size; ++y) visit(y, p(y));
  } else if (kind == TargetKind::count) {
    double total = 0, last = 0;
    for (long k = 0; k < kMaxCountTerms; ++k) {
      const double mass = p(static_cast<double>(k));
      total += mass;
      visit(static_cast<double>(k), mass);
      const double ratio = k > 0 && last > 0 ? mass / last : 1.0;
      last = mass;
      if (ratio < 1.0 && mass * ratio / (1.0 - ratio) < 1e-15 * total) return;
    }
    throw NumericalError("likelihood", "the count distribution at f = " + std::to_string(f) +
                                           " holds " + std::to_string(total) + " of its mass in " +
                                           std::to_string(kMaxCountTerms) + " terms");
  } else {
    throw ConfigError({}, std::string("a likelihood of ") +
                              (kind ? to_string(*kind) : "undeclared") +
                              " targets must give target_moments and target_cdf (E, Var and the "
                              "distribution function of y given f)");
  }
}

}  // namespace

TiltedMoments Likelihood::tilted_moments(const Observation& y, double m, double v) const {
  check_tilted_power_arguments(m, v, 1);
  return tilted_site_moments(*this, y, m, v, 1);
}

TiltedMoments Likelihood::tilted_moments_power(const Observation& y, double m, double v,
                                               int k) const {
  check_tilted_power_arguments(m, v, k);
  if (k == 0) return {0.0, m, v};
  if (k == 1) return tilted_moments(y, m, v);
  return tilted_site_moments(*this, y, m, v, k);
}

TargetMoments Likelihood::target_moments(double f, double size) const {
  // The weighted mean and sum of squared deviations, updated point by point (West 1979): no
  // cancellation of E[y^2] - E[y]^2 for a large mean.
  double mass = 0, mean = 0, squares = 0;
  for_each_outcome(*this, f, size, [&](double y, double p) {
    if (!(p > 0)) return;
    mass += p;
    const double d = y - mean;
    mean += p / mass * d;
    squares += p * d * (y - mean);
  });
  return {mean, std::max(squares / mass, 0.0)};
}

double Likelihood::target_cdf(const Observation& y, double f) const {
  double below = 0, mass = 0;
  for_each_outcome(*this, f, y.size, [&](double outcome, double p) {
    mass += p;
    if (outcome <= y.y) below += p;
  });
  return std::min(below / mass, 1.0);
}

TargetMoments Likelihood::predictive_moments(double m, double v, double size) const {
  // Var[y] = E_f[Var(y | f)] + Var_f(E[y | f]) under f ~ N(m, v).
  const GaussHermiteRule& rule = gauss_hermite(kPredictiveNodes);
  const double s = std::sqrt(std::max(v, 0.0));
  double mean = 0, second = 0;
  for (std::size_t j = 0; j < rule.nodes.size(); ++j) {
    const TargetMoments t = target_moments(m + s * rule.nodes[j], size);
    mean += rule.weights[j] * t.mean;
    second += rule.weights[j] * (t.variance + t.mean * t.mean);
  }
  return {mean, std::max(second - mean * mean, 0.0)};
}

Eigen::VectorXd Likelihood::d_log_likelihood_hyperparameters(const Observation& /*y*/,
                                                             double /*f*/) const {
  throw ConfigError({}, hyperparameters().empty()
                            ? "this likelihood has no learnable hyperparameters"
                            : "this likelihood gives neither d_log_likelihood_hyperparameters "
                              "nor d_log_tilted_normalizer, so its hyperparameters cannot be "
                              "learned");
}

Eigen::VectorXd Likelihood::d_log_tilted_normalizer(const Observation& y, double m,
                                                    double v) const {
  if (hyperparameters().empty())
    throw ConfigError({}, "this likelihood has no learnable hyperparameters");
  // d log Z / dtheta = E_T[d log p(y | f) / dtheta] under the tilted density.
  const TiltedRule rule = tilted_site_rule(*this, y, m, v, 1);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(flat_size(hyperparameters()));
  for (std::size_t j = 0; j < rule.nodes.size(); ++j)
    g += rule.weights[j] * d_log_likelihood_hyperparameters(y, rule.nodes[j]);
  return g;
}

}  // namespace quench
