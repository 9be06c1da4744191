// An objective for learning hyperparameters: a quantity of the fitted model to maximize (a log
// evidence, a leave-one-out log predictive probability) with its gradient with respect to the
// kernel's and the likelihood's hyperparameters. Engines offer the objectives their algebra
// computes (InferenceEngine::hyperparameter_objective); the learner
// (quench/hyperparameter_learning.h) maximizes them.
#pragma once

#include <string>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/kernel.h"
#include "quench/likelihood.h"
#include "quench/status.h"

namespace quench {

struct ObjectiveValue {
  double value = 0.0;        ///< the maximized quantity (positive is better)
  Eigen::VectorXd gradient;  ///< d value / dtheta: the kernel's flat entries, then the likelihood's
  Status status;             ///< not ok: the value could not be computed (e.g. no fixed point)
};

class QUENCH_API HyperparameterObjective {
 public:
  virtual ~HyperparameterObjective();
  /// The name the value is reported under: "log_evidence", "loo_log_predictive", ...
  virtual std::string quantity() const = 0;
  /// The value and its gradient at the kernel's and the likelihood's current hyperparameters,
  /// both prepared on the training inputs. May keep state between calls (e.g. site
  /// parameters to warm-start the next fixed point), so one objective serves one learner.
  virtual ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) = 0;
};

}  // namespace quench
