// Bayesian-bootstrap weights (004 eq 4, Algorithm 1): w_i = log(1/u_i) i.i.d. Exp(1); with
// `normalize`, w / mean(w), i.e. N times Rubin's Dirichlet(1, ..., 1) weights (the WBB
// solution is invariant to this rescaling, 004 Sec. 2.5).
#pragma once

#include "quench/parameters.h"
#include "quench/resampler.h"

namespace quench::resamplers {

class ExponentialWeights final : public Resampler {
 public:
  static ParamSchema schema();
  explicit ExponentialWeights(const Params& params);
  void do_prepare(Eigen::Index n) override { n_ = n; }
  /// The weights are continuous: no integer occupation distribution (throws ConfigError).
  double do_occupation_pmf(int k) const override;
  int do_max_occupation(double tail) const override;
  bool draws_counts() const override { return false; }
  Eigen::VectorXd do_sample(RngStream& rng) const override;
  double do_expected_size() const override { return static_cast<double>(n_); }

 private:
  bool normalize_;
  bool ziggurat_;
  Eigen::Index n_ = 0;
};

}  // namespace quench::resamplers
