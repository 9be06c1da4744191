// The exact GP regression posterior as a fitted model (Rasmussen & Williams, Alg. 2.1 and
// eqs 2.25-2.26): alpha = (K + sigma^2 I)^{-1} y and the lower Cholesky factor L of
// K + sigma^2 I, kept so that predicting new inputs needs no refit.
//
// Entries (N training inputs): posterior/alpha (vector N), posterior/cholesky_lower (matrix
// N x N, L with K + sigma^2 I = L L^T, any jitter the factorization added included, strict
// upper triangle zero), posterior/noise_variance (real: sigma^2, the likelihood's noise plus the
// kernel's diagonal noise).
// Columns: mean (E f(x), target units), variance (Var f(x), the latent variance, target
// variance units), predictive_variance (Var y(x) = Var f(x) + sigma^2, target variance units).
#pragma once

#include <memory>

#include "quench/inference_engine.h"

namespace quench::gp_regression {

/// The columns of both GP regression models: mean, variance (of f) and predictive_variance
/// (variance + the noise variance).
Predictions regression_predictions(const Eigen::VectorXd& mean, const Eigen::VectorXd& variance,
                                   double noise_variance);

class GpRegressionModel final : public Model {
 public:
  GpRegressionModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_train,
                    Eigen::VectorXd alpha, Eigen::MatrixXd lower, double noise_variance);
  /// The model written by write(), rebuilt with the kernel and training inputs of `parts`;
  /// ModelFileError naming the entry when one is missing or has the wrong shape.
  static std::unique_ptr<GpRegressionModel> read(ModelArchive& archive, const ModelParts& parts);

  /// Rows of X in blocks (an N x block kernel matrix at a time): mean K*^T alpha (eq 2.25),
  /// variance k(x, x) - |L^{-1} k*|^2 (eq 2.26, one triangular solve, clamped at 0).
  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return X_train_.cols(); }
  std::string kind() const override { return "gp_regression"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  Eigen::MatrixXd X_train_;
  Eigen::VectorXd alpha_;
  Eigen::MatrixXd lower_;
  double noise_variance_;
};

}  // namespace quench::gp_regression
