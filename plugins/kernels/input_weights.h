// Per-dimension input weights w_l shared by the kernels of 001 App. B. Given one of
//   weights: [w_1, ..., w_d]       explicit ARD weights,
//   length_scales: [l_1, ..., l_d] per-dimension scales, w_l = 1 / l_l^2,
//   width: s2                      w_l = 1 / (s2 d)            (001 Sec. 8 experiments),
//   l2: l2, scaling: v             w_l = 2 / (v_l l2)          (000 Sec. 5: exp(-sum d^2/(v_l l2)))
// with v_l = 1, the input variance, or its square root; none of them: w_l = 1.
// As a learnable hyperparameter the weights are the block "width" when configured with width,
// else "length_scales" l_l = 1/sqrt(w_l) (a zero weight is an infinite length scale).
#pragma once

#include <string>

#include <Eigen/Core>

#include "quench/hyperparameter.h"
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
  /// Input dimension fixed by prepare(); 0 before.
  Eigen::Index dimension() const { return weights_.size(); }

  /// The block "length_scales" (one per dimension) or "width"; throws before prepare().
  Hyperparameter hyperparameter() const;
  /// Replaces the block's value (its name and size as hyperparameter() reports them); kept
  /// by later prepare() calls. Throws ConfigError for a wrong size or a value not > 0.
  void set(const Eigen::VectorXd& value);
  /// Column j of the Jacobian dw / dtheta of the weights by the block's entries.
  Eigen::VectorXd weight_derivative(Eigen::Index j) const;
  /// J^T g: a gradient g by the weights w_l turned into one by the block's entries.
  Eigen::VectorXd chain(const Eigen::VectorXd& g) const;

 private:
  enum class Form { ones, weights, length_scales, width, l2 };
  void require_prepared() const;
  Form form_ = Form::ones;
  Eigen::VectorXd given_;  // the configured (or set) weights or length scales
  double width_ = 0.0;
  double l2_ = 0.0;
  std::string scaling_;
  Eigen::VectorXd weights_;
  Eigen::VectorXd length_scales_;  // the "length_scales" block, 1/sqrt(w_l) unless given
};

/// Rows of X multiplied by sqrt(w) column-wise.
Eigen::MatrixXd scale_inputs(const Eigen::MatrixXd& X, const Eigen::VectorXd& w);

/// Squared Euclidean distances between the rows of A and B through one GEMM; entries within
/// 16 eps (|a|^2 + |b|^2) of 0, the expansion's rounding level, are 0.
Eigen::MatrixXd squared_distances(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B);

/// sum_l c_l (a_l - b_l)^2 between the rows a of A and b of B, for any signs of c, dimension by
/// dimension (exact differences; for single derivative matrices, not the fast path).
Eigen::MatrixXd weighted_squared_differences(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                             const Eigen::VectorXd& c);

/// s_l = sum_ab M_ab a_l b_l = [A^T M B]_ll, through one GEMM M B and column-wise dots.
Eigen::VectorXd product_contractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                     const Eigen::MatrixXd& M);

/// s_l = sum_ab M_ab (a_l - b_l)^2 = sum_a a_l^2 (M 1)_a + sum_b b_l^2 (M^T 1)_b - 2 [A^T M B]_ll
/// in O(|A| |B| d), accumulated over blocks of columns of M (so M need never exist whole); the
/// inputs are centred first (the differences do not change) to keep the cancellation between
/// the three terms small.
class SquaredDifferenceContractions {
 public:
  SquaredDifferenceContractions(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B);
  /// Adds the columns first .. first + M.cols() - 1 of M.
  void add(Eigen::Index first, const Eigen::MatrixXd& M);
  Eigen::VectorXd result() const;

 private:
  Eigen::MatrixXd Ac_, Bc_, MB_;       // centred inputs; M B accumulated
  Eigen::VectorXd row_sums_, b_term_;  // M 1 accumulated; sum_b b_l^2 (M^T 1)_b accumulated
};

/// Adds the amplitude v0, bias v1 and diagonal noise v2 parameters of 001 App. B.
void declare_amplitude_bias_noise(ParamSchema& schema);

}  // namespace quench::kernels
