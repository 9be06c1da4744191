// Minimal components for plugin tests that must not depend on other plugins' code: a unit
// squared-exponential kernel and a Gaussian likelihood that only reports its noise variance.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

/// v0 exp(-1/2 sum_l (x_l - x'_l)^2 / l_l^2) + v2 [diagonal], with learnable length_scales,
/// amplitude and noise and their derivatives written entry by entry (an independent reference
/// for objectives that use the kernel gradient interface).
class ArdSquaredExponential final : public Kernel {
 public:
  ArdSquaredExponential(Eigen::VectorXd length_scales, double amplitude, double noise)
      : l_(std::move(length_scales)), v0_(amplitude), v2_(noise) {}
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    Eigen::MatrixXd K(A.rows(), B.rows());
    for (Eigen::Index i = 0; i < A.rows(); ++i)
      for (Eigen::Index j = 0; j < B.rows(); ++j)
        K(i, j) = v0_ * std::exp(-0.5 *
                                 (A.row(i) - B.row(j)).cwiseQuotient(l_.transpose()).squaredNorm());
    return K;
  }
  double diagonal_noise() const override { return v2_; }
  std::vector<Hyperparameter> hyperparameters() const override {
    return {{"length_scales", l_, 1e-5, 1e5, true, true},
            {"amplitude", Eigen::VectorXd::Constant(1, v0_), 1e-6, 1e6, true, false},
            {"noise", Eigen::VectorXd::Constant(1, v2_), 1e-10, 1e6, true, false}};
  }
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override {
    if (name == "length_scales")
      l_ = value;
    else if (name == "amplitude")
      v0_ = value(0);
    else if (name == "noise")
      v2_ = value(0);
    else
      Kernel::set_hyperparameter(name, value);
  }
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override {
    const Eigen::Index d = l_.size();
    Eigen::MatrixXd D = Eigen::MatrixXd::Zero(A.rows(), B.rows());
    if (j == d + 1) return D;  // noise: not in cross()
    const Eigen::MatrixXd K = cross(A, B);
    for (Eigen::Index a = 0; a < A.rows(); ++a)
      for (Eigen::Index b = 0; b < B.rows(); ++b) {
        if (j == d) {
          D(a, b) = K(a, b) / v0_;
        } else {
          const double diff = A(a, j) - B(b, j);
          D(a, b) = K(a, b) * diff * diff / (l_(j) * l_(j) * l_(j));
        }
      }
    return D;
  }

 private:
  Eigen::VectorXd l_;
  double v0_, v2_;
};

/// A Gaussian likelihood for closed-form engines, which read only the noise variance.
class NoiseOnlyGaussian final : public Likelihood {
 public:
  explicit NoiseOnlyGaussian(double noise) : noise_(noise) {}
  std::optional<TargetKind> target_kind() const override { return TargetKind::real; }
  double log_likelihood(const Observation& y, double f) const override {
    return -0.5 * (std::log(2 * M_PI * noise_) + (y.y - f) * (y.y - f) / noise_);
  }
  double d_log_likelihood(const Observation& y, double f) const override {
    return (y.y - f) / noise_;
  }
  double d2_log_likelihood(const Observation&, double) const override { return -1.0 / noise_; }
  std::optional<double> gaussian_noise_variance() const override { return noise_; }
  std::vector<Hyperparameter> hyperparameters() const override {
    return {{"noise", Eigen::VectorXd::Constant(1, noise_), 1e-10, 1e6, true, false}};
  }
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override {
    if (name != "noise") Likelihood::set_hyperparameter(name, value);
    noise_ = value(0);
  }

 private:
  double noise_;
};

}  // namespace quench::testing
