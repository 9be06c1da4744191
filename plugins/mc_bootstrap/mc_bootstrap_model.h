// The Monte-Carlo bootstrap at new inputs as a fitted model: the T retrains kept as kernel
// expansions over the training inputs, f_t(x) = sum_i A_it k(x_i, x) (A_it = 0 where point i
// was not drawn; ResampledModel::kernel_expansion), and their sample mean and variance at x —
// 000 eq 20 by simulation, the Monte-Carlo counterpart of the ADATAP model's eq 57.
//
// Entries (N training inputs, T samples): posterior/coefficients (matrix N x T, column t the
// a of retrain t), posterior/expected_sample_size (real: S of the run). Retrains on the
// inducing-point prior expand over the M inducing inputs instead
// (ResampledModel::expansion_inputs): posterior/expansion_inputs (M x d) and coefficients M x T.
// Columns: bootstrap_mean (target units), bootstrap_variance (target variance units; the
// unbiased sample variance over the T retrains, 0 for T = 1).
#pragma once

#include <memory>

#include "quench/inference_engine.h"

namespace quench::mc_bootstrap {

class McBootstrapModel final : public Model {
 public:
  /// `X_expansion`: the training inputs, or (own_inputs) the inputs the model keeps itself.
  McBootstrapModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_expansion,
                   Eigen::MatrixXd coefficients, double expected_sample_size,
                   bool own_inputs = false);
  /// The model written by write(), with the kernel and training inputs of `parts`;
  /// ModelFileError naming the entry when one is missing or has the wrong shape.
  static std::unique_ptr<McBootstrapModel> read(ModelArchive& archive, const ModelParts& parts);

  /// The T retrains at a block of new inputs at a time (one GEMM K(x, X) A per block), then
  /// their mean and variance per input.
  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return X_expansion_.cols(); }
  std::string kind() const override { return "mc_bootstrap"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  Eigen::MatrixXd X_expansion_, coefficients_;
  double expected_sample_size_;
  bool own_inputs_;
};

}  // namespace quench::mc_bootstrap
