// The ADATAP bootstrap on the inducing-point prior as a fitted model (000 eq 57 with the
// cross-covariance k~(x) = U u(x), u(x) = L^-1 K(Z, x); docs/large_n.md): the bootstrap mean
// u(x)^T U^T alpha and variance -u(x)^T C_T u(x) of the GP predictor at any input. It keeps
// O(M^2) numbers whatever N: the training rows enter eq 57 only through U^T alpha and C_T.
//
// Entries: posterior/inducing_inputs (M x d), posterior/inducing_cholesky_lower (M x M, L),
// posterior/mean_weights (M, U^T alpha), posterior/variance_form (M x M, C_T, lower triangle),
// posterior/expected_sample_size (real). Columns: bootstrap_mean (target units),
// bootstrap_variance (target variance units), as the dense model's.
//
// With a non-Gaussian likelihood (kind "sparse_adatap_classifier", the classifier bootstrap on
// the inducing-point prior) also posterior/within_form (M x M, A of sparse_solver.h, lower
// triangle) and posterior/inducing_form (fitc, vfe, sor: the prior variance k(x, x) or, for
// SoR, |u(x)|^2); the columns of the dense classifier model (classifier_predictions), without
// units.
#pragma once

#include <memory>

#include "quench/inducing_points.h"
#include "quench/inference_engine.h"
#include "quench/target_prediction.h"
#include "sparse_solver.h"

namespace quench::adatap {

class SparseAdatapModel final : public Model {
 public:
  /// A classifier when `likelihood` is given (the predictor then has its within_form).
  SparseAdatapModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd inducing_inputs,
                    Eigen::MatrixXd inducing_lower, SparsePredictor predictor,
                    double expected_sample_size,
                    std::shared_ptr<const Likelihood> likelihood = nullptr,
                    LowRankForm form = LowRankForm::fitc);
  /// Whether `archive` holds this kind's entries (the engine's read_model dispatches on it).
  static bool holds(const ModelArchive& archive);
  /// The model write() made, with the kernel (and, for a classifier, the likelihood) of
  /// `parts`; ModelFileError naming the entry when one is missing or has the wrong shape.
  static std::unique_ptr<SparseAdatapModel> read(ModelArchive& archive, const ModelParts& parts);

  /// Eq 57 in blocks of new inputs (a block x M feature matrix at a time).
  Predictions predict(const Eigen::MatrixXd& X) const override { return predict(X, {}); }
  Predictions predict(const Eigen::MatrixXd& X, const TargetQuery& query) const override;
  Eigen::Index input_dimension() const override { return Z_.cols(); }
  std::string kind() const override {
    return likelihood_ ? "sparse_adatap_classifier" : "sparse_adatap_bootstrap";
  }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  Eigen::MatrixXd Z_, lower_;
  SparsePredictor predictor_;
  double expected_sample_size_;
  std::shared_ptr<const Likelihood> likelihood_;
  LowRankForm form_;
};

}  // namespace quench::adatap
