// Expectation propagation for a latent GP with any scalar likelihood (parallel updates of all
// sites per sweep, Anderson-accelerated). With the probit its fixed point is the TAP fixed point
// of 001 (Sec. 3 / 003): the cross-check of `tap`. Sites of either sign (a Student-t outlier's
// tau_i < 0) are sites like any other: the sweeps keep the cavities (m, log lambda) as their
// state, so every cavity is proper, and a sweep whose posterior cannot be formed is undone and
// the next step damped (the remedy of Jylanki, Vanhatalo & Vehtari 2011).
#pragma once

#include <cmath>
#include <functional>
#include <limits>

#include "classifier_model.h"
#include "quench/parameters.h"
#include "quench/site_prior.h"
#include "quench/sweep_progress.h"
#include "resampled_classifier.h"

namespace quench::latent_gp {

struct EpOptions {
  double damping = 1.0;  ///< fraction of a sweep's change of the cavities taken (Anderson beta)
  int acceleration_depth = 5;  ///< sweeps mixed by Anderson acceleration (0: plain damped EP)
  double tol = 1e-12;          ///< max change of posterior means and variances per sweep
  /// With the likelihood's own sites: sweeps until the posterior changes by < 0.1 per sweep,
  /// then the joint Newton steps of the TAP solver on the same fixed-point equations (eqs 19,
  /// 23, 26, 28-30; mean_field.h), converging quadratically where sweeps converge linearly.
  /// false: sweeps to `tol`. Counted sites (bootstrap retrains) always sweep; so does the
  /// inducing-point prior (the Newton steps need C formed).
  bool newton = true;
  int max_iterations = 2000;
  /// The run's progress bar (RunContext::progress; may be empty): the sweeps' change against
  /// `tol` (ConvergenceProgress).
  std::function<void(double)> progress;
};

/// The tilted moments of site i at cavity mean m and variance v.
using SiteTiltedMoments = std::function<TiltedMoments(Eigen::Index i, double m, double v)>;
/// Site i the likelihood p(y_i | f_i).
SiteTiltedMoments likelihood_tilted_moments(const Likelihood& lik, const Observations& y);
/// Site i the likelihood p(y_i | f_i) to the power counts_i >= 1, a point drawn counts_i times
/// entering as one site with k-fold tilted moments (000 eq 43: Likelihood::tilted_moments_power);
/// refers to its arguments.
SiteTiltedMoments counted_tilted_moments(const Likelihood& lik, const Observations& y,
                                         const Eigen::VectorXi& counts);

/// Parallel EP on any prior (quench/site_prior.h) from zero sites, or from the cavities of
/// `warm_start` (a fit on the same targets, e.g. at nearby hyperparameters), with the sites'
/// tilted moments given by `tilted`; slope and tau of the fit are those of these sites
/// (site_moments). One set of marginals per sweep (on the dense prior one factorization of
/// I + S C S, single precision while far from the fixed point).
MeanFieldFit solve_ep(const SitePrior& prior, const SiteTiltedMoments& tilted,
                      const EpOptions& options, const MeanFieldFit* warm_start = nullptr);
/// solve_ep, and while it does not converge (or its sweeps diverge) again from zero sites with
/// half the damping (down to 1/8) while sweeps remain of options.max_iterations, which bounds
/// all attempts together; status.iterations counts the sweeps of every attempt.
MeanFieldFit solve_ep_with_smaller_steps(const SitePrior& prior, const SiteTiltedMoments& tilted,
                                         const EpOptions& options,
                                         const MeanFieldFit* warm_start = nullptr);
/// The same on the dense prior C with site i the likelihood p(y_i | f_i), finished by the TAP
/// solver's Newton steps (EpOptions::newton); where those fail, solve_ep_with_smaller_steps.
MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Observations& y, const Likelihood& lik,
                      const EpOptions& options, const MeanFieldFit* warm_start = nullptr);
/// The same with the counted sites of counted_tilted_moments (a bootstrap retrain), sweeps only
/// (solve_ep_with_smaller_steps).
MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Observations& y,
                      const Eigen::VectorXi& counts, const Likelihood& lik,
                      const EpOptions& options);

/// Bootstrap retrains by EP with the counted sites above on the dense prior
/// (make_resampled_classifier); a fit that does not reach the tolerance throws NumericalError
/// naming `engine`.
CountedFit counted_ep_fit(std::shared_ptr<const Likelihood> lik, const EpOptions& options,
                          const char* engine);

class EpEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit EpEngine(const Params& params);
  /// The fit on the problem's prior (make_ep_prior: dense, or inducing points), its outputs
  /// (fit_outputs.h), log Z_EP and its model.
  Results run(const Problem& problem) const override;
  /// The exact prior's N x N matrices (K and the posterior's matrices) in memory.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  /// "evidence" and "loo" (hyperparameter_objectives.h), warm-started from the last fit; "loo"
  /// on the dense prior only.
  std::vector<std::string> hyperparameter_objectives(const EngineFactory& engines,
                                                     PriorKind prior) const override;
  std::unique_ptr<HyperparameterObjective> hyperparameter_objective(
      const Problem& problem, const std::string& name) const override;
  /// Retrains on bootstrap counts with this engine's options (EpPrior::resampled).
  std::unique_ptr<ResampledModel> prepare_resampling(const Problem& problem) const override;
  /// Retrains on counts, on either prior, with the latent variance.
  Retraining retraining() const override { return {true, false, true, true}; }

  /// The "gp_classifier" model of a run with Problem::make_model (classifier_model.h), of
  /// either prior.
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  EpOptions options_;
};

}  // namespace quench::latent_gp
