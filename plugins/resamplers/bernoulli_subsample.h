// Subsampling without replacement: each data point is kept independently with probability p
// (a factorizing resampling scheme, 000 footnote 2): occupation s_i in {0, 1}.
#pragma once

#include "quench/parameters.h"
#include "quench/resampler.h"

namespace quench::resamplers {

class BernoulliSubsample final : public Resampler {
 public:
  static ParamSchema schema();
  explicit BernoulliSubsample(const Params& params);
  void do_prepare(Eigen::Index n) override { n_ = n; }
  /// p(1) = p, p(0) = 1 - p.
  double do_occupation_pmf(int k) const override;
  int do_max_occupation(double tail) const override;
  /// A 0/1 vector with independent Bernoulli(p) entries.
  Eigen::VectorXd do_sample(RngStream& rng) const override;
  double do_expected_size() const override { return p_ * static_cast<double>(n_); }

 private:
  double p_;
  Eigen::Index n_ = 0;
};

}  // namespace quench::resamplers
