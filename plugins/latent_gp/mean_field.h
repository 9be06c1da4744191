// TAP (001 Secs. 3-4) and naive mean field (001 Sec. 6) latent GPs for any scalar likelihood,
// solved by the paper's iteration: damped updates of the slopes u (001's t alpha, eq 23) with
// adaptive step eta, the cavity variances lambda (eq 28) refreshed every `lambda_every` steps
// (never for naive mean field, eq 35), or by Newton steps on the same fixed point.
#pragma once

#include "classifier_model.h"
#include "quench/parameters.h"

namespace quench::latent_gp {

/// `paper`: the damped slope iteration of Sec. 4 with lambda refreshed every `lambda_every`
/// steps. `newton`: the same fixed point by a double loop: at fixed lambda the slope equations
/// (eqs 19, 23, 26) are solved by damped Newton steps, each one Cholesky of I + S C S
/// (SiteSystem::solve_newton); then lambda is refreshed (eq 28), until lambda is stationary.
enum class MeanFieldSolver { paper, newton };

struct MeanFieldOptions {
  MeanFieldSolver solver = MeanFieldSolver::newton;
  bool refresh_lambda = true;  ///< false: naive mean field, lambda_i = C_ii (eq 35)
  int lambda_every = 20;       ///< recompute Omega, then lambda, every this many steps (Sec. 4)
  double eta = 0.05;           ///< initial step (Sec. 4); x1.1 on progress, /2 otherwise
  double eta_max = 1.0;        ///< cap on eta (1 = the undamped fixed-point map)
  /// Stop when max_i |delta u_i|^2 < ftol (the paper's value is lost in the text) and,
  /// for TAP, a lambda refresh at that point changes no lambda_i by more than lambda_tol
  /// relative. 1e-18: u to ~1e-9, far below what changes a prediction.
  double ftol = 1e-18;
  double lambda_tol = 1e-10;
  int max_iterations = 200000;
};

/// The fixed point of eqs 19, 23, 26, 28-30 (C includes the diagonal noise), from u = 0,
/// lambda_i = C_ii (Sec. 4), or from u and lambda of `warm_start` (a fit on the same targets,
/// e.g. at nearby hyperparameters; naive mean field keeps lambda_i = C_ii).
MeanFieldFit solve_mean_field(const Eigen::MatrixXd& C, const Observations& y,
                              const Likelihood& lik, const MeanFieldOptions& options,
                              const MeanFieldFit* warm_start = nullptr);

class TapEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit TapEngine(const Params& params);
  Results run(const Problem& problem) const override;
  /// The exact prior's N x N matrices (K and the posterior's matrices) in memory.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  /// "evidence" and "loo" (hyperparameter_objectives.h), warm-started from the last fit.
  std::vector<std::string> hyperparameter_objectives(const EngineFactory& engines,
                                                     PriorKind prior) const override;
  std::unique_ptr<HyperparameterObjective> hyperparameter_objective(
      const Problem& problem, const std::string& name) const override;
  /// Retrains on bootstrap counts by EP with its default options (counted_ep_fit): EP's fixed
  /// point is TAP's, and the TAP iteration's site moments and their derivatives come from the
  /// likelihood of one point, with no place for a per-point count.
  std::unique_ptr<ResampledModel> prepare_resampling(const Problem& problem) const override;
  /// Retrains on counts (by EP sweeps) with the latent variance.
  Retraining retraining() const override { return {true, false, false, true}; }

  /// The "gp_classifier" model of a run with Problem::make_model (classifier_model.h).
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override {
    return ClassifierModel::read(archive, parts);
  }

 private:
  MeanFieldOptions options_;
  bool evidence_ = true;
};

/// Offers no hyperparameter objective. 001 Sec. 6 derives naive mean field from a Callen
/// identity (eqs 34-35), not from a free energy. The function whose stationary point it is,
/// sum_i log Z_i(m_i, C_ii) - 1/2 u^T (C - diag C) u (a Legendre construction in u the slopes),
/// is no evidence approximation: for a Gaussian likelihood it equals the exact log evidence
/// with log det(C + sigma^2 I) replaced by sum_i log(C_ii + sigma^2) (Hadamard), losing the
/// Occam factor of the correlations that kernel learning relies on.
class NaiveMeanFieldEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit NaiveMeanFieldEngine(const Params& params);
  Results run(const Problem& problem) const override;
  /// The exact prior's N x N matrices (K and the posterior's matrices) in memory.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  /// The "gp_classifier" model of a run with Problem::make_model (classifier_model.h).
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override {
    return ClassifierModel::read(archive, parts);
  }

 private:
  MeanFieldOptions options_;
};

}  // namespace quench::latent_gp
