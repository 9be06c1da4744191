// Coordinate descent for the weighted elastic net (004 eqs 4, 12, 13; Friedman, Hastie &
// Tibshirani 2010), warm-started from the solution passed in: WBB solves thousands of nearby
// problems, each started from the unweighted solution.
#pragma once

#include <string>

#include "quench/parameters.h"
#include "quench/penalized_solver.h"

namespace quench::weighted_solvers {

class CoordinateDescent final : public PenalizedSolver {
 public:
  static ParamSchema schema();
  explicit CoordinateDescent(const Params& params);
  using PenalizedSolver::solve;
  OptimizerReport solve(const WeightedLeastSquares& problem,
                        PenalizedSolution& solution) const override;
  bool uses_gram(Eigen::Index n, Eigen::Index p) const override;
  OptimizerReport solve(const WeightedLeastSquares& problem, const WeightedGram& gram,
                        PenalizedSolution& solution) const override;

 private:
  void check(const WeightedLeastSquares& problem) const;
  double tolerance_;
  bool active_set_solve_;
  int max_sweeps_;
  std::string mode_;
};

}  // namespace quench::weighted_solvers
