// Automatic choice of the width sigma^2 of the Gaussian covariance (001 App. B,
// w_l = 1/(sigma^2 d)) by maximizing the TAP/EP approximate log evidence (the TAP free energy,
// 003 eqs 11-13; the automatic model selection proposed in 001 Sec. 9) with the pipeline's
// Optimizer (e.g. `lbfgs`, backed by Ceres) over x = log sigma^2.
#pragma once

#include "mean_field.h"
#include "quench/parameters.h"

namespace quench::gp_classification {

/// v0 exp(-1/2 sum_l w (x_l - x'_l)^2), w = 1/(sigma^2 d), plus noise v2 on the training
/// diagonal: the Gaussian covariance of 001 App. B with a common w.
class GaussianWidthKernel final : public Kernel {
 public:
  GaussianWidthKernel(double width, double v0, double noise)
      : width_(width), v0_(v0), noise_(noise) {}
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override;
  double diagonal_noise() const override { return noise_; }

 private:
  double width_, v0_, noise_;
};

class EvidenceWidthEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit EvidenceWidthEngine(const Params& params);
  /// Minimizes -log Z(sigma^2) (central finite-difference gradient in log sigma^2, step
  /// `fd_step`; each evaluation is a converged TAP fit), then runs `tap` at the minimizer:
  /// the tap outputs plus `width` (sigma^2), `log_evidence`, `optimizer_iterations`.
  Results run(const Problem& problem) const override;

 private:
  double start_width_, v0_, noise_, fd_step_;
};

}  // namespace quench::gp_classification
