// The outputs of an ADATAP bootstrap of a non-Gaussian likelihood from its fixed point
// (docs/adatap_classification.md eqs 18-22, docs/likelihoods.md), shared by adatap_bootstrap and
// the SVM limit (adatap_svm). For labels: bootstrap_error and left_out_error (eq 18),
// left_out_probability (eq 20, classifier form only), test_class and test_bootstrap_error(s)
// (eq 22) where test labels are known. For any other target the losses of the left-out
// targets' predictive: test_error_log_predictive (the negative log predictive density) and
// test_error_square (the square error of the predicted mean of y), each averaged over the
// left-out predictor's bootstrap distribution (000 eqs 26, 35-37) by Gauss-Hermite, and the
// per-point left_out_log_predictive. Always: the bootstrap mean and variance at the training
// inputs (eqs 39-40) and, through the model, at the test inputs (eq 19) with the predictions of
// y as prediction_<column> (eq 21: prediction_probability); the site and cavity parameters,
// iterations and the status. The model (of the dense or the inducing-point prior) is made when
// the fixed point converged and there are test inputs or the host asked for one.
#pragma once

#include <functional>
#include <memory>

#include "adatap_model.h"
#include "general_solver.h"

namespace quench::adatap {

/// Makes the fitted model of the converged fixed point (called at most once, last; it may
/// take the solution's G).
using ClassifierModelMaker = std::function<std::shared_ptr<const Model>()>;

Results classifier_results(const Problem& problem, const Observations& y,
                           const GeneralSolution& sol, AdatapModel::Form form,
                           const ClassifierModelMaker& make_model);

/// The dense prior's model: an AdatapModel of `form` on the training inputs, taking sol.G.
ClassifierModelMaker dense_classifier_model(const Problem& problem, GeneralSolution& sol,
                                            AdatapModel::Form form);

/// P(-y f < 0) for f ~ N(mean, sd^2): Phi(-y mean / sd), its limit Theta(-y mean) at sd = 0.
double gaussian_error(double y, double mean, double sd);

}  // namespace quench::adatap
