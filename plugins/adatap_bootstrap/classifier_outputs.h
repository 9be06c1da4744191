// The outputs of an ADATAP classifier bootstrap from its fixed point (docs/adatap_classification.md
// eqs 18-22), shared by the probit engine (adatap_bootstrap with a non-Gaussian likelihood) and
// the SVM limit (adatap_svm): bootstrap_error and left_out_error (eq 18), left_out_probability
// (eq 20, classifier form only), the bootstrap mean and variance at the training inputs (eqs
// 39-40) and, through the model, at the test inputs (eq 19) with prediction_probability (eq 21,
// classifier form) and test_class; test_bootstrap_error(s) (eq 22) where test labels are known;
// the site and cavity parameters, iterations and the status. The model (of the dense or the
// inducing-point prior) is made when the fixed point converged and there are test inputs or
// the host asked for one.
#pragma once

#include <functional>
#include <memory>

#include "adatap_model.h"
#include "general_solver.h"

namespace quench::adatap {

/// Makes the fitted model of the converged fixed point (called at most once, last; it may
/// take the solution's G).
using ClassifierModelMaker = std::function<std::shared_ptr<const Model>()>;

Results classifier_results(const Problem& problem, const Eigen::VectorXd& y,
                           const GeneralSolution& sol, AdatapModel::Form form,
                           const ClassifierModelMaker& make_model);

/// The dense prior's model: an AdatapModel of `form` on the training inputs, taking sol.G.
ClassifierModelMaker dense_classifier_model(const Problem& problem, GeneralSolution& sol,
                                            AdatapModel::Form form);

/// P(-y f < 0) for f ~ N(mean, sd^2): Phi(-y mean / sd), its limit Theta(-y mean) at sd = 0.
double gaussian_error(double y, double mean, double sd);

}  // namespace quench::adatap
