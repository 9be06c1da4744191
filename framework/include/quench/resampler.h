// Resampling schemes, seen two ways (000 Sec. 3 and footnote 2): the distribution of one
// site's occupation number p(s = k), which analytical engines sum over, and a sampler of whole
// weight vectors for Monte-Carlo engines. One object serves both, so analytical and
// Monte-Carlo answers are of the same scheme.
#pragma once

#include <Eigen/Core>

#include "quench/component.h"
#include "quench/likelihood.h"
#include "quench/rng.h"

namespace quench {

/// One particle's randomization in the variational bootstrap (002 Sec. 3): perturbed regression
/// targets and a sample of the prior mean.
struct Perturbation {
  Eigen::MatrixXd targets;     ///< n x C, y~_ic ~ N(y^_ic, sigma^2_ic)  (002 eqs 5, 13)
  Eigen::MatrixXd prior_mean;  ///< rows x cols, theta~ ~ N(0, alpha^2 I)  (002 eq 6)
};

class QUENCH_API Resampler : public Component {
 public:
  ~Resampler() override;

  /// Fixes the data set size N (>= 1); called before any other method, which otherwise throw
  /// ConfigError.
  void prepare(Eigen::Index n);

  /// p(s_i = k) for one site (the factorizing approximation W(s) = prod_j p(s_j) of 000 eq 15).
  double occupation_pmf(int k) const;

  /// The largest k worth summing: sum_{k > max} p(k) < tail (analytical engines truncate here).
  int max_occupation(double tail = 1e-12) const;

  /// One weight vector (length N): counts for bootstraps, real weights for Bayesian bootstraps.
  Eigen::VectorXd sample(RngStream& rng) const;

  /// Expected sample size S = E[sum_i s_i].
  double expected_size() const;
  /// Whether sample() draws occupation counts (whole numbers, distributed as occupation_pmf
  /// says; the default) rather than real weights (Bayesian bootstraps, whose occupation_pmf
  /// throws). Engines that sum over counts or retrain on counts check it before numerics.
  virtual bool draws_counts() const { return true; }
  /// Whether perturb() perturbs targets (the default throws); checked before numerics by the
  /// engines that need it (vboot).
  virtual bool perturbs() const { return false; }
  /// Perturbs regression targets and draws a prior mean of prior_rows x prior_cols with
  /// variance prior_variance (the perturbation resampler of 002); the default throws
  /// ConfigError: weight resamplers do not perturb.
  virtual Perturbation perturb(const RegressionTargets& targets, Eigen::Index prior_rows,
                               Eigen::Index prior_cols, double prior_variance,
                               RngStream& rng) const;

 protected:
  /// The scheme's implementation of the methods above; called only after prepare.
  virtual void do_prepare(Eigen::Index n) = 0;
  virtual double do_occupation_pmf(int k) const = 0;
  virtual int do_max_occupation(double tail) const = 0;
  virtual Eigen::VectorXd do_sample(RngStream& rng) const = 0;
  virtual double do_expected_size() const = 0;

 private:
  void require_prepared(const char* method) const;
  bool prepared_ = false;
};

}  // namespace quench
