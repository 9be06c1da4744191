// The prior an adatap_bootstrap run works on, chosen once from the problem (docs/design.md,
// "One prior strategy"): the kernel matrix K, or the inducing-point prior K~ (`inducing:`,
// quench/low_rank_prior.h, docs/large_n.md). Each solves the Gaussian fixed point (000 eqs
// 63-66) and the general replica EP (docs/adatap_classification.md) on its prior and makes the
// model of eq 57 / eq 19 from the solution; the engine (adatap_bootstrap.cpp) writes the
// outputs once for both.
#pragma once

#include <memory>
#include <string>

#include "adatap_solver.h"
#include "classifier_outputs.h"
#include "general_solver.h"
#include "quench/inference_engine.h"

namespace quench::adatap {

class BootstrapPrior {
 public:
  virtual ~BootstrapPrior();
  /// Eqs 63-66 for a Gaussian likelihood of variance s2 (every site's parameters; sites.G may
  /// be left empty where the prior keeps its own form of G).
  virtual Solution solve_gaussian(const Eigen::VectorXd& y, double s2, const Occupation& occ,
                                  const SolverOptions& options) = 0;
  /// Eq 57's model of the last solve_gaussian (it may take the solution's G).
  virtual std::shared_ptr<const Model> gaussian_model(Solution& sites,
                                                      const Eigen::VectorXd& y) = 0;
  /// The general replica EP for any other likelihood.
  virtual GeneralSolution solve_general(const Observations& y, const Likelihood& likelihood,
                                        const Occupation& occ, const GeneralOptions& options) = 0;
  /// Eq 19's model of the last solve_general, made when the outputs ask for it.
  virtual ClassifierModelMaker general_model(GeneralSolution& sol) = 0;
  /// What the prior adds to the results: its timings (its own setup under its name, the
  /// phases of its solvers) and a description of the prior.
  virtual void describe(Results& r) const = 0;
  /// Appended to the method's description ("" for the dense prior).
  virtual const char* where() const = 0;
};

/// The dense prior, or the inducing-point prior when problem.inducing is set (its O(N M^2)
/// setup done here). `gaussian` with inducing points: check_sparse_options(options) first.
std::unique_ptr<BootstrapPrior> make_bootstrap_prior(const Problem& problem, bool gaussian,
                                                     const SolverOptions& options);

}  // namespace quench::adatap
