// The likelihoods library's descriptor.
#include "dirichlet_likelihood.h"
#include "gaussian_likelihood.h"
#include "multinomial_probit_likelihood.h"
#include "probit_likelihood.h"
#include "quench/plugin.h"

namespace quench::likelihoods {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_likelihoods", "0.1.0",
      {make_plugin<GaussianLikelihood>(Family::likelihood, "gaussian", "0.1.0",
                                       "Gaussian noise N(y; f, sigma^2)",
                                       GaussianLikelihood::schema()),
       make_plugin<ProbitLikelihood>(
           Family::likelihood, "probit", "0.1.0",
           "probit/step likelihood kappa + (1 - 2 kappa) Phi(y f / sigma) (001 App. A, 003)",
           ProbitLikelihood::schema()),
       make_plugin<DirichletLikelihood>(
           Family::likelihood, "dirichlet", "0.1.0",
           "Dirichlet label transform to heteroskedastic regression targets (002 eqs 10-11)",
           DirichletLikelihood::schema()),
       make_plugin<MultinomialProbitLikelihood>(
           Family::likelihood, "multinomial_probit", "0.1.0",
           "multinomial probit E_u prod_{j != y} Phi(u + f_y - f_j) on C latents, nested EP sites",
           MultinomialProbitLikelihood::schema())});
  return &descriptor;
}

}  // namespace quench::likelihoods

QUENCH_PLUGIN_LIBRARY(quench::likelihoods::describe)
