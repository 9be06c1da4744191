// A kernel on some of the input columns (GPML's covMask, GPy's active_dims):
//   K(A, B) = K_part(A[:, c], B[:, c])
// for column indices c. Its hyperparameters are the part's, under the same names (a part's
// length_scales has one entry per selected column). A part's random Fourier features
// (CosineFeatures) become features of the full input, with zero frequencies on the other
// columns.
#pragma once

#include <memory>
#include <vector>

#include "quench/cosine_features.h"
#include "quench/export.h"
#include "quench/kernel.h"

namespace quench {

class QUENCH_API ColumnSubsetKernel final : public Kernel {
 public:
  /// Throws ConfigError for a null part, no columns, a negative or repeated column.
  ColumnSubsetKernel(std::shared_ptr<Kernel> part, std::vector<Eigen::Index> columns);
  ~ColumnSubsetKernel() override;

  const Kernel& part() const { return *part_; }
  const std::vector<Eigen::Index>& columns() const { return columns_; }

  /// Throws ConfigError when a column is not below X_train.cols().
  void prepare(const Eigen::MatrixXd& X_train) override;
  Eigen::MatrixXd cross(const Eigen::MatrixXd& X1, const Eigen::MatrixXd& X2) const override;
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override;
  double diagonal_noise() const override { return part_->diagonal_noise(); }
  const FeatureMap* feature_map() const override { return features_.get(); }

  std::vector<Hyperparameter> hyperparameters() const override;
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override;
  Eigen::VectorXd diagonal_noise_derivative() const override;
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override;
  Eigen::VectorXd cross_derivative_contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                                const Eigen::MatrixXd& W) const override;
  Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                   const Eigen::VectorXd& w) const override;

 private:
  Eigen::MatrixXd select(const Eigen::MatrixXd& X) const;
  void build_feature_map();

  std::shared_ptr<Kernel> part_;
  std::vector<Eigen::Index> columns_;
  Eigen::Index input_dimension_ = 0;  // set by prepare()
  std::unique_ptr<CosineFeatures> features_;
};

}  // namespace quench
