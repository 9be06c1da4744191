// The outputs of the C-class ADATAP bootstrap (docs/adatap_multiclass.md, eqs M9-M12), under the
// names mc_bootstrap gives its retrains' (docs/results.md), so both run side by side.
#pragma once

#include <Eigen/Core>

#include "class_model.h"
#include "class_solver.h"
#include "quench/inference_engine.h"

namespace quench::adatap {

struct ClassOutputOptions {
  int error_draws = 400;  ///< draws of u per input for the 0/1 errors (eq M12)
  ClassRule rule;         ///< of the fixed point (solve_classes) and of eqs M10-M11
};

/// The left-out outputs at the training inputs (eqs M11-M12: the 0/1 error and log loss of the
/// samples that leave point i out, the bootstrap mean of its class probabilities), the fixed
/// point's E_D f^_i and covariances, and its counters. The u-draws of the 0/1 errors come from
/// the pipeline seed, one stream per input.
Results class_results(const Problem& problem, const Eigen::VectorXi& y, const ClassSolution& s,
                      const ClassLikelihood& likelihood, const ClassOutputOptions& options);

/// The test outputs from the run's model: the bootstrap mean and variance of the class
/// probabilities (eq M10) with the test outputs of those means, E_D f^_x, and at labelled test
/// inputs the bootstrap 0/1 error (eq M12, streams N + j of the pipeline seed).
void class_test_results(const Problem& problem, const ClassBootstrapModel& model,
                        const ClassLikelihood& likelihood, const ClassOutputOptions& options,
                        Results& r);

}  // namespace quench::adatap
