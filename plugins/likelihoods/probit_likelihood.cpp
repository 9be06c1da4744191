#include "probit_likelihood.h"

#include <cmath>
#include <limits>
#include <vector>

#include "quench/errors.h"
#include "quench/normal.h"
#include "quench/tilted_power_moments.h"

namespace quench::likelihoods {

namespace {

// a = (1 - 2 kappa) D(z) / Z and log Z for Z = kappa + (1 - 2 kappa) Phi(z).
struct ProbitSite {
  double log_z;
  double a;
  double factor;  // 1 - a (z + a), the tilted variance factor
};

ProbitSite probit_site(double z, double kappa) {
  ProbitSite s;
  if (kappa == 0.0) {
    s.log_z = normal_log_cdf(z);
    s.a = normal_pdf_cdf_ratio(z);
    s.factor = normal_variance_factor(z);
    return s;
  }
  const double w = 1.0 - 2.0 * kappa;
  const double log_phi = std::log(w) + normal_log_cdf(z);
  const double lk = std::log(kappa);
  const double hi = std::max(lk, log_phi), lo = std::min(lk, log_phi);
  s.log_z = hi + std::log1p(std::exp(lo - hi));
  // With eps = kappa / Z and r = D / Phi: a = r (1 - eps), z + a = (z + r) - r eps, and
  // 1 - a (z + a) = [1 - r (z + r)] + eps r ((z + r) + r (1 - eps)), a sum of positive terms.
  const double r = normal_pdf_cdf_ratio(z);
  const double eps = std::exp(lk - s.log_z);
  const double one_minus_eps = std::exp(log_phi - s.log_z);
  s.a = r * one_minus_eps;
  s.factor = normal_variance_factor(z) + eps * r * (normal_ratio_plus_z(z) + r * one_minus_eps);
  return s;
}

// Tilted moments of [kappa + (1 - 2 kappa) Phi(y f / sigma)] N(f; m, v), sigma^2 = noise:
// d log Z / dm = y a / s, d^2 log Z / dm^2 = -a (z + a) / s^2 (001 eqs 23, 29).
TiltedMoments probit_tilted(double y, double m, double v, double noise, double kappa) {
  const double s2 = v + noise;
  const double s = std::sqrt(s2);
  const double z = y * m / s;
  const ProbitSite p = probit_site(z, kappa);
  TiltedMoments t;
  t.log_z = p.log_z;
  t.mean = m + v * y * p.a / s;
  // v - v^2 a (z + a) / s^2 = v (noise + v * factor) / s^2, no cancellation.
  t.variance = v * (noise + v * p.factor) / s2;
  return t;
}

// l(f) = log Phi(y f / sigma) for the mode-centred quadrature of quench/tilted_power_moments.h.
class ProbitPowerSite final : public TiltedPowerSite {
 public:
  ProbitPowerSite(double y, double sigma) : y_over_sigma_(y / sigma), sigma_(sigma) {}
  // l' = y r(z) / sigma, l'' = -r (z + r) / sigma^2 with r = D/Phi(z), one ratio per call:
  // r from D/Phi above z = -6, else z + r from the continued fraction and r = (z + r) - z, a
  // sum of positive terms there.
  Slope slope(double f) const override {
    const double z = y_over_sigma_ * f;
    double r, zr;
    if (z >= -6.0) {
      r = normal_pdf_cdf_ratio(z);
      zr = z + r;
    } else {
      zr = normal_ratio_plus_z(z);
      r = zr - z;
    }
    return {y_over_sigma_ * r, -r * zr / (sigma_ * sigma_)};
  }
  void values(const double* f, double* out, std::size_t n) const override {
    for (std::size_t i = 0; i < n; ++i) out[i] = normal_log_cdf(y_over_sigma_ * f[i]);
  }
  // log Phi(z) has curvature in [-1, -0.63] for z <= 0 (one scale) and bends to 0 over
  // z in [0, 9] (above 9, log Phi > -1e-19: the tilted density is the cavity itself).
  int transitions(double* out) const override {
    out[0] = 0.0;
    out[1] = 9.0 / y_over_sigma_;
    return 2;
  }

 private:
  double y_over_sigma_, sigma_;
};

// Moments of Phi(y f / sigma)^k N(f; m, v) (kappa = 0): k = 0 the Gaussian, k = 1 and the step
// (sigma = 0, where Theta^k = Theta) in closed form, else the mode-centred quadrature.
TiltedMoments noiseless_label_power(double y, double m, double v, int k, double noise) {
  if (k == 0) return {0.0, m, v};
  if (k == 1 || noise == 0.0) return probit_tilted(y, m, v, noise, 0.0);
  return tilted_power_moments(ProbitPowerSite(y, std::sqrt(noise)), m, v, k);
}

}  // namespace

ParamSchema ProbitLikelihood::schema() {
  ParamSchema s;
  s.real("noise", "variance sigma^2 of the Gaussian input noise (0 = step likelihood)", 0.0, 0.0)
      .real("kappa", "label-flip probability kappa of 003 (0 = none)", 0.0, 0.0, 0.4999);
  return s;
}

ProbitLikelihood::ProbitLikelihood(const Params& params)
    : ProbitLikelihood(params.real("noise"), params.real("kappa")) {}

ProbitLikelihood::ProbitLikelihood(double noise, double kappa)
    : noise_(noise), kappa_(kappa), learn_noise_(noise > 0), learn_kappa_(kappa > 0) {
  if (noise < 0 || kappa < 0 || kappa >= 0.5)
    throw ConfigError({}, "probit: need noise >= 0 and 0 <= kappa < 0.5");
}

double ProbitLikelihood::log_likelihood(const Observation& o, double f) const {
  const double y = o.y;
  if (noise_ == 0.0) {
    const double p = y * f > 0 ? 1.0 - kappa_ : (y * f < 0 ? kappa_ : 0.5);
    return p > 0 ? std::log(p) : -std::numeric_limits<double>::infinity();
  }
  return probit_site(y * f / std::sqrt(noise_), kappa_).log_z;
}

double ProbitLikelihood::d_log_likelihood(const Observation& o, double f) const {
  const double y = o.y;
  if (noise_ == 0.0) return 0.0;
  const double s = std::sqrt(noise_);
  return y * probit_site(y * f / s, kappa_).a / s;
}

double ProbitLikelihood::d2_log_likelihood(const Observation& o, double f) const {
  const double y = o.y;
  if (noise_ == 0.0) return 0.0;
  const double s = std::sqrt(noise_);
  const double z = y * f / s;
  const ProbitSite p = probit_site(z, kappa_);
  return (p.factor - 1.0) / noise_;  // -a (z + a) / sigma^2
}

TiltedMoments ProbitLikelihood::tilted_moments(const Observation& y, double m, double v) const {
  return probit_tilted(y.y, m, v, noise_, kappa_);
}

TiltedMoments ProbitLikelihood::tilted_moments_power(const Observation& o, double m, double v,
                                                     int k) const {
  const double y = o.y;
  check_tilted_power_arguments(m, v, k);
  if (k == 1) return tilted_moments(o, m, v);
  if (k == 0 || kappa_ == 0.0) return noiseless_label_power(y, m, v, k, noise_);
  // (kappa + (1 - 2 kappa) Phi)^k = sum_j C(k, j) kappa^(k-j) (1 - 2 kappa)^j Phi^j: a mixture
  // of the kappa = 0 tilted distributions of every power j <= k with positive weights
  // C(k, j) kappa^(k-j) (1 - 2 kappa)^j Z_j, exact although the likelihood is not log-concave.
  std::vector<TiltedMoments> parts(static_cast<std::size_t>(k) + 1);
  std::vector<double> log_w(parts.size());
  double top = -std::numeric_limits<double>::infinity();
  for (int j = 0; j <= k; ++j) {
    const auto i = static_cast<std::size_t>(j);
    parts[i] = noiseless_label_power(y, m, v, j, noise_);
    log_w[i] = std::lgamma(k + 1.0) - std::lgamma(j + 1.0) - std::lgamma(k - j + 1.0) +
               (k - j) * std::log(kappa_) + j * std::log1p(-2.0 * kappa_) + parts[i].log_z;
    top = std::max(top, log_w[i]);
  }
  double total = 0, mean = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    log_w[i] = std::exp(log_w[i] - top);  // now the unnormalized weight
    total += log_w[i];
    mean += log_w[i] * parts[i].mean;
  }
  mean /= total;
  double variance = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const double d = parts[i].mean - mean;
    variance += log_w[i] * (parts[i].variance + d * d);
  }
  return {top + std::log(total), mean, variance / total};
}

std::vector<Hyperparameter> ProbitLikelihood::hyperparameters() const {
  std::vector<Hyperparameter> blocks;
  auto block = [&](const char* name, double value, double lower, double upper) {
    Hyperparameter h;
    h.name = name;
    h.value = Eigen::VectorXd::Constant(1, value);
    h.lower = lower;
    h.upper = upper;
    blocks.push_back(h);
  };
  if (learn_noise_) block("noise", noise_, 1e-10, 1e6);
  if (learn_kappa_) block("kappa", kappa_, 1e-8, 0.49);
  return blocks;
}

void ProbitLikelihood::set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) {
  if (!find_hyperparameter(hyperparameters(), name))
    Likelihood::set_hyperparameter(name, value);  // throws, naming the blocks
  const bool noise = name == "noise";
  if (value.size() != 1 || !(value(0) > 0.0) || (!noise && !(value(0) < 0.5)))
    throw ConfigError({}, noise ? "probit: 'noise' takes one positive number"
                                : "probit: 'kappa' takes one number in (0, 0.5)");
  (noise ? noise_ : kappa_) = value(0);
}

Eigen::VectorXd ProbitLikelihood::d_log_tilted_normalizer(const Observation& o, double m,
                                                          double v) const {
  const double y = o.y;
  const auto blocks = hyperparameters();
  if (blocks.empty()) Likelihood::d_log_tilted_normalizer(o, m, v);  // throws
  const double s2 = v + noise_;
  const double z = y * m / std::sqrt(s2);
  const ProbitSite p = probit_site(z, kappa_);
  Eigen::VectorXd g(static_cast<Eigen::Index>(blocks.size()));
  Eigen::Index j = 0;
  if (learn_noise_) g(j++) = -p.a * z / (2.0 * s2);
  if (learn_kappa_) g(j++) = -std::erf(z / std::sqrt(2.0)) * std::exp(-p.log_z);
  return g;
}

}  // namespace quench::likelihoods
