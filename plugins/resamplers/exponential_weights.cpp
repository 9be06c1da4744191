#include "exponential_weights.h"

#include "quench/draw_summary.h"
#include "quench/errors.h"

namespace quench::resamplers {

ParamSchema ExponentialWeights::schema() {
  ParamSchema s;
  s.boolean("normalize", "rescale each weight vector to mean 1 (Dirichlet weights times N)", false);
  return s;
}

ExponentialWeights::ExponentialWeights(const Params& p) : normalize_(p.boolean("normalize")) {}

double ExponentialWeights::occupation_pmf(int) const {
  throw ConfigError({},
                    "exponential_weights are continuous: analytical engines that sum over "
                    "integer occupation numbers cannot use them");
}

int ExponentialWeights::max_occupation(double) const {
  (void)occupation_pmf(0);  // throws
  return 0;
}

Eigen::VectorXd ExponentialWeights::sample(RngStream& rng) const {
  if (n_ == 0) throw NumericalError("exponential_weights", "prepare() was not called");
  Eigen::VectorXd w = exponential_draws(rng, n_);
  if (normalize_) w *= static_cast<double>(n_) / w.sum();
  return w;
}

}  // namespace quench::resamplers
