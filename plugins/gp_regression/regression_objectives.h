// Hyperparameter objectives of exact GP regression, each with its analytic gradient:
// the log marginal likelihood (Rasmussen & Williams eqs 5.8-5.9) and the closed-form
// leave-one-out log predictive probability (R&W eqs 5.10-5.13).
#pragma once

#include <memory>
#include <string>

#include "quench/hyperparameter_objective.h"
#include "quench/inference_engine.h"

namespace quench::gp_regression {

/// "evidence" or "loo" on the training data of `problem`; throws ConfigError for another name.
std::unique_ptr<HyperparameterObjective> make_regression_objective(const Problem& problem,
                                                                   const std::string& name);

}  // namespace quench::gp_regression
