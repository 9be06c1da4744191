// Covariance functions of a Gaussian process.
#pragma once

#include <Eigen/Core>

#include "quench/component.h"

namespace quench {

/// An explicit finite feature map phi(x) with K(x, x') ~= phi(x)^T phi(x') (e.g. random
/// Fourier features), for engines that work linearly in features.
class QUENCH_API FeatureMap {
 public:
  virtual ~FeatureMap();
  virtual Eigen::Index dimension() const = 0;
  /// Rows of X mapped to rows of features (n x dimension()).
  virtual Eigen::MatrixXd features(const Eigen::MatrixXd& X) const = 0;
};

class QUENCH_API Kernel : public Component {
 public:
  ~Kernel() override;

  /// Fixes data-dependent settings (e.g. per-dimension scales from the input variance) from
  /// the training inputs; called once before any evaluation. The default does nothing.
  virtual void prepare(const Eigen::MatrixXd& X_train);

  /// Cross-covariance K(X1, X2) between the rows of X1 and X2, without diagonal noise.
  virtual Eigen::MatrixXd cross(const Eigen::MatrixXd& X1, const Eigen::MatrixXd& X2) const = 0;

  /// diag K(X, X) without diagonal noise. The default evaluates each row with itself.
  virtual Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const;

  /// Variance added to the diagonal of the Gram matrix of training points (v2 of 001 App. B).
  virtual double diagonal_noise() const { return 0.0; }

  /// Gram matrix K(X, X) + diagonal_noise() I.
  Eigen::MatrixXd gram(const Eigen::MatrixXd& X) const;

  /// Explicit feature map, when the kernel has one; nullptr otherwise.
  virtual const FeatureMap* feature_map() const { return nullptr; }
};

}  // namespace quench
