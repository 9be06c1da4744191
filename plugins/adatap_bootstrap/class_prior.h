// The prior a C-class adatap_bootstrap run works on, chosen once from the problem as
// bootstrap_prior.h chooses for one latent: blockdiag(K_c) formed densely, or the inducing-point
// prior blockdiag(K~_c) of problem.inducing (inducing_class_part.h). Each solves the replica EP
// of docs/adatap_multiclass.md on its prior and makes the model of eqs M9-M10 from the solution;
// the engine writes the outputs once for both (class_outputs.h).
#pragma once

#include <memory>

#include "class_model.h"
#include "class_solver.h"
#include "quench/inference_engine.h"

namespace quench::adatap {

class ClassBootstrapPrior {
 public:
  virtual ~ClassBootstrapPrior();
  /// solve_classes on this prior.
  virtual ClassSolution solve(const Eigen::VectorXi& y, Eigen::Index classes,
                              const ClassLikelihood& likelihood, const Occupation& occupation,
                              const GeneralOptions& options, const ClassRule& rule) = 0;
  /// The model of the last solve (what it keeps of `sites` is moved out).
  virtual std::shared_ptr<const ClassBootstrapModel> model(ClassSolution& sites,
                                                           const ClassRule& rule) = 0;
  /// Its setup's timing and, on inducing points, a description of the prior.
  virtual void describe(Results& r) const = 0;
  /// Appended to the method's description ("" for the dense prior).
  virtual const char* where() const = 0;
};

/// The dense prior, or the inducing-point prior when problem.inducing is set (its O(N M^2)
/// setup, one per distinct kernel, done here).
std::unique_ptr<ClassBootstrapPrior> make_class_prior(const Problem& problem);

}  // namespace quench::adatap
