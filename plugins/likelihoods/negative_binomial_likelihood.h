// Negative binomial counts with a log link, an exposure n (Observation::size) and a dispersion
// r > 0 (the gamma-Poisson mixture):
//   p(y | f) = Gamma(y + r) / (Gamma(r) y!) (r / (r + mu))^r (mu / (r + mu))^y,   mu = n e^f,
// E[y | f] = mu, Var[y | f] = mu + mu^2 / r; r -> infinity is the Poisson likelihood.
// With t = log(mu / r), r / (r + mu) = sigma(-t) and mu / (r + mu) = sigma(t) (sigma the
// logistic function), the forms every routine below evaluates: nothing overflows for any f. As
// a link likelihood (link_likelihood.h): log p = y log sigma(t) + r log sigma(-t) + c, c =
// log Gamma(y + r) / Gamma(r) - log y!, d/df log p = y sigma(-t) - r sigma(t) and
// d^2/df^2 log p = -(y + r) sigma(t) sigma(-t) < 0: log-concave in f.
#pragma once

#include <string>

#include "link_likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class NegativeBinomialLikelihood final : public LinkLikelihood {
 public:
  static ParamSchema schema();
  explicit NegativeBinomialLikelihood(const Params& params);
  /// ConfigError unless dispersion > 0 (finite).
  explicit NegativeBinomialLikelihood(double dispersion, std::string exposure = {});

  /// Counts; the size of an observation is its exposure.
  std::optional<TargetKind> target_kind() const override { return TargetKind::count; }
  std::string size_column() const override { return exposure_; }

  /// E[y | f] = mu, Var[y | f] = mu + mu^2 / r; P(Y <= y | f) = I_{r / (r + mu)}(r, y + 1), the
  /// regularized incomplete beta function; under f ~ N(m, v), with E = n e^(m + v/2):
  /// E[y] = E, Var[y] = E_f[mu + mu^2 / r] + Var_f[mu] = E + E^2 (e^v - 1 + e^v / r).
  TargetMoments target_moments(double f, double size) const override;
  double target_cdf(const Observation& y, double f) const override;
  TargetMoments predictive_moments(double m, double v, double size) const override;

  double dispersion() const { return r_; }

  /// One block, "dispersion" (r, log scale, bounds [1e-4, 1e6]: from a far wider spread than
  /// the gamma mixing of any count data to a log-likelihood within ((y - mu)^2 - y) / (2 r)
  /// of the Poisson's, ~1e-5 for |y - mu| <= 5).
  std::vector<Hyperparameter> hyperparameters() const override;
  /// ConfigError for another name (Likelihood::set_hyperparameter) or a value not > 0.
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;
  /// d/dr log p = psi(y + r) - psi(r) + log(r / (r + mu)) + (mu - y) / (r + mu), summed as
  /// [psi(y + r) - psi(r) - log(1 + y/r)] + [log(1 + c) - c], c = (y - mu) / (r + mu), whose
  /// parts do not cancel as r -> infinity. d_log_tilted_normalizer is the interface's tilted
  /// mean of it (no closed form).
  Eigen::VectorXd d_log_likelihood_hyperparameters(const Observation& y, double f) const override;

 protected:
  LinkSite site(const Observation& y) const override;
  /// log Gamma(y + r) / Gamma(r) - log y! (log_gamma_ratio.h).
  double log_normalizer(const Observation& y) const override;

 private:
  double r_;
  std::string exposure_;
};

}  // namespace quench::likelihoods
