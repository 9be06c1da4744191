#include "exponential_weights.h"

#include "quench/draw_summary.h"
#include "quench/errors.h"
#include "quench/random_variates.h"

namespace quench::resamplers {

ParamSchema ExponentialWeights::schema() {
  ParamSchema s;
  s.boolean("normalize", "rescale each weight vector to mean 1 (Dirichlet weights times N)", false)
      .string("method",
              "inversion (-log u per weight) or ziggurat (Marsaglia & Tsang, from a xoshiro256++ "
              "seeded by the stream; same distribution, several times cheaper)",
              "inversion", {"inversion", "ziggurat"});
  return s;
}

ExponentialWeights::ExponentialWeights(const Params& p)
    : normalize_(p.boolean("normalize")), ziggurat_(p.string("method") == "ziggurat") {}

double ExponentialWeights::do_occupation_pmf(int) const {
  throw ConfigError({},
                    "exponential_weights are continuous: analytical engines that sum over "
                    "integer occupation numbers cannot use them");
}

int ExponentialWeights::do_max_occupation(double) const {
  (void)occupation_pmf(0);  // throws
  return 0;
}

Eigen::VectorXd ExponentialWeights::do_sample(RngStream& rng) const {
  if (n_ == 0) throw NumericalError("exponential_weights", "prepare() was not called");
  Eigen::VectorXd w(n_);
  if (ziggurat_)
    exponential_ziggurat(rng, w.data(), static_cast<std::size_t>(n_));
  else
    w = exponential_draws(rng, n_);
  if (normalize_) w *= static_cast<double>(n_) / w.sum();
  return w;
}

}  // namespace quench::resamplers
