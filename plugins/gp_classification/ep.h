// Expectation propagation for the same probit GP classifier (parallel updates of all sites per
// sweep, Anderson-accelerated).
// Its fixed point is the TAP fixed point of 001 (Sec. 3 / 003): the cross-check of `tap`.
#pragma once

#include <cmath>
#include <functional>
#include <limits>

#include "classifier_model.h"
#include "quench/parameters.h"
#include "resampled_classifier.h"

namespace quench::gp_classification {

// The rules parallel EP sweeps share (ep.cpp, multiclass_ep.cpp).
/// Sweeps are factorized in single precision (~2x cheaper, marginals to ~1e-7 cond(B) relative)
/// while the change per sweep exceeds this; the fixed point is then iterated in double.
inline constexpr double kSingleResidual = 1e-4;
/// Sweeps without a new smallest change after which an iteration is taken to have stalled (a
/// stall within 100 tol counts as converged: the rounding floor).
inline constexpr int kStalledSweeps = 5;
/// Sweeps without a new smallest change (or failed steps in a row) after which it gives up.
inline constexpr int kGiveUpSweeps = 25;

/// Where parallel EP's sweeps stand: the smallest change per sweep so far, the sweeps since it,
/// and their precision (single while far from the fixed point).
class SweepProgress {
 public:
  explicit SweepProgress(Precision first) : precision_(first) {}
  Precision precision() const { return precision_; }
  /// A factorization failed in single precision: the sweep is retried in double.
  void use_double() { precision_ = Precision::full; }
  /// Records a sound sweep's change, made in precision(). True when the sweeps turn to double
  /// precision from here on (the caller starts a new mixing history): close to the fixed point
  /// (change < kSingleResidual), or no new smallest change for 3 sweeps (single precision's
  /// rounding floor); the smallest change is then forgotten.
  bool record(double change) {
    last_in_double_ = precision_ == Precision::full;
    if (change < best_) {
      best_ = change;
      since_best_ = 0;
    } else if (std::isfinite(change)) {
      ++since_best_;
    }
    if (last_in_double_ || !(change < kSingleResidual || since_best_ >= 3)) return false;
    precision_ = Precision::full;
    best_ = std::numeric_limits<double>::infinity();
    since_best_ = 0;
    return true;
  }
  /// Whether the sweep just recorded ends the iteration: its change below tol, or at the
  /// rounding floor (no new smallest change for kStalledSweeps sweeps, within 100 tol). A
  /// single-precision sweep only when tol is above single precision's floor.
  bool converged(double change, double tol) const {
    return (last_in_double_ || tol >= kSingleResidual) &&
           (change < tol || (since_best_ >= kStalledSweeps && best_ < 100 * tol));
  }
  /// No new smallest change for kGiveUpSweeps double-precision sweeps.
  bool stuck() const { return last_in_double_ && since_best_ >= kGiveUpSweeps; }
  double best() const { return best_; }

 private:
  Precision precision_;
  bool last_in_double_ = false;
  double best_ = std::numeric_limits<double>::infinity();
  int since_best_ = 0;
};

struct EpOptions {
  double damping = 1.0;  ///< fraction of a sweep's change of the cavities taken (Anderson beta)
  int acceleration_depth = 5;  ///< sweeps mixed by Anderson acceleration (0: plain damped EP)
  double tol = 1e-12;          ///< max change of posterior means and variances per sweep
  /// With the likelihood's own sites: sweeps until the posterior changes by < 0.1 per sweep,
  /// then the joint Newton steps of the TAP solver on the same fixed-point equations (eqs 19,
  /// 23, 26, 28-30; mean_field.h), converging quadratically where sweeps converge linearly.
  /// false: sweeps to `tol`. Counted sites (bootstrap retrains) always sweep.
  bool newton = true;
  int max_iterations = 2000;
  /// The run's progress bar (RunContext::progress; may be empty): the sweeps' change against
  /// `tol` (ConvergenceProgress).
  std::function<void(double)> progress;
};

/// The tilted moments of site i at cavity mean m and variance v.
using SiteTiltedMoments = std::function<TiltedMoments(Eigen::Index i, double m, double v)>;
/// Site i the likelihood p(t_i | f_i) to the power counts_i >= 1, a point drawn counts_i times
/// entering as one site with k-fold tilted moments (000 eq 43: Likelihood::tilted_moments_power);
/// refers to its arguments.
SiteTiltedMoments counted_tilted_moments(const Likelihood& lik, const Eigen::VectorXd& t,
                                         const Eigen::VectorXi& counts);

/// What parallel EP asks of its prior covariance C: the prior variances C_ii (the first
/// cavities), C v (the fit's mean field, eq 19), and the posterior marginals at sites (tau, nu)
/// as b_i = 1 - tau_i Sigma_ii, the cavity variances lambda_i (eq 28) and mean = Sigma nu
/// (PosteriorCovariance without sigma), Sigma = (C^{-1} + T)^{-1}; `marginals` throws
/// NumericalError when the site system cannot be factorized. Its `precision` argument starts
/// at first_precision and turns full near the fixed point.
struct EpPrior {
  Eigen::VectorXd variance;
  std::function<Eigen::VectorXd(const Eigen::VectorXd& v)> times;
  std::function<PosteriorCovariance(const Eigen::VectorXd& tau, const Eigen::VectorXd& nu,
                                    Precision precision)>
      marginals;
  Precision first_precision = Precision::full;
};

/// Parallel EP on any prior (dense below, inducing-point in sparse_ep.h), from zero sites or
/// from the cavities of `warm_start`.
MeanFieldFit solve_ep(const EpPrior& prior, const Eigen::VectorXd& t,
                      const SiteTiltedMoments& tilted, const EpOptions& options,
                      const MeanFieldFit* warm_start = nullptr);

/// Parallel EP from zero sites, or from the cavities of `warm_start` (a fit on the same labels,
/// e.g. at nearby hyperparameters), with the sites' tilted moments given by `tilted`; alpha and
/// tau of the fit are those of these sites (site_moments). One factorization of I + S C S per
/// sweep (single precision while far from the fixed point), O(N^2) besides.
MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                      const SiteTiltedMoments& tilted, const EpOptions& options,
                      const MeanFieldFit* warm_start = nullptr);
/// The same with site i the likelihood p(t_i | f_i).
MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Eigen::VectorXd& t, const Likelihood& lik,
                      const EpOptions& options, const MeanFieldFit* warm_start = nullptr);
/// The same with the counted sites of counted_tilted_moments (a bootstrap retrain).
MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                      const Eigen::VectorXi& counts, const Likelihood& lik,
                      const EpOptions& options);

/// Bootstrap retrains by EP with the counted sites above (make_resampled_classifier); a fit
/// that does not reach the tolerance throws NumericalError naming `engine`.
CountedFit counted_ep_fit(std::shared_ptr<const Likelihood> lik, const EpOptions& options,
                          const char* engine);

class EpEngine final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit EpEngine(const Params& params);
  Results run(const Problem& problem) const override;
  /// "evidence" and "loo" (hyperparameter_objectives.h), warm-started from the last fit.
  std::vector<std::string> hyperparameter_objectives() const override;
  std::unique_ptr<HyperparameterObjective> hyperparameter_objective(
      const Problem& problem, const std::string& name) const override;
  /// Retrains on bootstrap counts with this engine's options (resampled_classifier.h; on the
  /// inducing-point prior make_resampled_sparse_ep of sparse_ep.h).
  std::unique_ptr<ResampledModel> prepare_resampling(const Problem& problem) const override;

  /// The "gp_classifier" model of a run with Problem::make_model (classifier_model.h).
  /// Sparse EP's model (sparse_ep.h) when the archive holds one.
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  EpOptions options_;
};

}  // namespace quench::gp_classification
