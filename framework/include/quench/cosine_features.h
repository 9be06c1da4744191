// Random Fourier features as the arrays that define them (Rahimi & Recht 2007; 002 Sec. 5):
//   phi(x) = [s cos(Omega^T x + b), sqrt(v1) when v1 > 0]   (Omega d x D, b in R^D),
// so E[phi(x)^T phi(x')] is a stationary kernel plus the bias v1. A kernel draws Omega and b
// once (the gaussian kernel's feature_map()); a fitted model keeps a copy of the realized
// arrays and evaluates the same map, operation for operation, without the kernel or its seed.
#pragma once

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/kernel.h"

namespace quench {

class QUENCH_API CosineFeatures final : public FeatureMap {
 public:
  /// frequencies Omega (d x D), phases b (D), scale s, bias v1 (0: no constant feature).
  /// Throws std::invalid_argument when the sizes differ or s, v1 are not finite with v1 >= 0.
  CosineFeatures(Eigen::MatrixXd frequencies, Eigen::RowVectorXd phases, double scale, double bias);
  ~CosineFeatures() override;

  Eigen::Index dimension() const override { return frequencies_.cols() + (bias_ > 0 ? 1 : 0); }
  /// Rows of X (n x d) to rows of features (n x dimension()); refuses (require_memory) a
  /// feature matrix beyond the memory budget.
  Eigen::MatrixXd features(const Eigen::MatrixXd& X) const override;

  const Eigen::MatrixXd& frequencies() const { return frequencies_; }
  const Eigen::RowVectorXd& phases() const { return phases_; }
  double scale() const { return scale_; }
  double bias() const { return bias_; }

 private:
  Eigen::MatrixXd frequencies_;
  Eigen::RowVectorXd phases_;
  double scale_, bias_;
};

}  // namespace quench
