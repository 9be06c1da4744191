// Binomial successes y of n trials (Observation::size) with success probability p = g(f):
//   p(y | f) = C(n, y) g(f)^y (1 - g(f))^(n - y),   y = 0..n,
// g the logistic function sigma (link logit) or the normal cdf Phi (link probit). As a link
// likelihood (link_likelihood.h): log p = y log g(f) + (n - y) log g(-f) + log C(n, y), without
// forming 1 - g; log-concave in f. One trial is the Bernoulli likelihood of the logit
// (y = 1 <-> +1, 0 <-> -1) or of the probit with noise 1.
#pragma once

#include <string>

#include "link_likelihood.h"
#include "probit_likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class BinomialLikelihood final : public LinkLikelihood {
 public:
  static ParamSchema schema();
  explicit BinomialLikelihood(const Params& params);
  /// `trials`: the data column of the trials n; empty: every n is 1 (Bernoulli).
  explicit BinomialLikelihood(Link link, std::string trials = {});
  /// "logit" or "probit"; ConfigError otherwise.
  static Link link_from_string(const std::string& name);

  /// Successes; the size of an observation is its number of trials.
  std::optional<TargetKind> target_kind() const override { return TargetKind::successes; }
  std::string size_column() const override { return trials_; }

  /// One trial with the probit link: the closed form of the probit likelihood (001 eq 23) and
  /// its k-fold powers (probit_likelihood.h); otherwise the link likelihood's rule.
  TiltedMoments tilted_moments_power(const Observation& y, double m, double v,
                                     int k) const override;

  /// E[y | f] = n g(f), Var[y | f] = n g(f) g(-f); P(Y <= y | f) = I_{g(-f)}(n - y, y + 1), the
  /// regularized incomplete beta function.
  TargetMoments target_moments(double f, double size) const override;
  double target_cdf(const Observation& y, double f) const override;

  Link link() const { return link_; }

 protected:
  LinkSite site(const Observation& y) const override;
  /// log C(n, y).
  double log_normalizer(const Observation& y) const override;

 private:
  // g(x) of the link.
  double success(double x) const;

  Link link_;
  std::string trials_;
  ProbitLikelihood bernoulli_probit_{1.0, 0.0};  // Phi(y f), y = +-1
};

}  // namespace quench::likelihoods
