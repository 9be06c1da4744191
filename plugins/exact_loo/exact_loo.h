// Exact leave-one-out: retrains an engine N times (or on `rows` evenly spaced rows), each
// without one training point, and scores the left-out point (the reference for the built-in
// estimates of 001 eqs 32, 38, 47-51). Retrains run in threads; every retrain writes its own slot,
// so the result does not depend on the number of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::exact_loo {

class ExactLooEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit ExactLooEngine(const Params& params);
  /// The inner engine's fit on all the training data (its model, when the host asks for one)
  /// and the N retrains; the inner engine comes from RunContext::make_engine.
  Results run(const Problem& problem) const override;
  /// The inner engine's checks (it fits the same problem).
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  /// The inner engine's model (read by the inner engine, ModelParts::make_engine).
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  std::string inner_;
  std::int64_t rows_ = 0;
};

}  // namespace quench::exact_loo
