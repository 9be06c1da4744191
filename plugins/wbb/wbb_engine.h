// The weighted Bayesian bootstrap engine `wbb` (004 eq 4, Algorithm 1): T approximate posterior
// draws as minimizers of randomly weighted objectives, for the weighted LASSO / ridge /
// elastic net (Sec. 3.1-3.2) and weighted trend filtering (Sec. 3.3), through a
// PenalizedSolver optimizer plugin (lambda by K-fold cross-validation when not given), and a
// two-hidden-layer ReLU network with softmax cross-entropy (Sec. 3.4) through a stochastic
// optimizer (adam) on the shared quench::Mlp.
#pragma once

#include <string>

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::wbb {

class WbbEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit WbbEngine(const Params& params);
  Results run(const Problem& problem) const override;

 private:
  Results run_linear(const Problem& problem) const;
  Results run_trend(const Problem& problem) const;
  Results run_network(const Problem& problem) const;
  Params params_;
};

}  // namespace quench::wbb
