#include "quench/column_subset_kernel.h"

#include <algorithm>
#include <utility>

#include "quench/errors.h"

namespace quench {

ColumnSubsetKernel::ColumnSubsetKernel(std::shared_ptr<Kernel> part,
                                       std::vector<Eigen::Index> columns)
    : part_(std::move(part)), columns_(std::move(columns)) {
  if (!part_) throw ConfigError({}, "a kernel on input columns got a null kernel");
  if (columns_.empty())
    throw ConfigError({}, "a kernel on input columns needs at least one column");
  std::vector<Eigen::Index> sorted = columns_;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0) throw ConfigError({}, "input column indices must be >= 0");
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw ConfigError({}, "a kernel's input columns must not repeat");
}

ColumnSubsetKernel::~ColumnSubsetKernel() = default;

Eigen::MatrixXd ColumnSubsetKernel::select(const Eigen::MatrixXd& X) const {
  if (X.cols() != input_dimension_)
    throw ConfigError({}, "a kernel on input columns was prepared for " +
                              std::to_string(input_dimension_) + " columns, got " +
                              std::to_string(X.cols()));
  return X(Eigen::all, columns_);
}

void ColumnSubsetKernel::prepare(const Eigen::MatrixXd& X_train) {
  for (Eigen::Index c : columns_)
    if (c >= X_train.cols())
      throw ConfigError({}, "a kernel acts on input column " + std::to_string(c) +
                                " (0-based), but the inputs have " +
                                std::to_string(X_train.cols()) + " columns");
  input_dimension_ = X_train.cols();
  part_->prepare(select(X_train));
  build_feature_map();
}

// The part's features phi(x[c]) as features of x: frequencies Omega_c on the rows c, 0 elsewhere.
void ColumnSubsetKernel::build_feature_map() {
  features_.reset();
  const auto* map = dynamic_cast<const CosineFeatures*>(part_->feature_map());
  if (!map) return;
  Eigen::MatrixXd omega = Eigen::MatrixXd::Zero(input_dimension_, map->frequencies().cols());
  omega(columns_, Eigen::all) = map->frequencies();
  features_ =
      std::make_unique<CosineFeatures>(std::move(omega), map->phases(), map->scales(), map->bias());
}

Eigen::MatrixXd ColumnSubsetKernel::cross(const Eigen::MatrixXd& X1,
                                          const Eigen::MatrixXd& X2) const {
  return part_->cross(select(X1), select(X2));
}

Eigen::VectorXd ColumnSubsetKernel::diagonal(const Eigen::MatrixXd& X) const {
  return part_->diagonal(select(X));
}

std::vector<Hyperparameter> ColumnSubsetKernel::hyperparameters() const {
  return part_->hyperparameters();
}

void ColumnSubsetKernel::set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) {
  part_->set_hyperparameter(name, value);
  build_feature_map();
}

Eigen::VectorXd ColumnSubsetKernel::diagonal_noise_derivative() const {
  return part_->diagonal_noise_derivative();
}

Eigen::MatrixXd ColumnSubsetKernel::cross_derivative(const Eigen::MatrixXd& A,
                                                     const Eigen::MatrixXd& B,
                                                     Eigen::Index j) const {
  return part_->cross_derivative(select(A), select(B), j);
}

Eigen::VectorXd ColumnSubsetKernel::cross_derivative_contractions(const Eigen::MatrixXd& A,
                                                                  const Eigen::MatrixXd& B,
                                                                  const Eigen::MatrixXd& W) const {
  return part_->cross_derivative_contractions(select(A), select(B), W);
}

Eigen::VectorXd ColumnSubsetKernel::diagonal_derivative_contractions(
    const Eigen::MatrixXd& X, const Eigen::VectorXd& w) const {
  return part_->diagonal_derivative_contractions(select(X), w);
}

}  // namespace quench
