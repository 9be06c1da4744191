// The outputs of a latent-GP fit by the likelihood's target kind (docs/results.md): the fit, its
// built-in leave-one-out at the cavities, and its predictions at the test inputs.
#pragma once

#include <functional>
#include <memory>

#include "quench/inference_engine.h"
#include "site_algebra.h"

namespace quench::latent_gp {

/// The fit's outputs: mean_field, cavity_mean, cavity_variance, iterations, the status and the
/// built-in leave-one-out (add_loo_outputs); for a binary target 001's alpha = t u, the
/// stabilities t <h> (Fig. 3), loo_error and loo_errors (eq 32) and train_error; for any other
/// kind mean_weights (u: <h> = C u).
void add_fit(Results& r, const Likelihood& lik, const Observations& y, const MeanFieldFit& fit);

/// The built-in leave-one-out predictive of every training target, the left-out latent
/// N(m_i, v_i) (the cavity of 001 eqs 26-28): loo_log_predictive = (1/N) sum_i log p(y_i | D
/// without i); for a binary target loo_probability = p(+1 | D without i) (eq 12 at the
/// cavity); for any other kind loo_log_predictive_density (per row), loo_mean (the predictive
/// mean of y_i, target units) and loo_square_error (mean of (y_i - loo_mean_i)^2).
void add_loo_outputs(Results& r, const Likelihood& lik, const Observations& y,
                     const Eigen::VectorXd& m, const Eigen::VectorXd& v);

/// A run's test outputs from its model at X_test, the test rows' sizes in the query:
/// test_mean_field (the latent mean, or an SVM's decision), test_variance (latent), and every
/// prediction column of y as test_<column>: binary test_probability, test_class, with labels
/// test_error and test_errors (eq 32 at the test set); other kinds test_target_mean,
/// test_target_variance, test_target_quantile_<q>, test_target_p<k>, with targets
/// test_log_predictive_density (per row), test_log_predictive (its mean) and test_square_error.
/// Keeps the model in r.model when the host asked for one. `make` builds the model; it is called
/// only when there are test inputs or the host wants the model.
void add_model_predictions(Results& r, const Problem& problem,
                           const std::function<std::shared_ptr<const Model>()>& make);

}  // namespace quench::latent_gp
