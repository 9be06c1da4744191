// The nested-EP multi-class classifier on the inducing-point prior as a fitted model (kind
// "multiclass_gp_classifier", entry posterior/prior = "inducing"): with the features
// u(x) = L^{-1} K(Z, x) (quench/low_rank_prior.h) and the posterior N(a_bar, P^{-1}) of the
// whitened inducing values (inducing_class_posterior.h), f_c(x) = u(x)^T a_c + e_c(x), so
//   E[f_c(x)] = u(x)^T a_bar_c,
//   Cov[f_c(x), f_c'(x)] = u(x)^T P^{-1}[c, c'] u(x) + delta_cc' (k(x, x) - |u(x)|^2 + v2)
// (FITC, VFE; SoR: without k(x, x) - |u(x)|^2, as quench/low_rank_predictor.h), and the class
// probabilities are the likelihood's predictive at that Gaussian (multiclass_model.h's columns).
//
// Entries (M inducing inputs of d columns, C classes):
//   posterior/prior                    text "inducing"
//   posterior/form                     text fitc, vfe or sor
//   posterior/inducing_inputs          matrix M x d   Z
//   posterior/inducing_cholesky_lower  matrix M x M   L, K(Z, Z) + jitter I = L L^T
//   posterior/inducing_mean            matrix M x C   a_bar
//   posterior/precision_inverse        matrix CM x CM P^{-1} (formed once at the fit, so that a
//                                      loaded model predicts with the same bits)
#pragma once

#include <memory>

#include "class_posterior.h"
#include "multiclass_ep.h"
#include "multiclass_model.h"
#include "quench/inducing_points.h"
#include "quench/inference_engine.h"
#include "quench/site_prior.h"

namespace quench::multiclass {

class InducingMulticlassModel final : public Model {
 public:
  InducingMulticlassModel(std::shared_ptr<const Kernel> kernel,
                          std::shared_ptr<const Likelihood> lik, Eigen::MatrixXd inducing_inputs,
                          Eigen::MatrixXd inducing_lower, LowRankForm form,
                          Eigen::MatrixXd inducing_mean, Eigen::MatrixXd precision_inverse);
  /// The model of a fit on InducingClassPrior(prior).
  static std::shared_ptr<const InducingMulticlassModel> from_fit(
      std::shared_ptr<const Kernel> kernel, std::shared_ptr<const Likelihood> lik,
      const InducingSitePrior& prior, const MulticlassFit& fit);
  /// The model written by write(), for inputs of parts.X_train's width; ModelFileError naming the
  /// entry when one is missing, has the wrong shape or is not a Cholesky factor.
  static std::unique_ptr<InducingMulticlassModel> read(ModelArchive& archive,
                                                       const ModelParts& parts);
  ClassLatents latents(const Eigen::MatrixXd& X) const;
  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return inducing_inputs_.cols(); }
  std::string kind() const override { return "multiclass_gp_classifier"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Likelihood> likelihood_;
  Eigen::MatrixXd inducing_inputs_, inducing_lower_;
  LowRankForm form_;
  Eigen::MatrixXd inducing_mean_, precision_inverse_;  // a_bar, P^{-1}
};

/// A multiclass_gp_classifier model of either prior: InducingMulticlassModel when
/// posterior/prior is "inducing", MulticlassModel otherwise.
std::unique_ptr<Model> read_multiclass_model(ModelArchive& archive, const ModelParts& parts);

}  // namespace quench::multiclass
