// Monte-Carlo resampling averages: retrains an inner engine on T resampled data sets drawn by
// the pipeline's Resampler and averages (000 eqs 20-21 by simulation). Outputs use the names
// shared with the analytical engines (docs/results.md): regression losses of the prediction,
// or for class labels the 0/1 loss of its sign (the classification guide's eqs 3-4, 22).
#pragma once

#include <string>

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::mc_bootstrap {

class McBootstrap final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit McBootstrap(const Params& params);
  Results run(const Problem& problem) const override;
  /// The inner engine retrainable (and its own checks), the loss fitting the target, the
  /// samples' outputs in memory.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  std::int64_t samples_;
  std::string inner_, loss_;
  double epsilon_, beta_;
  bool keep_samples_;
};

/// Efron's out-of-bag estimate (000 eq 21) from per-sample predictions F (N x T) and
/// out-of-bag indicators O (N x T, 1 where s_i = 0): (1/N') sum_i sum_t O_it g(F_it, y_i) /
/// sum_t O_it over the N' points that were out of bag at least once. The standard error comes
/// from the delta method for the ratio of means (first order in 1/T).
struct OutOfBagError {
  double value = 0.0;
  double standard_error = 0.0;
  Eigen::Index points = 0;    ///< N'
  Eigen::VectorXd per_point;  ///< sum_t O_it g(F_it, y_i) / sum_t O_it; NaN if never out of bag
};
template <class Loss>
OutOfBagError out_of_bag_error(const Eigen::MatrixXd& F, const Eigen::MatrixXd& O,
                               const Eigen::VectorXd& y, Loss loss);

}  // namespace quench::mc_bootstrap

#include "out_of_bag_error.inl"
