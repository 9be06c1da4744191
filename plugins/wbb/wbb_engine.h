// The weighted Bayesian bootstrap engine `wbb` (004 eq 4, Algorithm 1): T approximate posterior
// draws as minimizers of randomly weighted objectives, for the weighted LASSO / ridge /
// elastic net (Sec. 3.1-3.2) and weighted trend filtering (Sec. 3.3), through a
// PenalizedSolver optimizer plugin (lambda by K-fold cross-validation when not given), and a
// two-hidden-layer ReLU network with softmax cross-entropy (Sec. 3.4) through a stochastic
// optimizer (adam) on the shared quench::Mlp. With test rows or when the host asks, the draws
// are kept as a fitted model (wbb_model.h) that computes the run's own test-row outputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quench/inference_engine.h"
#include "quench/mlp.h"
#include "quench/parameters.h"

namespace quench::wbb {

class WbbEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit WbbEngine(const Params& params);
  Results run(const Problem& problem) const override;
  /// A resampler; model network: test rows; linear and trend_filter: a PenalizedSolver
  /// optimizer, cv_folds within the training rows, spline positions that predict.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  /// The model of the engine's `model` (wbb_model.h) from the entries its write() made.
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  Results run_linear(const Problem& problem) const;
  Results run_trend(const Problem& problem) const;
  Results run_network(const Problem& problem) const;
  Params params_;
};

/// 1 at the weight-matrix entries of a quench::Mlp parameter vector, 0 at the biases (the
/// support of phi in 004 Sec. 3.4).
Eigen::VectorXd network_weight_mask(const Mlp& net);

/// The WBB network objective sum_i w_i CE_i + (penalty / 2) sum_j m_j theta_j^2 with m the
/// weight mask (weights_only, 004 Sec. 3.4: lambda w_0 phi with penalty = 2 lambda w_0) or all
/// ones. X, Y and weights must outlive it.
class NetworkObjective final : public StochasticObjective {
 public:
  NetworkObjective(const Mlp& net, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y,
                   const Eigen::MatrixXd& weights, double penalty, bool weights_only);
  Eigen::Index dimension() const override { return loss_.dimension(); }
  Eigen::Index size() const override { return loss_.size(); }
  bool evaluate(const Eigen::VectorXd& x, double* value, Eigen::VectorXd* g) const override {
    return add(x, loss_.evaluate(x, value, g), value, g);
  }
  bool evaluate_batch(const Eigen::VectorXd& x, const std::vector<Eigen::Index>& batch,
                      double* value, Eigen::VectorXd* g) const override {
    return add(x, loss_.evaluate_batch(x, batch, value, g), value, g);
  }

 private:
  bool add(const Eigen::VectorXd& x, bool ok, double* value, Eigen::VectorXd* g) const;
  MlpObjective loss_;
  Eigen::VectorXd mask_;
  double penalty_;
};

}  // namespace quench::wbb
