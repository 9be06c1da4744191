// A fully connected network with two hidden ReLU layers in the NTK parametrisation of 002
// eq 2, f_l(x) = W_l phi(f_{l-1}(x)) / sqrt(D_{l-1}) + b_l, with a softmax cross-entropy or a
// square-loss head, per-example (or per-output) weights and an L2 penalty towards a centre
// (002 eq 7; the weighted objective of 004 eq 4). Shared by the vboot and wbb engines. The
// forward and backward passes are matrix products over a whole batch, so BLAS does the work.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "quench/export.h"
#include "quench/optimizer.h"

namespace quench {

enum class MlpHead {
  /// sum_i w_i (-log softmax(f(x_i))_{y_i}) with targets given as class probabilities (rows
  /// of Y summing to one, e.g. one-hot): sum_i w_i sum_c -Y_ic log softmax(f(x_i))_c.
  softmax_cross_entropy,
  /// sum_i sum_c w_ic (Y_ic - f_c(x_i))^2 / 2.
  square,
};

/// Layer sizes D_0 (inputs), D_1, D_2 (hidden widths) and D_3 (outputs). Parameters are one
/// flat vector: W_1 (D_1 x D_0, column-major), b_1, W_2, b_2, W_3, b_3.
class QUENCH_API Mlp {
 public:
  Mlp(Eigen::Index inputs, Eigen::Index width1, Eigen::Index width2, Eigen::Index outputs);

  Eigen::Index inputs() const { return sizes_[0]; }
  Eigen::Index outputs() const { return sizes_[3]; }
  Eigen::Index width(int layer) const { return sizes_[static_cast<std::size_t>(layer)]; }
  Eigen::Index parameter_count() const { return count_; }

  /// Network outputs f(x_i) as rows (n x outputs) for the rows of X.
  Eigen::MatrixXd forward(const Eigen::VectorXd& theta, const Eigen::MatrixXd& X) const;

  /// Loss of the head summed over the rows of X (no penalty) and, when gradient is non-null,
  /// its gradient with respect to theta. `weights` is empty (all ones), n x 1 (per example)
  /// or n x outputs (per output, square head only).
  double loss(const Eigen::VectorXd& theta, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
              const Eigen::MatrixXd& weights, MlpHead head, Eigen::VectorXd* gradient) const;

 private:
  std::vector<Eigen::Index> sizes_;
  Eigen::Index count_;
};

/// Row-wise softmax of F (n x C), computed stably.
QUENCH_API Eigen::MatrixXd softmax_rows(const Eigen::MatrixXd& F);

/// The training objective as a mini-batch objective for stochastic optimizers:
///   L(theta) = sum_i loss_i(theta) + (penalty / 2) ||theta - centre||^2,
/// where a mini-batch B estimates the sum by (N / |B|) sum_{i in B} loss_i (unbiased).
/// With penalty = 1 / alpha^2, a square head and weights 1 / sigma_i^2 this is 002 eq 7 up to
/// a factor 1/2 on the data term folded into the head's definition.
class QUENCH_API MlpObjective final : public StochasticObjective {
 public:
  /// References X, Y and weights; they must outlive the objective.
  MlpObjective(const Mlp& net, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
               const Eigen::MatrixXd& weights, MlpHead head, double penalty,
               Eigen::VectorXd centre);

  Eigen::Index dimension() const override { return net_.parameter_count(); }
  Eigen::Index size() const override { return X_.rows(); }
  bool evaluate(const Eigen::VectorXd& theta, double* value,
                Eigen::VectorXd* gradient) const override;
  bool evaluate_batch(const Eigen::VectorXd& theta, const std::vector<Eigen::Index>& batch,
                      double* value, Eigen::VectorXd* gradient) const override;

 private:
  const Mlp& net_;
  const Eigen::MatrixXd& X_;
  const Eigen::MatrixXd& Y_;
  const Eigen::MatrixXd& W_;
  MlpHead head_;
  double penalty_;
  Eigen::VectorXd centre_;
};

}  // namespace quench
