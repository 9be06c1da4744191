#include "ep.h"

#include <chrono>
#include <cmath>
#include <string>

#include "hyperparameter_objectives.h"
#include "quench/errors.h"

namespace quench::gp_classification {

MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                      const SiteTiltedMoments& tilted, const EpOptions& o,
                      const MeanFieldFit* warm_start) {
  const Eigen::Index n = t.size();
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(n), nu = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd sigma = C.diagonal(), mu = Eigen::VectorXd::Zero(n);
  if (warm_start) {
    tau = warm_start->tau;
    nu = site_nu(t, *warm_start);
    const PosteriorCovariance post = posterior_covariance(C, tau);
    sigma = post.sigma.diagonal();
    mu = post.sigma * nu;
  }
  Eigen::VectorXd lambda(n), m(n);
  MeanFieldFit fit;
  bool converged = false;
  int it = 0;
  auto cavities = [&] {
    for (Eigen::Index i = 0; i < n; ++i) {
      lambda(i) = sigma(i) / std::max(1.0 - tau(i) * sigma(i), 1e-300);  // eq 28
      m(i) = lambda(i) * (mu(i) / sigma(i) - nu(i));                     // eq 26
    }
  };
  for (it = 1; it <= o.max_iterations; ++it) {
    cavities();
    for (Eigen::Index i = 0; i < n; ++i) {
      const TiltedMoments tm = tilted(i, m(i), lambda(i));
      const double tau_new = 1.0 / tm.variance - 1.0 / lambda(i);
      const double nu_new = tm.mean / tm.variance - m(i) / lambda(i);
      tau(i) = (1 - o.damping) * tau(i) + o.damping * tau_new;
      nu(i) = (1 - o.damping) * nu(i) + o.damping * nu_new;
    }
    // One factorization per sweep: Sigma (dpotrf + dpotri, or LU when some tau_i < 0).
    const PosteriorCovariance post = posterior_covariance(C, tau);
    const Eigen::VectorXd sigma_new = post.sigma.diagonal();
    const Eigen::VectorXd mu_new = post.sigma * nu;
    const double change =
        std::max((mu_new - mu).cwiseAbs().maxCoeff(), (sigma_new - sigma).cwiseAbs().maxCoeff());
    mu = mu_new;
    sigma = sigma_new;
    if (!std::isfinite(change)) {
      fit.status = {RunStatus::failed, "non-finite EP update at sweep " + std::to_string(it), it};
      break;
    }
    if (change < o.tol) {
      converged = true;
      break;
    }
  }
  if (converged)
    fit.status.iterations = it;
  else if (fit.status.code == RunStatus::ok)
    fit.status = {RunStatus::not_converged,
                  "EP did not converge in " + std::to_string(o.max_iterations) + " sweeps",
                  o.max_iterations};
  // The paper's variables at the EP fixed point.
  cavities();
  fit.alpha.resize(n);
  fit.tau.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const SiteMoments sm = site_moments(tilted(i, m(i), lambda(i)), t(i), m(i), lambda(i));
    fit.alpha(i) = sm.alpha;
    fit.tau(i) = sm.tau;
  }
  fit.mean_field = C * t.cwiseProduct(fit.alpha);  // eq 19 (= mu at the fixed point)
  fit.cavity_mean = m;
  fit.cavity_variance = lambda;
  return fit;
}

MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Eigen::VectorXd& t, const Likelihood& lik,
                      const EpOptions& options, const MeanFieldFit* warm_start) {
  return solve_ep(
      C, t, [&](Eigen::Index i, double m, double v) { return lik.tilted_moments(t(i), m, v); },
      options, warm_start);
}

MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                      const Eigen::VectorXi& counts, const Likelihood& lik,
                      const EpOptions& options) {
  return solve_ep(
      C, t,
      [&](Eigen::Index i, double m, double v) {
        return lik.tilted_moments_power(t(i), m, v, counts(i));  // 000 eq 43
      },
      options);
}

CountedFit counted_ep_fit(std::shared_ptr<const Likelihood> lik, const EpOptions& options,
                          const char* engine) {
  return [lik = std::move(lik), options, engine](const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                                                 const Eigen::VectorXi& counts) {
    const MeanFieldFit fit = solve_ep(C, t, counts, *lik, options);
    if (fit.status.code != RunStatus::ok)
      throw NumericalError(engine, "bootstrap retrain: " + fit.status.message);
    return CountedFitResult{t.cwiseProduct(fit.alpha), fit.tau};
  };
}

ParamSchema EpEngine::schema() {
  ParamSchema s;
  s.real("damping", "fraction of the new site parameters taken per parallel sweep", 0.5, 1e-3, 1.0)
      .real("tol", "max change of posterior means and variances at convergence", 1e-12, 0.0)
      .integer("max_iterations", "maximum number of sweeps", 2000, 1);
  return s;
}

EpEngine::EpEngine(const Params& p) {
  options_.damping = p.real("damping");
  options_.tol = p.real("tol");
  options_.max_iterations = static_cast<int>(p.integer("max_iterations"));
}

Results EpEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Eigen::VectorXd t = class_labels(d, DataPart::train, "ep");
  const Eigen::MatrixXd C = problem.kernel->gram(d.X_train);
  const MeanFieldFit fit = solve_ep(C, t, *problem.likelihood, options_);
  Results r;
  add_fit(r, *problem.likelihood, t, fit);
  const SiteSystem sys(C, fit.tau);
  if (fit.status.code == RunStatus::ok) {
    const double lz = log_evidence(*problem.likelihood, t, fit, sys);
    if (std::isfinite(lz)) r.scalars["log_evidence"] = lz;
  }
  add_model_predictions(r, problem,
                        [&] { return ClassifierModel::from_fit(problem, t, fit.alpha, &sys); });
  r.info["method"] = "expectation propagation (parallel, damped)";
  r.timings["fit"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::unique_ptr<ResampledModel> EpEngine::prepare_resampling(const Problem& problem) const {
  return make_resampled_classifier(problem, "ep",
                                   counted_ep_fit(problem.likelihood, options_, "ep"), true);
}

std::vector<std::string> EpEngine::hyperparameter_objectives() const { return {"evidence", "loo"}; }

std::unique_ptr<HyperparameterObjective> EpEngine::hyperparameter_objective(
    const Problem& problem, const std::string& name) const {
  const EpOptions o = options_;
  return make_fixed_point_objective(
      problem, name, "ep",
      [o](const Eigen::MatrixXd& C, const Eigen::VectorXd& t, const Likelihood& lik,
          const MeanFieldFit* warm) { return solve_ep(C, t, lik, o, warm); });
}

}  // namespace quench::gp_classification
