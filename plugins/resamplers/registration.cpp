// The resamplers library's descriptor.
#include "bernoulli_subsample.h"
#include "bootstrap_resamplers.h"
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
                        BernoulliSubsample::schema())});
  return &descriptor;
}

}  // namespace quench::resamplers

QUENCH_PLUGIN_LIBRARY(quench::resamplers::describe)
