// The resamplers library's descriptor.
#include "bernoulli_subsample.h"
#include "bootstrap_resamplers.h"
#include "exponential_weights.h"
#include "quench/plugin.h"

namespace quench::resamplers {

const LibraryDescriptor* describe() {
  static const auto descriptor =
      make_library("quench_resamplers", "0.1.0",
                   {make_plugin<PoissonBootstrap>(Family::resampler, "poisson_bootstrap", "0.1.0",
                                                  "bootstrap with s_i ~ Poisson(S/N) (000 eq 15)",
                                                  PoissonBootstrap::schema()),
                    make_plugin<MultinomialBootstrap>(
                        Family::resampler, "multinomial_bootstrap", "0.1.0",
                        "Efron's bootstrap of fixed size S (s_i ~ Binomial(S, 1/N))",
                        MultinomialBootstrap::schema()),
                    make_plugin<BernoulliSubsample>(
                        Family::resampler, "bernoulli_subsample", "0.1.0",
                        "subsample without replacement: each point kept with probability p",
                        BernoulliSubsample::schema()),
                    make_plugin<ExponentialWeights>(
                        Family::resampler, "exponential_weights", "0.1.0",
                        "Bayesian-bootstrap weights w_i ~ Exp(1) i.i.d. (004 Algorithm 1)",
                        ExponentialWeights::schema())});
  return &descriptor;
}

}  // namespace quench::resamplers

QUENCH_PLUGIN_LIBRARY(quench::resamplers::describe)
