// Random Fourier features as the arrays that define them (Rahimi & Recht 2007; 002 Sec. 5):
//   phi(x) = [s o cos(Omega^T x + b), sqrt(v1) when v1 > 0]   (Omega d x D, b, s in R^D),
// so E[phi(x)^T phi(x')] is a stationary kernel plus the bias v1. A kernel draws Omega and b
// once (the gaussian kernel's feature_map()); a fitted model keeps a copy of the realized
// arrays and evaluates the same map, operation for operation, without the kernel or its seed.
// The features of a sum of kernels are their parts' side by side (concatenate), each with its
// own scale, the biases added.
#pragma once

#include <memory>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/kernel.h"

namespace quench {

class QUENCH_API CosineFeatures final : public FeatureMap {
 public:
  /// frequencies Omega (d x D), phases b (D), scales s (D, or one for all), bias v1 (0: no
  /// constant feature). Throws std::invalid_argument when the sizes differ or s, v1 are not
  /// finite with v1 >= 0.
  CosineFeatures(Eigen::MatrixXd frequencies, Eigen::RowVectorXd phases, Eigen::RowVectorXd scales,
                 double bias);
  CosineFeatures(Eigen::MatrixXd frequencies, Eigen::RowVectorXd phases, double scale, double bias);
  ~CosineFeatures() override;

  /// The features of a sum of kernels: the maps side by side, biases added (null when `maps`
  /// is empty). Throws std::invalid_argument when their input dimensions differ.
  static std::unique_ptr<CosineFeatures> concatenate(
      const std::vector<const CosineFeatures*>& maps);

  Eigen::Index dimension() const override { return frequencies_.cols() + (bias_ > 0 ? 1 : 0); }
  /// Rows of X (n x d) to rows of features (n x dimension()); refuses (require_memory) a
  /// feature matrix beyond the memory budget.
  Eigen::MatrixXd features(const Eigen::MatrixXd& X) const override;

  const Eigen::MatrixXd& frequencies() const { return frequencies_; }
  const Eigen::RowVectorXd& phases() const { return phases_; }
  const Eigen::RowVectorXd& scales() const { return scales_; }
  double bias() const { return bias_; }

 private:
  Eigen::MatrixXd frequencies_;
  Eigen::RowVectorXd phases_, scales_;
  double bias_;
};

}  // namespace quench
