// What learning hyperparameters found (quench/hyperparameter_learning.h): the learned values
// keyed as requested ("kernel.length_scales"), the objective's final value and gradient norm,
// the work done and a status. Pipelines attach it to every run's Results.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/status.h"

namespace quench {

/// One learned block, keyed as in LearningOptions::parameters.
struct LearnedValue {
  std::string key;
  Eigen::VectorXd value;
  bool is_list = false;
  bool at_bound = false;  ///< some entry ended on a bound (within ~2.5e-4 of the log range)
};

struct LearningReport {
  std::string objective;  ///< the objective's name as requested ("evidence", "loo")
  std::string engine;     ///< the engine (pipeline name or plugin) whose objective it is
  std::string quantity;   ///< HyperparameterObjective::quantity(), e.g. "log_evidence"
  double value = 0.0;     ///< the objective at the learned values (maximized)
  /// |d value / d log theta| (2-norm) over the learned entries not at a bound.
  double gradient_norm = 0.0;
  int iterations = 0;   ///< optimizer iterations over all starts
  int evaluations = 0;  ///< objective evaluations over all starts
  int restarts = 0;
  std::string stopped_by;             ///< the optimizer's reason for stopping (best start)
  double start_value = 0.0;           ///< the objective at the start values
  std::vector<double> start_results;  ///< final value of each start (NaN when it failed)
  std::vector<LearnedValue> learned;
  double seconds = 0.0;  ///< wall time of the learning (set by the caller)
  Status status;
};

}  // namespace quench
