// The latent GPs as fitted models: the mean-field / EP posterior of 001 for any scalar
// likelihood (kind "gp_classifier", the name of its first use; engines tap, ep,
// naive_mean_field) and the SVM limit (kind "svm_classifier"). The engines' own test outputs are
// these models' predictions at X_test (add_model_predictions, fit_outputs.h), so a saved model
// predicts exactly what the run reported.
//
// gp_classifier entries (N training inputs):
//   posterior/t_alpha          vector N   u_i (001's t_i alpha_i): <h(x)> = sum_i C(x, x_i) u_i
//   posterior/latent_variance  text       how eq 27 is evaluated: "prior" (naive mean field,
//                                         lambda(x) = C(x, x)), "cholesky" or "inverse"
//   posterior/sqrt_tau         vector N   "cholesky": S = diag(sqrt tau), tau_i = 1/Omega_i
//   posterior/cholesky_lower   matrix NxN "cholesky": L with B = I + S C S = L L^T
//   posterior/omega_plus_c_inverse  matrix NxN  "inverse" (some tau_i < 0, label noise):
//                                         (Omega + C)^{-1} = T (I + C T)^{-1}
//   posterior/low_rank/...     "low_rank" (EP on the inducing-point prior): a LowRankPredictor,
//                                         no training inputs (LowRankClassifierModel)
// Columns: latent_mean <h(x)> and latent_variance lambda(x) (eq 27; C(x, x) includes the
// kernel's diagonal noise v2, the probit noise of App. A), then the likelihood's predictions of
// y (quench/target_prediction.h): for a binary target probability p(t = +1 | x) (eq 12) and
// label (eq 13: +1 when <h(x)> >= 0, else -1); otherwise target_mean, target_variance, the
// quantiles and p(y = k).
//
// svm_classifier entries: posterior/t_alpha (vector N). Columns: decision <h(x)> =
// sum_i C(x, x_i) t_i alpha_i (001 Sec. 7), label (+1 when the decision is >= 0, else -1).
#pragma once

#include <memory>
#include <string>

#include "quench/low_rank_predictor.h"
#include "quench/target_prediction.h"
#include "site_algebra.h"

namespace quench::latent_gp {

/// What a "gp_classifier" model evaluates the latent variance of eq 27 with.
struct LatentVarianceForm {
  enum class Kind { prior, cholesky, inverse };
  Kind kind = Kind::prior;
  Eigen::VectorXd sqrt_tau;  ///< cholesky: sqrt(tau_i)
  Eigen::MatrixXd matrix;    ///< cholesky: L of I + S C S; inverse: (Omega + C)^{-1}
  /// The form of a fit's site system at its fixed point: its Cholesky factor, or
  /// (Omega + C)^{-1} in the LU form; null `sites`: prior (naive mean field).
  static LatentVarianceForm of(const SiteSystem* sites);
  /// Eq 27 at m inputs: lambda(x) = C(x, x) - k^T (Omega + C)^{-1} k, floored at 0, from their
  /// prior variances C(x, x) (with the kernel's noise v2) and cross-covariances K = C(X, x)
  /// (N x m, overwritten).
  Eigen::VectorXd variance(Eigen::MatrixXd& K, const Eigen::VectorXd& prior) const;
};

class ClassifierModel final : public Model {
 public:
  ClassifierModel(std::shared_ptr<const Kernel> kernel, std::shared_ptr<const Likelihood> lik,
                  Eigen::MatrixXd X_train, Eigen::VectorXd slope, LatentVarianceForm variance);
  /// The fit of a mean-field or EP engine: its slopes u and, for the variance, the site system
  /// at the fixed point (its Cholesky factor, or (Omega + C)^{-1} in the LU form); `sites` null:
  /// naive mean field, lambda(x) = C(x, x).
  static std::shared_ptr<const ClassifierModel> from_fit(const Problem& problem,
                                                         const MeanFieldFit& fit,
                                                         const SiteSystem* sites);
  /// The model written by write(); ModelFileError naming the entry when one is missing or has
  /// the wrong shape.
  static std::unique_ptr<ClassifierModel> read(ModelArchive& archive, const ModelParts& parts);

  Predictions predict(const Eigen::MatrixXd& X) const override { return predict(X, {}); }
  /// latent_mean, latent_variance and the likelihood's columns of y (add_target_predictions).
  Predictions predict(const Eigen::MatrixXd& X, const TargetQuery& query) const override;
  Eigen::Index input_dimension() const override { return X_train_.cols(); }
  std::string kind() const override { return "gp_classifier"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Likelihood> likelihood_;
  Eigen::MatrixXd X_train_;
  Eigen::VectorXd slope_;
  LatentVarianceForm variance_;
};

/// The "gp_classifier" model of EP on the inducing-point prior (ep_prior.h): <h(x)> and the
/// latent variance from its LowRankPredictor (quench/low_rank_predictor.h), the variance with
/// the kernel's diagonal noise v2 added as in eq 27; the columns of ClassifierModel. Entries
/// posterior/latent_variance = "low_rank" and the predictor's under posterior/low_rank/.
class LowRankClassifierModel final : public Model {
 public:
  LowRankClassifierModel(std::shared_ptr<const Kernel> kernel,
                         std::shared_ptr<const Likelihood> lik, LowRankPredictor predictor);
  static std::unique_ptr<LowRankClassifierModel> read(ModelArchive& archive,
                                                      const ModelParts& parts);

  Predictions predict(const Eigen::MatrixXd& X) const override { return predict(X, {}); }
  Predictions predict(const Eigen::MatrixXd& X, const TargetQuery& query) const override;
  Eigen::Index input_dimension() const override { return predictor_.inducing_inputs.cols(); }
  std::string kind() const override { return "gp_classifier"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Likelihood> likelihood_;
  LowRankPredictor predictor_;
};

/// A "gp_classifier" model of either kind: LowRankClassifierModel when its
/// posterior/latent_variance is "low_rank", else ClassifierModel.
std::unique_ptr<Model> read_gp_classifier(ModelArchive& archive, const ModelParts& parts);

class SvmModel final : public Model {
 public:
  SvmModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_train, Eigen::VectorXd t_alpha);
  static std::unique_ptr<SvmModel> read(ModelArchive& archive, const ModelParts& parts);

  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return X_train_.cols(); }
  std::string kind() const override { return "svm_classifier"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  Eigen::MatrixXd X_train_;
  Eigen::VectorXd t_alpha_;
};

}  // namespace quench::latent_gp
