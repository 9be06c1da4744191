#include "bernoulli_subsample.h"

namespace quench::resamplers {

ParamSchema BernoulliSubsample::schema() {
  ParamSchema s;
  s.real("ratio", "p = S/N, the probability that a point is kept (expected size S = p N)", 0.5,
         1e-6, 1.0);
  return s;
}

BernoulliSubsample::BernoulliSubsample(const Params& params) : p_(params.real("ratio")) {}

double BernoulliSubsample::do_occupation_pmf(int k) const {
  if (k == 0) return 1.0 - p_;
  if (k == 1) return p_;
  return 0.0;
}

int BernoulliSubsample::do_max_occupation(double) const { return 1; }

Eigen::VectorXd BernoulliSubsample::do_sample(RngStream& rng) const {
  Eigen::VectorXd keep(n_);
  for (Eigen::Index i = 0; i < n_; ++i) keep(i) = rng.uniform() < p_ ? 1.0 : 0.0;
  return keep;
}

}  // namespace quench::resamplers
