// The classifier tests' kernel: amplitude exp(-|x - x'|^2 / (2 length_scale^2)) plus "noise" on
// the training diagonal, with learnable hyperparameters and hand-written derivatives (an
// independent reference for the objectives' gradients).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/errors.h"
#include "quench/kernel.h"

namespace quench::testing {

class TestKernel final : public Kernel {
 public:
  TestKernel(double amplitude, double length_scale, double noise)
      : theta_{amplitude, length_scale, noise} {}
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    return theta_[0] * (-0.5 * distances(A, B) / (theta_[1] * theta_[1])).array().exp().matrix();
  }
  double diagonal_noise() const override { return theta_[2]; }
  std::vector<Hyperparameter> hyperparameters() const override {
    std::vector<Hyperparameter> h(3);
    const char* names[] = {"amplitude", "length_scale", "noise"};
    for (int j = 0; j < 3; ++j) {
      h[j].name = names[j];
      h[j].value = Eigen::VectorXd::Constant(1, theta_[j]);
      h[j].lower = 1e-6;
      h[j].upper = 1e6;
    }
    return h;
  }
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override {
    const auto blocks = hyperparameters();
    const Eigen::Index j = flat_offset(blocks, name);
    if (j < 0) throw ConfigError({}, "no " + name);
    theta_[j] = value(0);
  }
  Eigen::MatrixXd cross_derivative(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                   Eigen::Index j) const override {
    const Eigen::MatrixXd K = cross(A, B);
    if (j == 0) return K / theta_[0];
    if (j == 1) return K.cwiseProduct(distances(A, B)) / std::pow(theta_[1], 3);
    return Eigen::MatrixXd::Zero(A.rows(), B.rows());
  }

 private:
  static Eigen::MatrixXd distances(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
    Eigen::MatrixXd D(A.rows(), B.rows());
    for (Eigen::Index i = 0; i < A.rows(); ++i)
      for (Eigen::Index k = 0; k < B.rows(); ++k) D(i, k) = (A.row(i) - B.row(k)).squaredNorm();
    return D;
  }
  double theta_[3];
};

}  // namespace quench::testing
