// The Dirichlet label transform of 002 Sec. 4 (Milios et al. 2018): a one-hot label becomes
// Dirichlet concentrations alpha_c = 1 + alpha_eps for the true class and alpha_eps otherwise
// (eq 10); each Gamma(alpha_c, 1) component is approximated by a log-normal, giving
// regression targets y^_c = log alpha_c - sigma_c^2 / 2 with noise sigma_c^2 = log(1/alpha_c + 1)
// (eq 11). Classification becomes C heteroskedastic regressions on the latent f_c.
#pragma once

#include "quench/likelihood.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

/// (y^, sigma^2) of eq 11 for one concentration alpha.
struct DirichletTarget {
  double mean = 0.0;
  double variance = 0.0;
};
DirichletTarget dirichlet_target(double alpha);

class DirichletLikelihood final : public Likelihood {
 public:
  static ParamSchema schema();
  explicit DirichletLikelihood(const Params& params);

  /// Binary view for the scalar interface: y = +1 (or 1) is the class whose latent is f,
  /// anything else the other class; log N(y^; f, sigma^2) of that class's eq 11 target.
  /// Class labels (vboot reads the labels itself, TargetUse::data).
  std::optional<TargetKind> target_kind() const override { return TargetKind::classes; }
  double log_likelihood(const Observation& y, double f) const override;
  double d_log_likelihood(const Observation& y, double f) const override;
  double d2_log_likelihood(const Observation& y, double f) const override;
  /// Labels 0..classes-1; for two classes also -1/+1 (-1 = class 0).
  std::optional<RegressionTargets> regression_targets(const Eigen::VectorXd& labels,
                                                      Eigen::Index classes) const override;

 private:
  DirichletTarget target_of(double y) const;
  double alpha_eps_;
};

}  // namespace quench::likelihoods
