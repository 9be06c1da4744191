// L-BFGS for smooth objectives, backed by Ceres Solver's GradientProblemSolver; within a box,
// projected L-BFGS (projected_lbfgs.h), which Ceres does not offer for general objectives.
#pragma once

#include "projected_lbfgs.h"
#include "quench/optimizer.h"
#include "quench/parameters.h"

namespace quench::optimizers {

class LbfgsOptimizer final : public Optimizer {
 public:
  static ParamSchema schema();
  explicit LbfgsOptimizer(const Params& params);
  OptimizerReport minimize(const SmoothObjective& objective, Eigen::VectorXd& x) const override;
  OptimizerReport minimize_within(const SmoothObjective& objective, const Box& box,
                                  Eigen::VectorXd& x) const override;

 private:
  LbfgsSettings settings_;
};

}  // namespace quench::optimizers
