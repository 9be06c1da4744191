// The nested-EP multi-class classifier on the inducing-point prior as a fitted model (kind
// "multiclass_gp_classifier", entry posterior/prior = "inducing"): with class c's features
// u_c(x) = L_c^{-1} K_c(Z, x) (quench/low_rank_prior.h; K_c class c's kernel,
// quench/class_kernels.h, the same for every class when one is shared) and the posterior
// N(a_bar, P^{-1}) of the whitened inducing values (inducing_class_posterior.h),
// f_c(x) = u_c(x)^T a_c + e_c(x), so
//   E[f_c(x)] = u_c(x)^T a_bar_c,
//   Cov[f_c(x), f_c'(x)] = u_c(x)^T P^{-1}[c, c'] u_c'(x) + delta_cc' (k_c(x, x) - |u_c(x)|^2 +
//   v2_c)
// (FITC, VFE; SoR: without k_c(x, x) - |u_c(x)|^2, as quench/low_rank_predictor.h), and the
// class probabilities are the likelihood's predictive at that Gaussian (multiclass_model.h's
// columns).
//
// Entries (M inducing inputs of d columns, C classes):
//   posterior/prior                    text "inducing"
//   posterior/form                     text fitc, vfe or sor
//   posterior/inducing_inputs          matrix M x d   Z
//   posterior/inducing_cholesky_lower  matrix M x M   L, K(Z, Z) + jitter I = L L^T (one kernel;
//                                      with a kernel per class, L_c as
//                                      posterior/inducing_cholesky_lower_<c>, c = 0..C-1)
//   posterior/inducing_mean            matrix M x C   a_bar
//   posterior/precision_inverse        matrix CM x CM P^{-1} (formed once at the fit, so that a
//                                      loaded model predicts with the same bits)
#pragma once

#include <memory>
#include <vector>

#include "class_posterior.h"
#include "multiclass_ep.h"
#include "multiclass_model.h"
#include "quench/inducing_points.h"
#include "quench/inference_engine.h"
#include "quench/site_prior.h"

namespace quench::multiclass {

class InducingMulticlassModel final : public Model {
 public:
  /// `inducing_lower`: L, or L_c of each class with a kernel per class.
  InducingMulticlassModel(std::shared_ptr<const Kernel> kernel,
                          std::shared_ptr<const Likelihood> lik, Eigen::MatrixXd inducing_inputs,
                          std::vector<Eigen::MatrixXd> inducing_lower, LowRankForm form,
                          Eigen::MatrixXd inducing_mean, Eigen::MatrixXd precision_inverse);
  /// The model of a fit on InducingClassPrior(priors) (one prior, or one per class).
  static std::shared_ptr<const InducingMulticlassModel> from_fit(
      std::shared_ptr<const Kernel> kernel, std::shared_ptr<const Likelihood> lik,
      const std::vector<const InducingSitePrior*>& priors, const MulticlassFit& fit);
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
  Eigen::MatrixXd inducing_inputs_;
  std::vector<Eigen::MatrixXd> inducing_lower_;  // L, or L_c per class
  LowRankForm form_;
  Eigen::MatrixXd inducing_mean_, precision_inverse_;  // a_bar, P^{-1}
};

/// A multiclass_gp_classifier model of either prior: InducingMulticlassModel when
/// posterior/prior is "inducing", MulticlassModel otherwise.
std::unique_ptr<Model> read_multiclass_model(ModelArchive& archive, const ModelParts& parts);

}  // namespace quench::multiclass
