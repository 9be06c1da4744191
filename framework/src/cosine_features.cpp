#include "quench/cosine_features.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "quench/memory_budget.h"

namespace quench {

CosineFeatures::CosineFeatures(Eigen::MatrixXd frequencies, Eigen::RowVectorXd phases, double scale,
                               double bias)
    : frequencies_(std::move(frequencies)), phases_(std::move(phases)), scale_(scale), bias_(bias) {
  if (phases_.size() != frequencies_.cols())
    throw std::invalid_argument("CosineFeatures: " + std::to_string(frequencies_.cols()) +
                                " frequencies but " + std::to_string(phases_.size()) + " phases");
  if (!std::isfinite(scale_) || !std::isfinite(bias_) || bias_ < 0)
    throw std::invalid_argument("CosineFeatures: scale and bias must be finite, bias >= 0");
}

CosineFeatures::~CosineFeatures() = default;

Eigen::MatrixXd CosineFeatures::features(const Eigen::MatrixXd& X) const {
  require_memory(8.0 * double(X.rows()) * double(dimension()),
                 "random_features: the " + std::to_string(X.rows()) + " x " +
                     std::to_string(dimension()) + " feature matrix");
  Eigen::MatrixXd F(X.rows(), dimension());
  auto cosines = F.leftCols(frequencies_.cols());
  cosines.noalias() = X * frequencies_;
  cosines.rowwise() += phases_;
  cosines = scale_ * cosines.array().cos();
  if (bias_ > 0) F.col(frequencies_.cols()).setConstant(std::sqrt(bias_));
  return F;
}

}  // namespace quench
