#include "sparse_gp_regression_model.h"

#include <utility>

#include "gp_regression_model.h"
#include "quench/errors.h"

namespace quench::gp_regression {

SparseGpRegressionModel::SparseGpRegressionModel(std::shared_ptr<const Kernel> kernel,
                                                 LowRankPredictor predictor, double noise_variance)
    : kernel_(std::move(kernel)),
      predictor_(std::move(predictor)),
      noise_variance_(noise_variance) {}

std::unique_ptr<SparseGpRegressionModel> SparseGpRegressionModel::read(ModelArchive& archive,
                                                                       const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train)
    throw ConfigError({}, "sparse_gp_regression model needs its kernel and training inputs");
  return std::make_unique<SparseGpRegressionModel>(
      parts.kernel, LowRankPredictor::read(archive, "posterior", parts.X_train->cols()),
      archive.real("posterior/noise_variance"));
}

Predictions SparseGpRegressionModel::predict(const Eigen::MatrixXd& X) const {
  Eigen::VectorXd mean, variance;
  predictor_.predict(*kernel_, X, mean, variance);
  return regression_predictions(mean, variance, noise_variance_);
}

void SparseGpRegressionModel::write(ModelArchive& archive) const {
  predictor_.write(archive, "posterior");
  archive.put("posterior/noise_variance", noise_variance_);
}

}  // namespace quench::gp_regression
