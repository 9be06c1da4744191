// The resamplers library's descriptor.
#include "bernoulli_subsample.h"
#include "bootstrap_resamplers.h"
#include "quench/plugin.h"

namespace quench::resamplers {

const LibraryDescriptor* describe() {
  static const LibraryDescriptor descriptor = [] {
    LibraryDescriptor d;
    d.library_name = "quench_resamplers";
    d.library_version = "0.1.0";
    d.plugins.push_back({Family::resampler,
                         "poisson_bootstrap",
                         "0.1.0",
                         "bootstrap with s_i ~ Poisson(S/N) (000 eq 15)",
                         PoissonBootstrap::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<PoissonBootstrap>(p);
                         },
                         {}});
    d.plugins.push_back({Family::resampler,
                         "multinomial_bootstrap",
                         "0.1.0",
                         "Efron's bootstrap of fixed size S (s_i ~ Binomial(S, 1/N))",
                         MultinomialBootstrap::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<MultinomialBootstrap>(p);
                         },
                         {}});
    d.plugins.push_back({Family::resampler,
                         "bernoulli_subsample",
                         "0.1.0",
                         "subsample without replacement: each point kept with probability p",
                         BernoulliSubsample::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<BernoulliSubsample>(p);
                         },
                         {}});
    return d;
  }();
  return &descriptor;
}

}  // namespace quench::resamplers

QUENCH_PLUGIN_LIBRARY(quench::resamplers::describe)
