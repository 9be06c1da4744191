// Bootstrap resampling schemes (000 Sec. 3): the occupation number s_i of one data point and
// a sampler of whole count vectors of the same scheme.
#pragma once

#include "quench/parameters.h"
#include "quench/resampler.h"

namespace quench::resamplers {

/// Poissonized bootstrap: s_i ~ Poisson(nu) independently, nu = S/N (000 eq 15). The
/// sampled total size is random with mean S.
class PoissonBootstrap final : public Resampler {
 public:
  static ParamSchema schema();
  explicit PoissonBootstrap(const Params& params);
  void do_prepare(Eigen::Index n) override { n_ = n; }
  double do_occupation_pmf(int k) const override;
  int do_max_occupation(double tail) const override;
  Eigen::VectorXd do_sample(RngStream& rng) const override;
  double do_expected_size() const override { return nu_ * static_cast<double>(n_); }

 private:
  double nu_;
  Eigen::Index n_ = 0;
};

/// Efron's bootstrap with a fixed size S: S draws with replacement from N points, so each
/// s_i ~ Binomial(S, 1/N) and sum_i s_i = S.
class MultinomialBootstrap final : public Resampler {
 public:
  static ParamSchema schema();
  explicit MultinomialBootstrap(const Params& params);
  void do_prepare(Eigen::Index n) override;
  double do_occupation_pmf(int k) const override;
  int do_max_occupation(double tail) const override;
  Eigen::VectorXd do_sample(RngStream& rng) const override;
  double do_expected_size() const override { return static_cast<double>(size_); }

 private:
  double ratio_;
  std::int64_t fixed_size_;
  std::int64_t size_ = 0;
  Eigen::Index n_ = 0;
};

/// One Poisson(nu) draw by inversion from a single uniform (exact for nu up to ~700).
int sample_poisson(double nu, RngStream& rng);

}  // namespace quench::resamplers
