// The likelihoods library's descriptor.
#include "gaussian_likelihood.h"
#include "probit_likelihood.h"
#include "quench/plugin.h"

namespace quench::likelihoods {

const LibraryDescriptor* describe() {
  static const LibraryDescriptor descriptor = [] {
    LibraryDescriptor d;
    d.library_name = "quench_likelihoods";
    d.library_version = "0.1.0";
    d.plugins.push_back({Family::likelihood,
                         "gaussian",
                         "0.1.0",
                         "Gaussian noise N(y; f, sigma^2)",
                         GaussianLikelihood::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<GaussianLikelihood>(p);
                         },
                         {}});
    d.plugins.push_back(
        {Family::likelihood,
         "probit",
         "0.1.0",
         "probit/step likelihood kappa + (1 - 2 kappa) Phi(y f / sigma) (001 App. A, 003)",
         ProbitLikelihood::schema(),
         [](const Params& p) -> std::unique_ptr<Component> {
           return std::make_unique<ProbitLikelihood>(p);
         },
         {}});
    return d;
  }();
  return &descriptor;
}

}  // namespace quench::likelihoods

QUENCH_PLUGIN_LIBRARY(quench::likelihoods::describe)
