// Logistic (logit) likelihood of a binary label y = -1 or +1:
//   p(y | f) = sigma(y f) = 1 / (1 + e^(-y f)),
// log-concave in f (d^2/df^2 log p = -sigma(f) sigma(-f)). As a link likelihood
// (link_likelihood.h): log sigma(y f) = a log sigma(f) + b log sigma(-f), a = [y = 1],
// b = [y = -1], every term from the stable forms of logistic.h.
#pragma once

#include "link_likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

class LogitLikelihood final : public LinkLikelihood {
 public:
  /// No parameters.
  static ParamSchema schema() { return {}; }
  LogitLikelihood() = default;
  explicit LogitLikelihood(const Params& /*params*/) {}

  /// Binary targets: y = -1 or +1.
  std::optional<TargetKind> target_kind() const override { return TargetKind::binary; }

  /// E[y | f] = sigma(f) - sigma(-f) = tanh(f / 2), Var[y | f] = 4 sigma(f) sigma(-f) (not
  /// 1 - E^2, which cancels to 0 in the tails).
  TargetMoments target_moments(double f, double size) const override;

 protected:
  LinkSite site(const Observation& y) const override;
};

}  // namespace quench::likelihoods
