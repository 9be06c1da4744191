// Minimal components for plugin tests that must not depend on other plugins' code: a unit
// squared-exponential kernel and a Gaussian likelihood that only reports its noise variance.
#pragma once

#include <cmath>
#include <optional>

#include "quench/kernel.h"
#include "quench/likelihood.h"

namespace quench::testing {

/// exp(-||x - x'||^2 / 2), evaluated entry by entry (an independent reference for kernels).
class UnitSquaredExponential final : public Kernel {
 public:
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    Eigen::MatrixXd K(A.rows(), B.rows());
    for (Eigen::Index i = 0; i < A.rows(); ++i)
      for (Eigen::Index j = 0; j < B.rows(); ++j)
        K(i, j) = std::exp(-0.5 * (A.row(i) - B.row(j)).squaredNorm());
    return K;
  }
};

/// A Gaussian likelihood for closed-form engines, which read only the noise variance.
class NoiseOnlyGaussian final : public Likelihood {
 public:
  explicit NoiseOnlyGaussian(double noise) : noise_(noise) {}
  double log_likelihood(double y, double f) const override {
    return -0.5 * (std::log(2 * M_PI * noise_) + (y - f) * (y - f) / noise_);
  }
  double d_log_likelihood(double y, double f) const override { return (y - f) / noise_; }
  double d2_log_likelihood(double, double) const override { return -1.0 / noise_; }
  std::optional<double> gaussian_noise_variance() const override { return noise_; }

 private:
  double noise_;
};

}  // namespace quench::testing
