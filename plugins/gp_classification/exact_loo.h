// Exact leave-one-out: retrains a classifier engine N times, each without one training point,
// and classifies the left-out point (the reference for the built-in estimates of 001
// eqs 32, 38, 47-51). Retrains run in threads; every retrain writes its own slot, so the
// result does not depend on the number of threads.
#pragma once

#include <memory>
#include <string>

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::gp_classification {

/// A classifier of this library by plugin name with default parameters, or nullptr.
std::shared_ptr<InferenceEngine> make_classifier(const std::string& name);

class ExactLooEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit ExactLooEngine(const Params& params);
  /// The full-data fit's model (Results::model) when the inner engine is one of this library.
  Results run(const Problem& problem) const override;
  /// The inner engine's model (it is that engine's fit on all the training data).
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  std::string inner_;
};

}  // namespace quench::gp_classification
