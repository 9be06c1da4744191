// Adam (Kingma & Ba 2015) with shuffled mini-batches, for the sum-over-examples objectives of
// network particles (002 Sec. 5: "We used Adam to optimize the parameters") and the WBB
// network (004 Sec. 3.4).
#pragma once

#include "quench/optimizer.h"
#include "quench/parameters.h"

namespace quench::optimizers {

class AdamOptimizer final : public Optimizer {
 public:
  static ParamSchema schema();
  explicit AdamOptimizer(const Params& params);
  /// Full-batch Adam: one step per epoch on the whole objective.
  OptimizerReport minimize(const SmoothObjective& objective, Eigen::VectorXd& x) const override;
  /// Mini-batch Adam: each epoch visits a fresh permutation of the N examples drawn from rng,
  /// in batches of batch_size (the last one may be smaller).
  OptimizerReport minimize_stochastic(const StochasticObjective& objective, Eigen::VectorXd& x,
                                      RngStream& rng) const override;

 private:
  struct State;
  double learning_rate_at(int epoch) const;
  int epochs_;
  std::int64_t batch_size_;
  double learning_rate_, final_fraction_, beta1_, beta2_, epsilon_;
};

}  // namespace quench::optimizers
