// Per-dimension input weights w_l shared by the kernels of 001 App. B. Given one of
//   weights: [w_1, ..., w_d]       explicit ARD weights,
//   length_scales: [l_1, ..., l_d] per-dimension scales, w_l = 1 / l_l^2,
//   width: s2                      w_l = 1 / (s2 d)            (001 Sec. 8 experiments),
//   l2: l2, scaling: v             w_l = 2 / (v_l l2)          (000 Sec. 5: exp(-sum d^2/(v_l l2)))
// with v_l = 1, the input variance, or its square root; none of them: w_l = 1.
#pragma once

#include <string>

#include <Eigen/Core>

#include "quench/parameters.h"

namespace quench::kernels {

class InputWeights {
 public:
  /// Adds the weight parameters to a schema.
  static void declare(ParamSchema& schema);
  explicit InputWeights(const Params& params);

  /// Fixes the weights for inputs of the training set's dimension (and variance).
  void prepare(const Eigen::MatrixXd& X_train);
  /// The weights; throws ConfigError if prepare() was not called or dimensions differ.
  const Eigen::VectorXd& weights(Eigen::Index dimension) const;

 private:
  Eigen::VectorXd explicit_;
  double width_ = 0.0;
  double l2_ = 0.0;
  std::string scaling_;
  Eigen::VectorXd weights_;
};

/// Rows of X multiplied by sqrt(w) column-wise.
Eigen::MatrixXd scale_inputs(const Eigen::MatrixXd& X, const Eigen::VectorXd& w);

/// Squared Euclidean distances between the rows of A and B (clamped at 0), through one GEMM.
Eigen::MatrixXd squared_distances(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B);

/// Adds the amplitude v0, bias v1 and diagonal noise v2 parameters of 001 App. B.
void declare_amplitude_bias_noise(ParamSchema& schema);

}  // namespace quench::kernels
