// The inducing-point GP regression posterior as a fitted model: the latent predictive of
// quench/low_rank_predictor.h (phi = sigma^2) and the noise variance. It keeps O(M^2) numbers
// whatever N (the M inducing inputs, two M x M triangles and an M-vector): the training rows
// enter the prediction only through them.
//
// Entries: the predictor's under posterior/ (quench/low_rank_predictor.h) and
// posterior/noise_variance (real). Columns as the exact model's: mean, variance,
// predictive_variance.
#pragma once

#include <memory>

#include "quench/inference_engine.h"
#include "quench/low_rank_predictor.h"

namespace quench::gp_regression {

class SparseGpRegressionModel final : public Model {
 public:
  SparseGpRegressionModel(std::shared_ptr<const Kernel> kernel, LowRankPredictor predictor,
                          double noise_variance);
  /// The model write() made, with the kernel of `parts`; ModelFileError naming the entry when
  /// one is missing or does not fit.
  static std::unique_ptr<SparseGpRegressionModel> read(ModelArchive& archive,
                                                       const ModelParts& parts);

  Predictions predict(const Eigen::MatrixXd& X) const override;
  Eigen::Index input_dimension() const override { return predictor_.inducing_inputs.cols(); }
  std::string kind() const override { return "sparse_gp_regression"; }
  void write(ModelArchive& archive) const override;

 private:
  std::shared_ptr<const Kernel> kernel_;
  LowRankPredictor predictor_;
  double noise_variance_;
};

}  // namespace quench::gp_regression
