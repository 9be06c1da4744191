// One-vs-rest multi-class classification over any binary classifier engine (created through
// the host's registry: quench's or another library's): C binary problems
// "class c against the rest" on the same kernel and likelihood, the class of the largest
// probability p_c(+1 | x), probabilities normalized over the classes. Each binary engine's
// built-in leave-one-out carries over per class: the LOO probabilities of the C problems,
// normalized, are the one-vs-rest LOO predictive (docs/multiclass.md). Binary engines without
// probabilities (svm_limit) give classes by the largest decision value and no probabilities.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::one_vs_rest {

/// The binary problem "class c against the rest" of a classes target: labels +1 / -1 in
/// y_train and y_test, no class names.
Dataset one_class_against_rest(const Dataset& data, Eigen::Index c);

class OneVsRestEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit OneVsRestEngine(const Params& params);
  Results run(const Problem& problem) const override;
  /// The inner engine's checks on the binary problem of the first class.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  /// The inner engine's objectives, summed over the C binary problems with shared
  /// hyperparameters (value and gradient).
  std::vector<std::string> hyperparameter_objectives(const EngineFactory& engines,
                                                     PriorKind prior) const override;
  std::unique_ptr<HyperparameterObjective> hyperparameter_objective(
      const Problem& problem, const std::string& name) const override;
  /// The C inner models, read by the inner engine (ModelParts::make_engine).
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  std::shared_ptr<InferenceEngine> inner(const EngineFactory& engines) const;
  std::string inner_;
};

}  // namespace quench::one_vs_rest
