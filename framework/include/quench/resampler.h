// Resampling schemes, seen two ways (000 Sec. 3 and footnote 2): the distribution of one
// site's occupation number p(s = k), which analytical engines sum over, and a sampler of whole
// weight vectors for Monte-Carlo engines. One object serves both, so analytical and
// Monte-Carlo answers are of the same scheme.
#pragma once

#include <Eigen/Core>

#include "quench/component.h"
#include "quench/rng.h"

namespace quench {

class QUENCH_API Resampler : public Component {
 public:
  ~Resampler() override;

  /// Fixes the data set size N; called before any other method.
  virtual void prepare(Eigen::Index n) = 0;

  /// p(s_i = k) for one site (the factorizing approximation W(s) = prod_j p(s_j) of 000 eq 15).
  virtual double occupation_pmf(int k) const = 0;

  /// The largest k worth summing: sum_{k > max} p(k) < tail (analytical engines truncate here).
  virtual int max_occupation(double tail = 1e-12) const = 0;

  /// One weight vector (length N): counts for bootstraps, real weights for Bayesian bootstraps.
  virtual Eigen::VectorXd sample(RngStream& rng) const = 0;

  /// Expected sample size S = E[sum_i s_i].
  virtual double expected_size() const = 0;
};

}  // namespace quench
