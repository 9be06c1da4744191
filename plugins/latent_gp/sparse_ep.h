// Expectation propagation for the GP classifiers of 001 on the inducing-point prior, as GPML's
// infEP with apxSparse: the prior is C~ = K~ + v2 I, K~ = Lambda + U U^T
// (quench/low_rank_prior.h: FITC, VFE or SoR) and v2 the kernel's diagonal noise, mirroring
// the dense C = K + v2 I of `ep`. The parallel sweeps of ep.h take every posterior marginal
// from G = (C~^-1 + T)^-1 = diag(e) + W W^T in O(N M^2); the log evidence and its gradient
// at fixed sites are those of the Gaussian model nu/tau ~ N(0, C~ + diag(1/tau))
// (quench/low_rank_evidence.h); predictions come from quench/low_rank_predictor.h. Bootstrap
// refits (mc_bootstrap with inner: ep) run the same sweeps with counted sites on the prior
// restricted to the drawn points.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "classifier_common.h"
#include "ep.h"
#include "hyperparameter_objectives.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/low_rank_predictor.h"
#include "quench/low_rank_prior.h"
#include "quench/site_prior.h"

namespace quench::latent_gp {

/// Parallel EP on the sparse prior with site i the likelihood p(t_i | f_i), from zero sites or
/// from the cavities of `warm_start`. Sweeps to options.tol (the joint Newton steps of the
/// dense solver, EpOptions::newton, need the dense C and are not taken). Site precisions of
/// either sign: a sweep whose G cannot be formed (NumericalError of posterior()) is undone as
/// in the dense solver, and a fit that cannot proceed is a failed status, never NaN. A fit that
/// stalls (not_converged) is run again from zero sites with half the damping, down to 1/8;
/// status.iterations counts the sweeps of every attempt.
MeanFieldFit solve_sparse_ep(const InducingSitePrior& prior, const Eigen::VectorXd& t,
                             const Likelihood& lik, const EpOptions& options,
                             const MeanFieldFit* warm_start = nullptr);
/// The same with the counted sites of counted_tilted_moments (ep.h): point i drawn counts_i >= 1
/// times enters as p(t_i | f_i)^counts_i, as the dense solve_ep with counts; on a restricted()
/// prior, a bootstrap refit.
MeanFieldFit solve_sparse_ep(const InducingSitePrior& prior, const Eigen::VectorXd& t,
                             const Eigen::VectorXi& counts, const Likelihood& lik,
                             const EpOptions& options);

/// log Z_EP on the sparse prior in O(N M^2): log N(mu~ | 0, C~ + diag(1/tau)), mu~ = nu/tau the
/// site means, plus the site terms of the dense log_evidence (site_evidence_terms) and
/// 1/2 log(2 pi / tau_i) each (the dense -1/2 log|B| - 1/2 w^T B^-1 w, B = I + S C S, is that
/// log density + sum_i 1/2 log(2 pi / tau_i)). Sites with |tau_i| < 1e-12 / C~_ii (a site the
/// likelihood barely tilts, whose tau_i is 0 or of either sign by rounding; the dense evidence
/// drops those at 0) enter with tau_i = 1e-12 / C~_ii, which moves log Z by ~1e-12 E[(h_i -
/// mu~_i)^2] / C~_ii each. NaN when some other tau_i < 0 (label noise). `prior` on all the
/// training inputs (all_rows()).
double sparse_log_evidence(const InducingSitePrior& prior, const Likelihood& lik,
                           const Eigen::VectorXd& t, const MeanFieldFit& fit);

/// The fit's predictor: weights U^T (t o alpha) (= U^T (C~ + Omega)^-1 mu~ at the fixed point,
/// eq 19) and L_B of posterior(tau), which is B = I + U^T diag(1/psi) U with psi = Lambda + v2 +
/// 1/tau of low_rank_evidence.h, so that no tau_i need be positive.
LowRankPredictor sparse_predictor(const InducingSitePrior& prior, const Eigen::VectorXd& t,
                                  const MeanFieldFit& fit);

/// `ep`'s bootstrap refits with problem.inducing set (mc_bootstrap's inner engine): a sample's
/// counts k_i = weights_i (drawn_points of resampled_classifier.h: ConfigError unless
/// non-negative integers) are fitted by solve_sparse_ep with counts on the prior restricted to
/// the drawn set D (k_i = 0 drops point i), the prior and the features u(x) of the test inputs
/// formed once, O(|D| M^2) per sweep of a refit. predict() returns the refit's <f> at the
/// training inputs, K~[., D] (t o alpha) without v2 (as the dense retrains' K(x_i, .)), then at
/// the test inputs, u(x)^T w with w = U_D^T (t o alpha) (sparse_predictor); a kernel expansion
/// over the inducing inputs Z (expansion_inputs()), coefficients L^-T w (M). Its
/// test_probability() is the likelihood's predictive integral under N(<f(x)>, lambda(x)),
/// lambda(x) the refit's LowRankPredictor variance plus v2 (as LowRankClassifierModel). A refit
/// that does not reach options.tol throws NumericalError.
std::unique_ptr<ResampledModel> make_resampled_sparse_ep(const Problem& problem,
                                                         const EpOptions& options);

/// `ep` with problem.inducing set: the outputs of the dense run (add_fit, log_evidence,
/// add_model_predictions with a LowRankClassifierModel).
Results run_sparse_ep(const Problem& problem, const EpOptions& options);

/// "evidence" on the sparse prior: value sparse_log_evidence, with the gradient at the fixed
/// sites (exact at the fixed point, where log Z_EP is stationary in the sites): the kernel's
/// entries from low_rank_gaussian_evidence (its "noise" entry v2 as sum_i d/dphi_i, phi_i =
/// 1/tau_i + v2), the likelihood's as the dense objective (likelihood_gradient). Sites
/// warm-started between evaluations from the fit of the largest log Z so far
/// (WarmStartedFixedPoint::rate); flat sites as in
/// sparse_log_evidence. Failed status when some other tau_i < 0.
class SparseEvidenceObjective final : public HyperparameterObjective {
 public:
  SparseEvidenceObjective(Eigen::MatrixXd X, Eigen::VectorXd t, InducingInputs inducing,
                          EpOptions options);
  std::string quantity() const override { return "log_evidence"; }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override;
  const std::optional<MeanFieldFit>& last_fit() const { return fixed_point_.last(); }

 private:
  Eigen::MatrixXd X_;
  Eigen::VectorXd t_;
  InducingInputs inducing_;
  EpOptions options_;
  WarmStartedFixedPoint fixed_point_;
};

/// The objective `name` of `ep` on the sparse prior: "evidence"; ConfigError for "loo" (its
/// implicit gradient is built for the dense C only) and any other name.
std::unique_ptr<HyperparameterObjective> make_sparse_ep_objective(const Problem& problem,
                                                                  const std::string& name,
                                                                  const EpOptions& options);

}  // namespace quench::latent_gp
