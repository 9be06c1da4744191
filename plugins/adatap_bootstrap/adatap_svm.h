// The analytical bootstrap of the hard-margin SVM without bias (the SVM limit of 001 Sec. 7, the
// `svm_limit` engine): ADATAP in the beta -> infinity limit of docs/adatap_classification.md §6,
// with the closed-form averaged site of its eq 23 (no quadrature: multiplicity drops out,
// Theta(y f - 1)^k = Theta(y f - 1), so only p(k = 0) of the resampler enters). Outputs and model
// as the probit classifier's without probabilities (classifier_outputs.h); Monte-Carlo reference:
// mc_bootstrap with inner svm_limit (the Adatron on every drawn subset).
#pragma once

#include "general_solver.h"
#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::adatap {

class AdatapSvm final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit AdatapSvm(const Params& params);
  Results run(const Problem& problem) const override;
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  GeneralOptions options_;
};

}  // namespace quench::adatap
