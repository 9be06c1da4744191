// EP's algebra on one prior of the latent GP: the kernel's C = K + v2 I formed (DenseEpPrior),
// or the inducing-point prior C~ = K~ + v2 I, K~ = Lambda + U U^T (InducingEpPrior; FITC, VFE
// or SoR, as GPML's infEP with apxSparse). The fit, log Z_EP with its kernel gradient, the model
// and the bootstrap refits are each one method, so the ep engine's run, objective and refits are
// written once; make_ep_prior is the one place the prior is chosen (docs/design.md, "One prior
// strategy").
#pragma once

#include <memory>
#include <string>

#include "ep.h"
#include "quench/inducing_points.h"
#include "quench/low_rank_predictor.h"
#include "quench/site_prior.h"

namespace quench::latent_gp {

/// log Z_EP at a fixed point and, when asked, its gradient by the kernel's hyperparameters at
/// fixed sites (exact at the fixed point, where log Z_EP is stationary in the sites). `value`
/// is NaN where it is not defined, `failure` then says why.
struct EpEvidence {
  double value = 0.0;
  Eigen::VectorXd kernel_gradient;
  std::string failure;
};

class EpPrior {
 public:
  virtual ~EpPrior() = default;
  /// The prior as the sweeps see it.
  virtual const SitePrior& sites() const = 0;
  /// The fixed point with site i the likelihood p(y_i | f_i), from zero sites or the cavities of
  /// `warm_start`.
  virtual MeanFieldFit solve(const Likelihood& lik, const Observations& y, const EpOptions& options,
                             const MeanFieldFit* warm_start) const = 0;
  /// log Z_EP (the TAP free energy of 003 eqs 11-13) and, with `gradient`, d/dtheta_kernel.
  virtual EpEvidence evidence(const Kernel& kernel, const Likelihood& lik, const Observations& y,
                              const MeanFieldFit& fit, bool gradient) const = 0;
  /// Whether an objective's next fit starts from the fit of the best evidence so far rather than
  /// the last (WarmStartedFixedPoint::rate): the inducing prior's sweeps, which an overshooting
  /// line-search step would otherwise start far off.
  virtual bool warm_start_from_best() const = 0;
  /// The fit's model (a "gp_classifier", classifier_model.h).
  virtual std::shared_ptr<const Model> model(const Problem& problem,
                                             const MeanFieldFit& fit) const = 0;
  /// Retrains on bootstrap counts with `options` (mc_bootstrap's inner engine), each on the prior
  /// restricted to the drawn points.
  virtual std::unique_ptr<ResampledModel> resampled(const Problem& problem,
                                                    const EpOptions& options) const = 0;
  /// The method, for the results' info.
  virtual std::string description() const = 0;
};

/// The prior of `kernel` on the rows X: on the inducing inputs when `inducing` is not null,
/// else dense.
std::unique_ptr<EpPrior> make_ep_prior(const Kernel& kernel, const Eigen::MatrixXd& X,
                                       const InducingInputs* inducing);

/// A fit's predictor on the inducing-point prior: weights U^T u (= U^T (C~ + Omega)^-1 mu~ at the
/// fixed point, eq 19) and L_B of the sites' posterior, which is B = I + U^T diag(1/psi) U with
/// psi = Lambda + v2 + 1/tau of low_rank_evidence.h, so that no tau_i need be positive.
LowRankPredictor sparse_predictor(const InducingSitePrior& prior, const MeanFieldFit& fit);

}  // namespace quench::latent_gp
