// The likelihoods library's descriptor.
#include "binomial_likelihood.h"
#include "dirichlet_likelihood.h"
#include "gaussian_likelihood.h"
#include "logit_likelihood.h"
#include "multinomial_probit_likelihood.h"
#include "negative_binomial_likelihood.h"
#include "poisson_likelihood.h"
#include "probit_likelihood.h"
#include "quench/plugin.h"
#include "student_t_likelihood.h"

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
           MultinomialProbitLikelihood::schema()),
       make_plugin<PoissonLikelihood>(Family::likelihood, "poisson", "0.1.0",
                                      "Poisson counts y ~ Poisson(n e^f), n the exposure",
                                      PoissonLikelihood::schema()),
       make_plugin<NegativeBinomialLikelihood>(
           Family::likelihood, "negative_binomial", "0.1.0",
           "negative binomial counts, mean mu = n e^f, variance mu + mu^2 / r (dispersion r)",
           NegativeBinomialLikelihood::schema()),
       make_plugin<StudentTLikelihood>(
           Family::likelihood, "student_t", "0.1.0",
           "Student-t noise t_nu(y; f, sigma), robust to outliers (not log-concave)",
           StudentTLikelihood::schema()),
       make_plugin<LogitLikelihood>(Family::likelihood, "logit", "0.1.0",
                                    "logistic likelihood 1 / (1 + exp(-y f)), y = -1 or +1",
                                    LogitLikelihood::schema()),
       make_plugin<BinomialLikelihood>(
           Family::likelihood, "binomial", "0.1.0",
           "binomial successes of n trials, success probability sigma(f) or Phi(f)",
           BinomialLikelihood::schema())});
  return &descriptor;
}

}  // namespace quench::likelihoods

QUENCH_PLUGIN_LIBRARY(quench::likelihoods::describe)
