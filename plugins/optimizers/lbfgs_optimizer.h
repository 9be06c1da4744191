// L-BFGS for smooth objectives, backed by Ceres Solver's GradientProblemSolver.
#pragma once

#include "quench/optimizer.h"
#include "quench/parameters.h"

namespace quench::optimizers {

class LbfgsOptimizer final : public Optimizer {
 public:
  static ParamSchema schema();
  explicit LbfgsOptimizer(const Params& params);
  OptimizerReport minimize(const SmoothObjective& objective, Eigen::VectorXd& x) const override;

 private:
  int max_iterations_;
  int memory_;
  double gradient_tolerance_;
  double function_tolerance_;
};

}  // namespace quench::optimizers
