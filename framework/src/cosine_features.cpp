#include "quench/cosine_features.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "quench/memory_budget.h"

namespace quench {

CosineFeatures::CosineFeatures(Eigen::MatrixXd frequencies, Eigen::RowVectorXd phases,
                               Eigen::RowVectorXd scales, double bias)
    : frequencies_(std::move(frequencies)),
      phases_(std::move(phases)),
      scales_(std::move(scales)),
      bias_(bias) {
  if (phases_.size() != frequencies_.cols() || scales_.size() != frequencies_.cols())
    throw std::invalid_argument("CosineFeatures: " + std::to_string(frequencies_.cols()) +
                                " frequencies but " + std::to_string(phases_.size()) +
                                " phases and " + std::to_string(scales_.size()) + " scales");
  if (!scales_.allFinite() || !std::isfinite(bias_) || bias_ < 0)
    throw std::invalid_argument("CosineFeatures: scales and bias must be finite, bias >= 0");
}

CosineFeatures::CosineFeatures(Eigen::MatrixXd frequencies, Eigen::RowVectorXd phases, double scale,
                               double bias)
    : CosineFeatures(std::move(frequencies), phases,  // phases copied: its size is read too
                     Eigen::RowVectorXd::Constant(phases.size(), scale), bias) {}

std::unique_ptr<CosineFeatures> CosineFeatures::concatenate(
    const std::vector<const CosineFeatures*>& maps) {
  if (maps.empty()) return nullptr;
  Eigen::Index D = 0;
  double bias = 0;
  for (const CosineFeatures* m : maps) {
    if (m->frequencies().rows() != maps.front()->frequencies().rows())
      throw std::invalid_argument("CosineFeatures::concatenate: maps of other input dimensions");
    D += m->frequencies().cols();
    bias += m->bias();
  }
  Eigen::MatrixXd omega(maps.front()->frequencies().rows(), D);
  Eigen::RowVectorXd phases(D), scales(D);
  Eigen::Index at = 0;
  for (const CosineFeatures* m : maps) {
    const Eigen::Index n = m->frequencies().cols();
    omega.middleCols(at, n) = m->frequencies();
    phases.segment(at, n) = m->phases();
    scales.segment(at, n) = m->scales();
    at += n;
  }
  return std::make_unique<CosineFeatures>(std::move(omega), std::move(phases), std::move(scales),
                                          bias);
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
  cosines = cosines.array().cos().rowwise() * scales_.array();
  if (bias_ > 0) F.col(frequencies_.cols()).setConstant(std::sqrt(bias_));
  return F;
}

}  // namespace quench
