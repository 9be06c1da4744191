// The one-vs-rest classifier as a fitted model (kind "one_vs_rest_classifier"): C binary models
// (classifier_model.h), class c's under posterior/class_<c>/ with its own entry names.
// Columns: probability.<c> (p_c(+1 | x) normalized over the classes) when the binary models give
// probabilities, else decision.<c>; label (the class index of the largest).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "quench/inference_engine.h"

namespace quench::one_vs_rest {

class OneVsRestModel final : public Model {
 public:
  explicit OneVsRestModel(std::vector<std::shared_ptr<const Model>> classes);
  /// The C binary models read by `read_binary` (class c's) from their entries
  /// (posterior/class_<c>/... renamed back to posterior/...); ModelFileError when there are none.
  static std::unique_ptr<OneVsRestModel> read(
      ModelArchive& archive,
      const std::function<std::unique_ptr<Model>(ModelArchive&, Eigen::Index c)>& read_binary);
  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return classes_.front()->input_dimension(); }
  std::string kind() const override { return "one_vs_rest_classifier"; }
  void write(ModelArchive& archive) const override;

 private:
  std::vector<std::shared_ptr<const Model>> classes_;
};

/// The scores of C binary predictions: each one's "probability" column (probabilities: true)
/// normalized over the classes, else its "decision" or "latent_mean" column.
Eigen::MatrixXd one_vs_rest_scores(const std::vector<Predictions>& binary, bool& probabilities);

}  // namespace quench::one_vs_rest
