#include "hyperparameter_objectives.h"

#include <cmath>
#include <limits>

#include "quench/errors.h"

namespace quench::gp_classification {

namespace {

ObjectiveValue failure(Status status) {
  ObjectiveValue v;
  v.value = std::numeric_limits<double>::quiet_NaN();
  v.status = std::move(status);
  if (v.status.code == RunStatus::ok) v.status.code = RunStatus::failed;
  return v;
}

// sum_i d log Z_i / dtheta_lik at the cavities of the fit (empty without hyperparameters).
Eigen::VectorXd likelihood_gradient(const Likelihood& lik, const Eigen::VectorXd& t,
                                    const MeanFieldFit& fit) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(flat_size(lik.hyperparameters()));
  if (g.size() == 0) return g;
  for (Eigen::Index i = 0; i < t.size(); ++i)
    g += lik.d_log_tilted_normalizer(t(i), fit.cavity_mean(i), fit.cavity_variance(i));
  return g;
}

}  // namespace

MeanFieldFit WarmStartedFixedPoint::solve(const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                                          const Likelihood& lik) {
  MeanFieldFit fit;
  if (previous_) fit = solve_(C, t, lik, &*previous_);
  if (!previous_ || fit.status.code != RunStatus::ok) fit = solve_(C, t, lik, nullptr);
  if (fit.status.code == RunStatus::ok) previous_ = fit;
  return fit;
}

EvidenceObjective::EvidenceObjective(Eigen::MatrixXd X, Eigen::VectorXd t, FixedPointSolver solve)
    : X_(std::move(X)), t_(std::move(t)), fixed_point_(std::move(solve)) {}

ObjectiveValue EvidenceObjective::evaluate(const Kernel& kernel, const Likelihood& likelihood) {
  const Eigen::MatrixXd C = kernel.gram(X_);
  const MeanFieldFit fit = fixed_point_.solve(C, t_, likelihood);
  if (fit.status.code != RunStatus::ok) return failure(fit.status);
  const SiteSystem sys(C, fit.tau);  // one Cholesky of B = I + S C S
  if (!sys.log_concave())
    return failure({RunStatus::failed,
                    "some site precisions tau_i are negative (label noise kappa > 0 with a "
                    "cavity far on the wrong side): the EP/TAP evidence needs log-concave sites",
                    fit.status.iterations});
  ObjectiveValue v;
  v.value = log_evidence(likelihood, t_, fit, sys);
  if (!std::isfinite(v.value))
    return failure({RunStatus::failed, "the log evidence is not finite", fit.status.iterations});
  Eigen::VectorXd gk(0);
  if (flat_size(kernel.hyperparameters()) > 0) {
    // W = 1/2 (u u^T - (Omega + C)^{-1}), (Omega + C)^{-1} = S B^{-1} S (dpotri).
    const Eigen::VectorXd u = t_.cwiseProduct(fit.alpha);
    Eigen::MatrixXd W = -0.5 * sys.inverse_omega_plus_c();
    W.noalias() += 0.5 * u * u.transpose();
    gk = kernel.gram_derivative_contractions(X_, W);
  }
  const Eigen::VectorXd gl = likelihood_gradient(likelihood, t_, fit);
  v.gradient.resize(gk.size() + gl.size());
  v.gradient << gk, gl;
  v.status.iterations = fit.status.iterations;
  return v;
}

std::unique_ptr<HyperparameterObjective> make_fixed_point_objective(const Problem& problem,
                                                                    const std::string& name,
                                                                    const char* engine,
                                                                    FixedPointSolver solve) {
  const Dataset& d = *problem.data;
  Eigen::VectorXd t = class_labels(d, DataPart::train, engine);
  if (name == "evidence")
    return std::make_unique<EvidenceObjective>(d.X_train, std::move(t), std::move(solve));
  throw ConfigError(
      {}, std::string(engine) + ": no hyperparameter objective '" + name + "' (it has: evidence)");
}

}  // namespace quench::gp_classification
