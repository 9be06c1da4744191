#include "poisson_likelihood.h"

#include <cmath>
#include <utility>

#include <boost/math/special_functions/gamma.hpp>

#include "quench/tilted_power_moments.h"

namespace quench::likelihoods {

namespace {

// The mode of p(y|f)^k N(f; m, v), where k (y - n e^f) = (f - m) / v: with w = k v n e^f,
// w + log w = x = m + k v y + log(k v n) (w = W(e^x), the Lambert W function). Newton's method
// on s = log w, h(s) = e^s + s - x, from s = log x (x > 1) or s = x, both right of the root:
// h is convex and increasing, so the iterates decrease monotonically to it.
double tilted_mode(double y, double n, double m, double v, int k) {
  const double log_kvn = std::log(k * v * n);
  const double x = m + k * v * y + log_kvn;
  double s = x > 1 ? std::log(x) : x;
  for (int it = 0; it < 100; ++it) {
    const double step = (std::exp(s) + s - x) / (std::exp(s) + 1);
    s -= step;
    if (!(std::fabs(step) > 1e-15 * (1 + std::fabs(s)))) break;
  }
  return s - log_kvn;  // f = log(w / (k v n))
}

// y log(n e^f) - n e^f + (f - c) a, a = (m - c) / (k v): with the Gaussian's square completed
// at c, k l(f) - (f - m)^2 / (2v) = k [l(f) + (f - c) a] - (f - c)^2 / (2v) - (m - c)^2 / (2v),
// so this site under the cavity N(c, v) has the tilted density of l under N(m, v).
class RecentredSite final : public TiltedPowerSite {
 public:
  RecentredSite(const Observation& y, double c, double a)
      : y_(y.y), log_n_(std::log(y.size)), c_(c), a_(a) {}
  Slope slope(double f) const override {
    const double mu = std::exp(log_n_ + f);
    return {y_ - mu + a_, -mu};
  }
  void values(const double* f, double* out, std::size_t n) const override {
    for (std::size_t i = 0; i < n; ++i) {
      const double log_mu = log_n_ + f[i];
      out[i] = y_ * log_mu - std::exp(log_mu) + (f[i] - c_) * a_;
    }
  }

 private:
  double y_, log_n_, c_, a_;
};

}  // namespace

ParamSchema PoissonLikelihood::schema() {
  ParamSchema s;
  s.string("exposure", "data column of the exposures n, rate n e^f (empty: every n is 1)",
           std::string());
  return s;
}

PoissonLikelihood::PoissonLikelihood(const Params& params)
    : PoissonLikelihood(params.string("exposure")) {}

PoissonLikelihood::PoissonLikelihood(std::string exposure) : exposure_(std::move(exposure)) {}

double PoissonLikelihood::log_likelihood(const Observation& o, double f) const {
  // y log mu - mu - log y!, with log mu = log n + f taken without forming mu first.
  const double log_mu = std::log(o.size) + f;
  return o.y * log_mu - std::exp(log_mu) - std::lgamma(o.y + 1.0);
}

double PoissonLikelihood::d_log_likelihood(const Observation& o, double f) const {
  return o.y - o.size * std::exp(f);
}

double PoissonLikelihood::d2_log_likelihood(const Observation& o, double f) const {
  return -o.size * std::exp(f);
}

TiltedMoments PoissonLikelihood::tilted_moments(const Observation& y, double m, double v) const {
  return tilted_moments_power(y, m, v, 1);
}

TiltedMoments PoissonLikelihood::tilted_moments_power(const Observation& y, double m, double v,
                                                      int k) const {
  check_tilted_power_arguments(m, v, k);
  if (k == 0) return {0.0, m, v};
  const double c = tilted_mode(y.y, y.size, m, v, k);
  TiltedMoments t = tilted_power_moments(RecentredSite(y, c, (m - c) / (k * v)), c, v, k);
  t.log_z += -k * std::lgamma(y.y + 1.0) - 0.5 * (m - c) * (m - c) / v;
  return t;
}

TargetMoments PoissonLikelihood::target_moments(double f, double size) const {
  const double mu = size * std::exp(f);
  return {mu, mu};
}

double PoissonLikelihood::target_cdf(const Observation& o, double f) const {
  // P(Y <= y) = Q(a, mu), a = floor(y) + 1 (the Poisson-gamma duality). Boost's Q throws where
  // a predictive quantile's search meets it (quench/target_prediction.h): an overflow for a
  // large a at a mean far below it, a series that gives up at x = a > 2e10. Those tails are
  // decided by bounds, the largest a by the Wilson-Hilferty normal form (error O(1/a)).
  if (o.y < 0) return 0.0;
  const double a = std::floor(o.y) + 1.0, mu = o.size * std::exp(f);
  if (mu <= 0.5 * a) {
    // P(Y >= a) <= 2 p(a; mu): the terms above fall by a ratio mu / (j + 1) <= 1/2.
    if (std::log(2.0) + a * std::log(mu) - mu - std::lgamma(a + 1.0) < -40.0) return 1.0;
  } else if (mu >= 2.0 * a) {
    // P(Y <= a - 1) <= 2 p(a - 1; mu): the terms below fall by a ratio j / mu <= 1/2.
    if (std::log(2.0) + (a - 1.0) * std::log(mu) - mu - std::lgamma(a) < -745.0) return 0.0;
  }
  if (a > 1e9) {
    const double z = 3.0 * std::sqrt(a) * (std::cbrt(mu / a) - 1.0 + 1.0 / (9.0 * a));
    return 0.5 * std::erfc(z / std::sqrt(2.0));
  }
  return boost::math::gamma_q(a, mu);
}

TargetMoments PoissonLikelihood::predictive_moments(double m, double v, double size) const {
  // E[mu] = n e^(m + v/2), Var[mu] = E[mu]^2 (e^v - 1); Var[y] = E[mu] + Var[mu].
  const double mean = size * std::exp(m + 0.5 * v);
  return {mean, mean + mean * mean * std::expm1(v)};
}

}  // namespace quench::likelihoods
