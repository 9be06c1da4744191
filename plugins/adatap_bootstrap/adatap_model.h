// The ADATAP bootstrap at new inputs as a fitted model (000 eq 57, "valid for arbitrary inputs
// x"): the bootstrap mean and variance of the GP predictor f^_x over resampled training sets,
// from the site parameters of the converged theory,
//   E_D[f^_x]   = k(x)^T T gamma,
//   Var_D[f^_x] = -k(x)^T T diag(lambda) T^T k(x),   T = (I + diag(Delta lambda) K)^{-1},
// with T^T k = k - G diag(Delta lambda) k, G = (K^{-1} + diag(Delta lambda))^{-1} (eq 41), so a
// prediction needs no factorization. An input outside the training set is never in a resample
// (occupation 0): eq 58 then has its k = 0 term only and the predictor's bootstrap
// distribution is the Gaussian with these two moments (eq 67's mixture is for training inputs).
//
// Entries (N training inputs): posterior/G (matrix N x N), posterior/delta_lambda,
// posterior/gamma, posterior/lambda (vectors N), posterior/expected_sample_size (real: S of the
// run). Columns: bootstrap_mean (target units), bootstrap_variance (target variance units).
//
// With a non-Gaussian likelihood (kind "adatap_classifier", docs/adatap_classification.md eqs
// 19-21) the same entries; the columns, without units: bootstrap_mean and bootstrap_variance
// of the latent posterior mean, within_sample_variance G_xx = K(x, x) - k^T (K + diag(Delta
// lambda)^-1)^-1 k = K(x, x) - (D k)^T T^T k (the replica Gaussian's variance within a sample),
// probability E_D[p(+1 | x, D)] = the likelihood's predictive integral under
// N(bootstrap_mean, G_xx + bootstrap_variance) (eq 21: Phi(mean / sqrt(sigma^2 + G_xx + var))
// for the probit), label (+1 when bootstrap_mean >= 0, else -1).
//
// The SVM limit (kind "adatap_svm", note §6): the entries in the rescaled parameters (G~,
// Delta lambda~, gamma~, lambda~; eq 19 is invariant under the rescaling), columns
// bootstrap_mean and bootstrap_variance of the decision value, label; no within-sample variance
// or probability (both degenerate as beta -> infinity).
#pragma once

#include <memory>

#include "quench/inference_engine.h"
#include "quench/target_prediction.h"

namespace quench::adatap {

class AdatapModel final : public Model {
 public:
  /// What the model predicts: GP regression, a classifier with `likelihood`, the SVM limit.
  enum class Form { regression, classifier, svm };
  AdatapModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_train, Eigen::MatrixXd G,
              Eigen::VectorXd delta_lambda, Eigen::VectorXd gamma, Eigen::VectorXd lambda,
              double expected_sample_size, Form form = Form::regression,
              std::shared_ptr<const Likelihood> likelihood = nullptr);
  /// The model written by write(), with the kernel and training inputs of `parts`; `form`
  /// regression becomes classifier when the likelihood of `parts` is not Gaussian.
  /// ModelFileError naming the entry when one is missing or has the wrong shape.
  static std::unique_ptr<AdatapModel> read(ModelArchive& archive, const ModelParts& parts,
                                           Form form = Form::regression);

  /// Eq 57 in blocks of new inputs (an N x block kernel matrix at a time); a classifier's
  /// predictions of y asked for by `query` (classifier_predictions).
  Predictions predict(const Eigen::MatrixXd& X) const override { return predict(X, {}); }
  Predictions predict(const Eigen::MatrixXd& X, const TargetQuery& query) const override;
  Eigen::Index input_dimension() const override { return X_train_.cols(); }
  std::string kind() const override {
    return form_ == Form::classifier ? "adatap_classifier"
           : form_ == Form::svm      ? "adatap_svm"
                                     : "adatap_bootstrap";
  }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  Eigen::MatrixXd X_train_, G_;
  Eigen::VectorXd delta_lambda_, gamma_, lambda_;
  double expected_sample_size_;
  Form form_;
  std::shared_ptr<const Likelihood> likelihood_;
};

/// The columns of a bootstrap of a non-Gaussian likelihood at new inputs
/// (docs/adatap_classification.md eqs 19-21) from the bootstrap mean and variance of the latent
/// posterior mean and the within-sample variance G_xx: those three, then the likelihood's
/// predictions of y under N(mean, G_xx + variance) (quench/target_prediction.h; for labels
/// probability by eq 21 and label, +1 when mean >= 0). Shared by the dense and the
/// inducing-point models.
Predictions classifier_predictions(const Likelihood& likelihood, const Eigen::VectorXd& mean,
                                   const Eigen::VectorXd& variance, const Eigen::VectorXd& within,
                                   const TargetQuery& query = {});

}  // namespace quench::adatap
