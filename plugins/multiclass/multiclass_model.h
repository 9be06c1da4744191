// The nested-EP multi-class classifier as a fitted model (kind "multiclass_gp_classifier"):
// at new inputs x, with k_c = K_c(X_train, x) (class c's kernel, quench/class_kernels.h; the
// same for every class when one is shared) and the posterior's coupling (class_posterior.h),
//   E[f_c(x)] = k_c^T b_c,  b_c = K_c^{-1} mu_c,
//   Cov[f_c(x), f_c'(x)] = delta_cc' (k_c(x, x) - k_c^T E_c k_c) + (L^{-1} E_c k_c) . (L^{-1} E_c'
//   k_c'),
// and the class probabilities p(y = c | x) = the likelihood's predictive at that Gaussian.
//
// Entries (N training inputs, C classes):
//   posterior/mean_weights  matrix N x C  b
//   posterior/coupling_<c>  matrix N x N  E_c, c = 0..C-1
//   posterior/m_lower       matrix N x N  L with M = sum_c E_c = L L^T
// Columns: latent_mean.<c>, latent_variance.<c>, probability.<c> (c = 0..C-1), label (the class
// index of the largest probability); no target units.
#pragma once

#include <memory>

#include "class_posterior.h"
#include "multiclass_ep.h"
#include "quench/class_results.h"
#include "quench/inference_engine.h"

namespace quench::multiclass {

/// Latent means (m x C) and covariances (C x Cm, block j for input j) at new inputs.
struct ClassLatents {
  Eigen::MatrixXd mean;
  Eigen::MatrixXd covariance;
};

class MulticlassModel final : public Model {
 public:
  MulticlassModel(std::shared_ptr<const Kernel> kernel, std::shared_ptr<const Likelihood> lik,
                  Eigen::MatrixXd X_train, Eigen::MatrixXd mean_weights, ClassCoupling coupling);
  /// The model of a fit on training inputs X with labels y (b = K^{-1} mu and its coupling).
  static std::shared_ptr<const MulticlassModel> from_fit(std::shared_ptr<const Kernel> kernel,
                                                         std::shared_ptr<const Likelihood> lik,
                                                         const Eigen::MatrixXd& X,
                                                         const Eigen::VectorXi& y,
                                                         const MulticlassFit& fit);
  /// The model written by write(); ModelFileError naming the entry when one is missing or has
  /// the wrong shape, ConfigError when the likelihood is not multi-class.
  static std::unique_ptr<MulticlassModel> read(ModelArchive& archive, const ModelParts& parts);
  ClassLatents latents(const Eigen::MatrixXd& X) const;
  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return X_train_.cols(); }
  std::string kind() const override { return "multiclass_gp_classifier"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Likelihood> likelihood_;
  Eigen::MatrixXd X_train_, mean_weights_;
  ClassCoupling coupling_;
};

/// A multi-class model's columns (header) from its latents at m new inputs.
Predictions class_predictions(const ClassLikelihood& lik, const ClassLatents& latents);

}  // namespace quench::multiclass
