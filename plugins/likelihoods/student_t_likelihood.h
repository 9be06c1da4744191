// Student-t observation noise, robust to outliers: with z = (y - f) / sigma,
//   p(y | f) = Gamma((nu + 1) / 2) / (Gamma(nu / 2) sqrt(pi nu) sigma) (1 + z^2 / nu)^(-(nu + 1) /
//   2),
// nu > 0 degrees of freedom, scale sigma > 0 (nu -> infinity: Gaussian noise N(y; f, sigma^2)).
// Not log-concave (d^2/df^2 log p > 0 for z^2 > nu): the tilted density of an outlier has two
// modes, and the tilted moments take the interface's adaptive rule (quench/tilted_quadrature.h).
#pragma once

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class StudentTLikelihood final : public Likelihood {
 public:
  static ParamSchema schema();
  explicit StudentTLikelihood(const Params& params);
  /// ConfigError unless dof > 0 and scale > 0 (finite).
  StudentTLikelihood(double dof, double scale);

  /// Real targets.
  std::optional<TargetKind> target_kind() const override { return TargetKind::real; }

  /// log p = log Gamma((nu + 1) / 2) / Gamma(nu / 2) - log(pi nu) / 2 - log sigma
  /// - (nu + 1) / 2 log(1 + z^2 / nu); d/df = (nu + 1) z / (sigma (nu + z^2));
  /// d^2/df^2 = (nu + 1) (z^2 - nu) / (sigma^2 (nu + z^2)^2).
  double log_likelihood(const Observation& y, double f) const override;
  double d_log_likelihood(const Observation& y, double f) const override;
  double d2_log_likelihood(const Observation& y, double f) const override;
  /// (nu + 1) / (8 nu sigma^2), the largest d^2/df^2 log p (at z^2 = 3 nu): the tilted density
  /// of a cavity variance v < 8 nu sigma^2 / (nu + 1) is log-concave whatever y, so most sites
  /// take the fast mode-centred rule.
  double curvature_bound() const override;
  /// y and y -+ sigma sqrt(nu), where l'' changes sign: the peak of the likelihood and the
  /// bends to its power tails.
  int transitions(const Observation& y, double* out) const override;

  /// E[y | f] = f (for nu <= 1, where the mean does not exist, the centre f of the symmetric
  /// distribution), Var[y | f] = sigma^2 nu / (nu - 2) for nu > 2, +infinity otherwise;
  /// P(Y <= y | f) = T_nu(z), the Student-t distribution function; under f ~ N(m, v): mean m,
  /// variance v + sigma^2 nu / (nu - 2) (+infinity for nu <= 2).
  TargetMoments target_moments(double f, double size) const override;
  double target_cdf(const Observation& y, double f) const override;
  TargetMoments predictive_moments(double m, double v, double size) const override;

  double dof() const { return nu_; }
  double scale() const { return sigma_; }

  /// Two blocks, log scale: "dof" (nu, bounds [0.1, 1e4]: from tails far heavier than the
  /// Cauchy's to a log density within (z^4 - 2 z^2 - 1) / (4 nu) < 2e-3 of the Gaussian's over
  /// |z| <= 3; not learned by default: its evidence is flat or has several optima, heading for
  /// the Cauchy's nu ~ 1 on data with a few outliers) and "scale" (sigma, bounds [1e-5, 1e3],
  /// the standard deviations of the gaussian likelihood's noise bounds).
  std::vector<Hyperparameter> hyperparameters() const override;
  /// ConfigError for another name (Likelihood::set_hyperparameter) or a value not > 0.
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;
  /// d/dnu log p = (psi((nu + 1) / 2) - psi(nu / 2) - log(1 + z^2 / nu) + (z^2 - 1) / (nu + z^2))
  /// / 2, summed as ([psi((nu + 1) / 2) - psi(nu / 2) - log(1 + 1/nu)] + [log(1 + c) - c]) / 2,
  /// c = (1 - z^2) / (nu + z^2), whose parts do not cancel as nu -> infinity;
  /// d/dsigma log p = nu (z^2 - 1) / (sigma (nu + z^2)). d_log_tilted_normalizer is the
  /// interface's tilted mean of them (no closed form).
  Eigen::VectorXd d_log_likelihood_hyperparameters(const Observation& y, double f) const override;

 private:
  /// Sets log_normalizer_ from nu_ and sigma_.
  void update_normalizer();

  double nu_;
  double sigma_;
  /// log Gamma((nu + 1) / 2) / Gamma(nu / 2) - log(pi nu) / 2 - log sigma.
  double log_normalizer_ = 0.0;
};

}  // namespace quench::likelihoods
