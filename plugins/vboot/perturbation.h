// The perturbation "resampler" of the variational bootstrap (002 Sec. 3, Algorithms 1-2): per
// particle, targets y~_ic ~ N(y^_ic, sigma^2_ic) (eq 13) and a prior mean theta~ ~ N(0, alpha^2
// I) (eq 6). It leaves the data weights alone, so as a weight resampler every point occurs
// exactly once (occupation_pmf(1) = 1).
#pragma once

#include "quench/parameters.h"
#include "quench/resampler.h"

namespace quench::vboot {

class PerturbationResampler final : public Resampler {
 public:
  static ParamSchema schema();
  explicit PerturbationResampler(const Params& params);
  void do_prepare(Eigen::Index n) override { n_ = n; }
  double do_occupation_pmf(int k) const override { return k == 1 ? 1.0 : 0.0; }
  int do_max_occupation(double /*tail*/) const override { return 1; }
  Eigen::VectorXd do_sample(RngStream& /*rng*/) const override { return Eigen::VectorXd::Ones(n_); }
  double do_expected_size() const override { return double(n_); }
  bool perturbs() const override { return true; }
  /// Draws the targets (row-major over points, then classes) before the prior mean
  /// (column-major), all from rng.
  Perturbation perturb(const RegressionTargets& targets, Eigen::Index prior_rows,
                       Eigen::Index prior_cols, double prior_variance,
                       RngStream& rng) const override;

 private:
  bool perturb_targets_, perturb_prior_;
  Eigen::Index n_ = 0;
};

}  // namespace quench::vboot
