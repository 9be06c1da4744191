// Hyperparameter objectives of the EP/TAP classifiers (001, 003), both proposed for model
// selection in 001 Sec. 9 and 003: the approximate log evidence (the TAP free energy, 003 eqs
// 11-13) and the built-in leave-one-out log predictive probability, with exact gradients at the
// fixed point. Each evaluation solves the fixed point warm-started from the previous one (cold
// again when the warm solve fails); a fixed point that is not reached is a status, not a value.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ep_prior.h"
#include "site_algebra.h"

namespace quench::latent_gp {

/// The fixed point of an engine on a prior, from `warm_start` when not null.
using FixedPointSolver =
    std::function<MeanFieldFit(const EpPrior& prior, const Likelihood& lik, const Observations& y,
                               const MeanFieldFit* warm_start)>;

/// The fixed point warm-started from the last successful one; cold when there is none or the
/// warm solve fails. A failed solve leaves the previous fixed point in place. An objective that
/// rates its fits (rate()) warm-starts from the best-rated one instead: a line-search step that
/// overshoots then does not become the next evaluation's start.
class WarmStartedFixedPoint {
 public:
  /// solve_from(warm start or nullptr).
  MeanFieldFit solve(const std::function<MeanFieldFit(const MeanFieldFit* warm_start)>& solve_from);
  /// The value (larger is better) of the last successful solve's fit: from now on the warm start
  /// is the fit of the largest value rated.
  void rate(double value);
  /// The warm start the next solve takes.
  const std::optional<MeanFieldFit>& last() const { return previous_; }

 private:
  std::optional<MeanFieldFit> previous_, latest_;
  bool rated_ = false;
  double best_ = 0;
};

/// sum_i d log Z_i / dtheta_lik at the cavities of the fit: the likelihood part of the EP
/// evidence gradient (empty without likelihood hyperparameters).
Eigen::VectorXd likelihood_gradient(const Likelihood& lik, const Observations& y,
                                    const MeanFieldFit& fit);

/// "evidence": value log Z_EP (EpPrior::evidence), quantity "log_evidence", with
///   d/dtheta_kernel = 1/2 tr((u u^T - (Omega + C)^{-1}) dC/dtheta) on the dense prior (the
///     EP evidence gradient of GPML's infEP), the sites' Gaussian model's on the inducing prior,
///   d/dtheta_lik    = sum_i d log Z_i / dtheta (y_i, cavity mean_i, cavity variance_i),
/// exact at the fixed point because log Z_EP is stationary in the site parameters there. The
/// prior is the problem's (make_ep_prior: dense, or the inducing inputs); a failed or undefined
/// evidence is a failed status, not a value. On the inducing prior each evaluation starts from
/// the fit of the best evidence so far (EpPrior::warm_start_from_best).
class EvidenceObjective final : public HyperparameterObjective {
 public:
  EvidenceObjective(Eigen::MatrixXd X, Observations y, std::optional<InducingInputs> inducing,
                    FixedPointSolver solve);
  std::string quantity() const override { return "log_evidence"; }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override;
  /// The fixed point of the last successful evaluation (the next warm start).
  const std::optional<MeanFieldFit>& last_fit() const { return fixed_point_.last(); }

 private:
  Eigen::MatrixXd X_;
  Observations y_;
  std::optional<InducingInputs> inducing_;
  FixedPointSolver solve_;
  WarmStartedFixedPoint fixed_point_;
};

/// "loo" (on the dense prior): value (1/N) sum_i log Z_i(y_i | cavity mean_i, cavity variance_i),
/// the smooth
/// built-in leave-one-out log predictive probability of 001 (eqs 26, 28, 32 with the
/// predictive probability in place of the error count), quantity "loo_log_predictive". The
/// cavities move with theta through the fixed point x = (tau, nu) = G(c(x, C), theta_lik),
/// c = (m, lambda) the cavities; the gradient is exact by the implicit function theorem: one
/// adjoint solve (I - G_c c_x)^T y = c_x^T dL/dc (dense LU of order 2N), then
///   dL/dtheta = dL/dtheta|_c + y^T dG/dtheta_lik + (dL/dc + y^T G_c) dc/dC : dC/dtheta,
/// where dSigma = P dC P^T, dmu = P dC u (P = I - Sigma T, u the slopes) give the kernel part
/// as one contraction W. The site Jacobian G_c needs d^3 and d^4 log Z / dm^3,4 (and
/// dG/dtheta_lik needs d/dm and d^2/dm^2 of d log Z / dtheta): the Likelihood interface gives
/// log Z and two m-derivatives in closed form, so the remaining m-derivatives of those closed
/// forms are taken by 5-point stencils (step 0.005 sqrt(lambda_i) / max(1, |m_i| / sqrt(lambda_i)),
/// error ~1e-8 relative).
/// Works for any sign of tau (label noise, Student-t outliers). Cost beyond the fixed point: Sigma
/// (~1 N^3), the LU of order 2N (~5.3 N^3), the contraction matrix (~2 N^3) flops.
class LooObjective final : public HyperparameterObjective {
 public:
  LooObjective(Eigen::MatrixXd X, Observations y, FixedPointSolver solve);
  std::string quantity() const override { return "loo_log_predictive"; }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override;
  const std::optional<MeanFieldFit>& last_fit() const { return fixed_point_.last(); }

 private:
  ObjectiveValue value_and_gradient(const Kernel& kernel, const Likelihood& likelihood);

  Eigen::MatrixXd X_;
  Observations y_;
  FixedPointSolver solve_;
  WarmStartedFixedPoint fixed_point_;
};

/// The objective `name` of engine `engine` ("evidence" or "loo") on the problem's training
/// data and prior; throws ConfigError for another name, and for "loo" on the inducing-point prior
/// (its implicit gradient is built for the dense C).
std::unique_ptr<HyperparameterObjective> make_fixed_point_objective(const Problem& problem,
                                                                    const std::string& name,
                                                                    const char* engine,
                                                                    FixedPointSolver solve);

}  // namespace quench::latent_gp
