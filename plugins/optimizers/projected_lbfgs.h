// L-BFGS within a box: the quasi-Newton direction on the entries not held at a bound, steps
// projected onto the box, so that a minimum on a bound is reached exactly and the entry stays
// there while the others converge.
#pragma once

#include "quench/optimizer.h"

namespace quench::optimizers {

struct LbfgsSettings {
  int max_iterations = 500;
  int memory = 20;
  double gradient_tolerance = 1e-10;  ///< on max |x - P(x - gradient)|, P the projection
  double function_tolerance = 1e-12;  ///< on |f decrease| / |f| of a step
};

/// Minimizes f within the box from x (projected onto it first), leaving the minimizer in x.
OptimizerReport projected_lbfgs(const SmoothObjective& f, const Box& box, Eigen::VectorXd& x,
                                const LbfgsSettings& settings);

}  // namespace quench::optimizers
