// GP regression on the inducing-point prior K~ = Lambda + U U^T (FITC, VFE or SoR, as the
// pipeline's `inducing:` block says; docs/large_n.md): posterior mean and variance at the
// training and test inputs, the log evidence (Titsias' bound for VFE) and its gradient for
// `learn:`, in O(N M^2) time and O(N M) memory. Resampled refits (mc_bootstrap) solve the same
// model on the drawn points in O(|D| M^2) each (docs/large_n.md, "Monte-Carlo reference").
#pragma once

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::gp_regression {

class SparseGpRegression final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit SparseGpRegression(const Params& params);

  Results run(const Problem& problem) const override;
  std::unique_ptr<ResampledModel> prepare_resampling(const Problem& problem) const override;
  /// Retrains on any weights (the noise of point i divided by its weight), inducing prior.
  Retraining retraining() const override { return {true, true, true, false}; }
  /// "evidence": the log evidence (FITC, SoR) or its variational bound (VFE).
  std::vector<std::string> hyperparameter_objectives(const EngineFactory&,
                                                     PriorKind) const override {
    return {"evidence"};
  }
  std::unique_ptr<HyperparameterObjective> hyperparameter_objective(
      const Problem& problem, const std::string& name) const override;
  /// The "sparse_gp_regression" model (sparse_gp_regression_model.h).
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  bool predictive_variance_;
};

}  // namespace quench::gp_regression
