// Poisson counts with a log link and an exposure n (Observation::size):
//   p(y | f) = mu^y e^-mu / y!,   mu = n e^f,   y = 0, 1, 2, ...
// log-concave in f (d^2/df^2 log p = -mu).
#pragma once

#include <string>

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class PoissonLikelihood final : public Likelihood {
 public:
  static ParamSchema schema();
  explicit PoissonLikelihood(const Params& params);
  /// `exposure`: the data column of the exposures n; empty: every n is 1.
  explicit PoissonLikelihood(std::string exposure = {});

  /// Counts; the size of an observation is its exposure.
  std::optional<TargetKind> target_kind() const override { return TargetKind::count; }
  std::string size_column() const override { return exposure_; }

  /// log p = y log mu - mu - log y!, d/df = y - mu, d^2/df^2 = -mu.
  double log_likelihood(const Observation& y, double f) const override;
  double d_log_likelihood(const Observation& y, double f) const override;
  double d2_log_likelihood(const Observation& y, double f) const override;
  double curvature_bound() const override { return 0.0; }
  /// k = 0 the Gaussian, else the mode-centred rule of quench/tilted_power_moments.h on the
  /// cavity re-centred at the tilted mode (completing the square: exact), found through
  /// w + log w = x (Lambert W): the rule's own mode search is then one step, and log y! is
  /// added once rather than at every node.
  TiltedMoments tilted_moments(const Observation& y, double m, double v) const override;
  TiltedMoments tilted_moments_power(const Observation& y, double m, double v,
                                     int k) const override;

  /// E[y | f] = Var[y | f] = n e^f; P(Y <= y | f) = Q(y + 1, mu), the regularized upper
  /// incomplete gamma function; under f ~ N(m, v) (lognormal moments of mu): E[y] = n e^(m + v/2),
  /// Var[y] = E[y] + E[y]^2 (e^v - 1).
  TargetMoments target_moments(double f, double size) const override;
  double target_cdf(const Observation& y, double f) const override;
  TargetMoments predictive_moments(double m, double v, double size) const override;

 private:
  std::string exposure_;
};

}  // namespace quench::likelihoods
