// Learning hyperparameters: maximizes a HyperparameterObjective over chosen blocks of the
// kernel's and the likelihood's hyperparameters with an Optimizer (L-BFGS in pipelines), in
// log-transformed coordinates, within the bounds (Optimizer::minimize_within: an optimum on a
// bound is reached and held there), from the current values and from seeded random restarts.
// Non-convergence is a status, never a silent value.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/hyperparameter_objective.h"
#include "quench/kernel.h"
#include "quench/learning_report.h"
#include "quench/likelihood.h"
#include "quench/optimizer.h"

namespace quench {

struct LearningOptions {
  /// What to learn, as "kernel.<block>" or "likelihood.<block>" (Hyperparameter::name).
  std::vector<std::string> parameters;
  /// Bounds replacing the component's own, natural scale, by the same keys.
  std::map<std::string, std::pair<double, double>> bounds;
  /// Random restarts after the run from the current values. Restart r starts every learned
  /// entry at a log-uniform draw (RngStream(seed, r)) within the bounds and within a factor
  /// `restart_spread` of the entry's start value.
  int restarts = 0;
  double restart_spread = 100.0;
  std::uint64_t seed = 0;
  /// Learning is `ok` only at a converged optimum, checked apart from the optimizer: where it
  /// stops, steps along the projected gradient (moving the largest entry by 1e-6 ... 1e-2 in
  /// log units) must gain no more than stationarity * max(1, |value|). Learning goes on from
  /// a point that gains more (at most 3 times); still improvable, it is not_converged.
  double stationarity = 1e-6;
};

/// Throws ConfigError listing every problem of the request: unknown keys (naming the blocks
/// that exist), bounds with lower >= upper or outside the component's own, start values
/// outside the bounds, a parameter named twice.
QUENCH_API void check_learning_request(const Kernel& kernel, const Likelihood& likelihood,
                                       const LearningOptions& options);

/// Maximizes the objective over the requested blocks, leaving the best values found set in
/// the kernel and the likelihood (both prepared on the training inputs).
QUENCH_API LearningReport learn_hyperparameters(Kernel& kernel, Likelihood& likelihood,
                                                HyperparameterObjective& objective,
                                                const Optimizer& optimizer,
                                                const LearningOptions& options);

}  // namespace quench
