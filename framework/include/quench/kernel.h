// Covariance functions of a Gaussian process.
#pragma once

#include <Eigen/Core>

#include <string>
#include <vector>

#include "quench/component.h"
#include "quench/hyperparameter.h"

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

  // --- Learnable hyperparameters (valid after prepare()) ---

  /// The learnable hyperparameters at their current values, in flat-vector order. A block
  /// named "noise" is diagonal_noise() (see diagonal_noise_derivative()). The default: none.
  virtual std::vector<Hyperparameter> hyperparameters() const { return {}; }
  /// Sets the block `name` (natural scale, the size hyperparameters() reports); later
  /// evaluations, the feature map included, use it. Throws ConfigError for an unknown name or
  /// a wrong size. Not thread-safe: call before sharing the kernel.
  virtual void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value);
  /// dK(A, B)/dtheta_j for entry j of the flat vector (0 for "noise": cross() has none).
  /// Throws ConfigError when the kernel has no hyperparameters.
  virtual Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                           Eigen::Index j) const;
  /// g_j = sum_ab W_ab dK(A, B)_ab / dtheta_j for every entry j, e.g. tr(W dK/dtheta_j) for a
  /// symmetric W. The default forms each derivative with cross_derivative(); kernels override
  /// it with an O(|A| |B| d) pass that never stores a derivative matrix.
  virtual Eigen::VectorXd cross_derivative_contractions(const Eigen::MatrixXd& A,
                                                        const Eigen::MatrixXd& B,
                                                        const Eigen::MatrixXd& W) const;

  /// g_j = sum_i w_i d K(x_i, x_i) / dtheta_j for every entry j (the diagonal of K(X, X)
  /// without noise, for inducing-point objectives). The default contracts each row with
  /// itself; stationary kernels override it (their diagonal depends on the variance only).
  virtual Eigen::VectorXd diagonal_derivative_contractions(const Eigen::MatrixXd& X,
                                                           const Eigen::VectorXd& w) const;

  /// d diagonal_noise() / dtheta_j for every entry j of the flat vector. The default: 1 at the
  /// block "noise", 0 elsewhere; a composite kernel gathers its parts' (composite_kernel.h).
  virtual Eigen::VectorXd diagonal_noise_derivative() const;

  /// d gram(X) / dtheta_j: cross_derivative(X, X, j) plus diagonal_noise_derivative()_j I.
  Eigen::MatrixXd gram_derivative(const Eigen::MatrixXd& X, Eigen::Index j) const;
  /// sum_ab W_ab d gram(X)_ab / dtheta_j for every j (plus diagonal_noise_derivative() trace W).
  Eigen::VectorXd gram_derivative_contractions(const Eigen::MatrixXd& X,
                                               const Eigen::MatrixXd& W) const;
};

}  // namespace quench
