// The multi-class ADATAP bootstrap at new inputs as a fitted model (docs/adatap_multiclass.md
// eqs M9-M10): the bootstrap distribution of the C latents at x, E_D f^_x = X^T (gamma - D m),
// the within-sample covariance G_xx and the bootstrap covariance -A^T Lambda A, and the
// bootstrap mean and variance of each class probability over it (the u-cubature of the run).
// An input outside the training set is never in a resample, as for the binary model
// (adatap_model.h).
//
// Entries (N training inputs, C classes): posterior/G (matrix CN x CN, class-major),
// posterior/delta_lambda and posterior/lambda (C x CN, block i = point i), posterior/gamma and
// posterior/mean (N x C), posterior/cubature (text: degree3, degree5, product),
// posterior/cubature_nodes (integer), posterior/expected_sample_size (real). Columns:
// bootstrap_mean.<c>, probability.<c>, probability_variance.<c>, label (the largest
// probability, the lower class on ties).
#pragma once

#include <memory>

#include "class_solver.h"
#include "quench/inference_engine.h"

namespace quench::adatap {

/// What the multi-class bootstrap models share: eq M10 over the distribution of eq M9, which
/// each prior computes its own way (latents()), and the cubature of the run.
class ClassBootstrapModel : public Model {
 public:
  ClassBootstrapModel(std::shared_ptr<const Likelihood> likelihood, Eigen::Index classes,
                      ClassRule rule, double expected_sample_size);
  /// Eq M9 at the rows of X.
  virtual ClassPredictive latents(const Eigen::MatrixXd& X) const = 0;
  /// The columns of the file's header: eq M10 at each row of X.
  Predictions predict(const Eigen::MatrixXd& X) const override;
  /// The same from eq M9's distribution at the inputs (latents()).
  Predictions predictions(const ClassPredictive& latents) const;
  Eigen::Index classes() const { return classes_; }
  /// Whether `archive` holds a multi-class bootstrap model (on either prior).
  static bool holds(const ModelArchive& archive) { return archive.has("posterior/cubature"); }

 protected:
  /// The cubature and the expected sample size (posterior/cubature, posterior/cubature_nodes,
  /// posterior/expected_sample_size).
  void write_rule(ModelArchive& archive) const;
  static ClassRule read_rule(ModelArchive& archive);

 private:
  std::shared_ptr<const Likelihood> likelihood_;
  Eigen::Index classes_;
  ClassRule rule_;
  double expected_sample_size_;
};

/// On the dense prior.
class AdatapClassModel final : public ClassBootstrapModel {
 public:
  /// From a converged solution: its G, Delta lambda, lambda, gamma and m are moved in.
  AdatapClassModel(std::shared_ptr<const Kernel> kernel,
                   std::shared_ptr<const Likelihood> likelihood, Eigen::MatrixXd X_train,
                   ClassSolution&& sites, ClassRule rule, double expected_sample_size);
  /// The model written by write(), with the kernel, likelihood and training inputs of `parts`;
  /// ModelFileError naming the entry when one is missing or has the wrong shape.
  static std::unique_ptr<AdatapClassModel> read(ModelArchive& archive, const ModelParts& parts);

  /// Eq M9 (class_predictive) in blocks of new inputs.
  ClassPredictive latents(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return X_train_.cols(); }
  std::string kind() const override { return "adatap_multiclass"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  Eigen::MatrixXd X_train_;
  ClassSolution sites_;
};

}  // namespace quench::adatap
