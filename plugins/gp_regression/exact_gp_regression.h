// Exact Gaussian-process regression with Gaussian noise: posterior mean and variance at the
// training and test inputs and the log marginal likelihood (Rasmussen & Williams, Alg. 2.1).
// For resampled data with per-point weights s_i it is the GP on the distinct points with noise
// sigma^2 / s_i, which equals the GP on the data set with each point repeated s_i times.
#pragma once

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::gp_regression {

class ExactGpRegression final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit ExactGpRegression(const Params& params);

  Results run(const Problem& problem) const override;
  /// The exact prior's N x N matrices (K and its Cholesky factor) in memory.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  std::unique_ptr<ResampledModel> prepare_resampling(const Problem& problem) const override;
  /// Retrains on any weights (the noise of point i divided by its weight), exact prior.
  Retraining retraining() const override { return {true, true, false, false}; }
  /// "evidence" (log marginal likelihood) and "loo" (regression_objectives.h).
  std::vector<std::string> hyperparameter_objectives(const EngineFactory&,
                                                     PriorKind) const override {
    return {"evidence", "loo"};
  }
  std::unique_ptr<HyperparameterObjective> hyperparameter_objective(
      const Problem& problem, const std::string& name) const override;
  /// The "gp_regression" model of a run with Problem::make_model (gp_regression_model.h).
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  bool predictive_variance_;
};

/// The parameters of both GP regression engines (predictive_variance).
ParamSchema regression_schema();

/// test_mean and test_variance (of y with predictive_variance, else of f) from a regression
/// model's predictions at the test rows, and with test targets test_mse and
/// test_mean_log_predictive (the mean of log N(y | mean, predictive variance), standardized
/// target units).
void add_test_outputs(Results& r, const Dataset& data, const Predictions& predictions,
                      bool predictive_variance);

/// Total per-observation noise: the likelihood's sigma^2 plus the kernel's diagonal noise v2.
/// Throws ConfigError when the likelihood is not Gaussian.
double observation_noise(const Problem& problem, const char* engine);

}  // namespace quench::gp_regression
