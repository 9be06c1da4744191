// The multi-class ADATAP bootstrap on the inducing-point prior as a fitted model
// (docs/adatap_multiclass.md, "On the inducing-point prior"): eq M9 at new inputs through the
// features of each class's kernel (quench/inducing_class_features.h) and the fixed point's
// weights of the inducing values (inducing_class_part.h), then eq M10 (ClassBootstrapModel).
// O(C^2 M^2) per input; the file holds no N-sized entry.
//
// Entries (M inducing inputs, C classes): posterior/inducing_inputs (M x d),
// posterior/inducing_form (fitc, vfe, sor), posterior/inducing_cholesky_lower[_<c>] (M x M,
// quench/inducing_class_features.h), posterior/inducing_mean (M x C: column c = mu_c),
// posterior/inducing_covariance and posterior/inducing_spread (CM x CM: Sigma and Y), and the
// cubature entries of ClassBootstrapModel. Columns as class_model.h.
#pragma once

#include <memory>
#include <vector>

#include "class_model.h"
#include "inducing_class_part.h"

namespace quench::adatap {

class InducingClassModel final : public ClassBootstrapModel {
 public:
  InducingClassModel(std::shared_ptr<const Kernel> kernel,
                     std::shared_ptr<const Likelihood> likelihood, Eigen::MatrixXd inducing_inputs,
                     std::vector<Eigen::MatrixXd> inducing_lower, LowRankForm form,
                     InducingClassWeights weights, Eigen::Index classes, ClassRule rule,
                     double expected_sample_size);
  /// The model written by write(), with the kernel and likelihood of `parts`; ModelFileError
  /// naming the entry when one is missing or has the wrong shape.
  static std::unique_ptr<InducingClassModel> read(ModelArchive& archive, const ModelParts& parts);
  /// Whether `archive` (a multi-class bootstrap model) holds this prior's.
  static bool holds(const ModelArchive& archive) {
    return archive.has("posterior/inducing_spread");
  }

  /// Eq M9 (inducing_class_predictive) in blocks of new inputs.
  ClassPredictive latents(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return Z_.cols(); }
  std::string kind() const override { return "sparse_adatap_multiclass"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  Eigen::MatrixXd Z_;
  std::vector<Eigen::MatrixXd> lower_;
  LowRankForm form_;
  InducingClassWeights weights_;
};

}  // namespace quench::adatap
