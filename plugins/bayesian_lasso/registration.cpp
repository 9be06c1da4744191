// The Bayesian LASSO library's descriptor.
#include "bayesian_lasso.h"
#include "quench/plugin.h"

namespace quench::bayesian_lasso {

const LibraryDescriptor* describe() {
  static const auto descriptor =
      make_library("quench_bayesian_lasso", "0.1.0",
                   {make_plugin<BayesianLassoGibbs>(
                       Family::engine, "bayesian_lasso_gibbs", "0.1.0",
                       "Bayesian LASSO by Gibbs sampling (Park & Casella 2008; 004 eq 11)",
                       BayesianLassoGibbs::schema())});
  return &descriptor;
}

}  // namespace quench::bayesian_lasso

QUENCH_PLUGIN_LIBRARY(quench::bayesian_lasso::describe)
