// The SVM limit of the mean-field classifier (001 Sec. 7, App. E): likelihood Theta(t h - 1),
// beta -> infinity, i.e. the hard-margin SVM without bias, found with the kernel Adatron.
#pragma once

#include "classifier_model.h"
#include "quench/parameters.h"
#include "resampled_classifier.h"

namespace quench::latent_gp {

struct SvmFit {
  Eigen::VectorXd alpha;       ///< alpha~_i >= 0
  Eigen::VectorXd mean_field;  ///< <h_i> = sum_j C_ij t_j alpha_j
  Eigen::VectorXd loo_mean;    ///< h_i - t_i alpha_i / [C_SV^{-1}]_ii on SVs, h_i otherwise
  double kkt_violation = 0.0;  ///< max violation of eq 37
  double loo_error = 0.0;      ///< eq 38
  int loo_errors = 0;          ///< the count behind loo_error (exact)
  int support_vectors = 0;
  Status status;
};

/// Max violation of eq 37: alpha_i = 0 needs t h >= 1; alpha_i > 0 needs t h = 1.
double kkt_violation(const Eigen::VectorXd& t, const Eigen::VectorXd& alpha,
                     const Eigen::VectorXd& h);

SvmFit solve_svm(const Eigen::MatrixXd& C, const Eigen::VectorXd& t, double tol, int max_sweeps);

class SvmLimitEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit SvmLimitEngine(const Params& params);
  Results run(const Problem& problem) const override;
  /// The exact prior's N x N matrices (K and the posterior's matrices) in memory.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  /// Retrains on bootstrap counts: the Adatron on the drawn points, whose multiplicity does not
  /// matter (Theta(t h - 1)^k = Theta(t h - 1)); a retrain that does not reach the tolerance
  /// throws NumericalError.
  std::unique_ptr<ResampledModel> prepare_resampling(const Problem& problem) const override;
  /// Retrains on counts; the SVM limit has no latent variance.
  Retraining retraining() const override { return {true, false, false, false}; }
  /// The "svm_classifier" model of a run with Problem::make_model (classifier_model.h).
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override {
    return SvmModel::read(archive, parts);
  }

 private:
  double tol_;
  int max_sweeps_;
};

}  // namespace quench::latent_gp
