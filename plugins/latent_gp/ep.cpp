#include "ep.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "ep_prior.h"
#include "fit_outputs.h"
#include "hyperparameter_objectives.h"
#include "mean_field.h"
#include "quench/anderson.h"
#include "quench/cancellation.h"
#include "quench/convergence_progress.h"
#include "quench/errors.h"
#include "quench/memory_budget.h"
#include "quench/printable.h"
#include "quench/smaller_steps.h"

namespace quench::latent_gp {

namespace {

// The change per sweep at which the likelihood's sites hand over to Newton steps (EpOptions::
// newton).
constexpr double kNewtonStart = 0.1;

// The site parameters (tau_i, nu_i) matched at the cavities (m_i, lambda_i) (eqs 23, 29-30 in
// EP form; nu = tau m + u (1 + lambda tau), finite as tau -> 0).
void match_sites(const SiteTiltedMoments& tilted, const Eigen::VectorXd& m,
                 const Eigen::VectorXd& lambda, Eigen::VectorXd& tau, Eigen::VectorXd& nu) {
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const SiteMoments sm = site_moments(tilted(i, m(i), lambda(i)), m(i), lambda(i));
    tau(i) = sm.tau;
    nu(i) = sm.tau * m(i) + sm.slope * (1.0 + lambda(i) * sm.tau);
  }
}

}  // namespace

// Parallel EP written as a map on the cavities c = (m, log lambda): all sites matched at c,
// then the posterior marginals of those sites from one factorization (prior.marginals: the
// dense cavity_variances with nu, or the low-rank G of quench/site_prior.h) give the cavities of
// eqs 26 and 28, m_i = mu_i / b_i - lambda_i nu_i (b_i = 1 - tau_i Sigma_ii). The map's fixed
// point is the EP (= TAP) fixed point; its iteration is accelerated by Anderson mixing
// (quench/anderson.h), which changes only the path. Cavities as the state (rather than the
// sites) keep every iterate meaningful: lambda stays positive in log coordinates and the sites
// of any cavity are valid, so an extrapolated step never makes a site precision negative that
// the likelihood keeps positive.
MeanFieldFit solve_ep(const SitePrior& prior, const SiteTiltedMoments& tilted, const EpOptions& o,
                      const MeanFieldFit* warm_start) {
  const Eigen::Index n = prior.size();
  // Zero sites: the cavities are the prior marginals (or those of the warm start's fit).
  Eigen::VectorXd m = warm_start ? warm_start->cavity_mean : Eigen::VectorXd::Zero(n);
  Eigen::VectorXd lambda = warm_start ? warm_start->cavity_variance : prior.variance();
  Eigen::VectorXd tau(n), nu(n), x(2 * n), image(2 * n), mean, marginal_variance;
  // The last iterate whose sweep was sound, and its image: where a bad extrapolation returns.
  Eigen::VectorXd sound, sound_image;
  AndersonAccelerator mixing({o.acceleration_depth, 1e-10, o.damping, 1.0});
  SweepProgress progress(prior.first_precision());
  MeanFieldFit fit;
  bool converged = false;
  double previous = std::numeric_limits<double>::infinity();
  int it = 0, undone = 0;
  ConvergenceProgress bar(o.progress, o.tol);
  for (it = 1; it <= o.max_iterations; ++it) {
    throw_if_stop_requested();  // Ctrl-C between sweeps (a fit, a learning evaluation)
    // A site whose tilted moments cannot be formed at an extrapolated cavity (the mode search
    // of a non-log-concave site far out) counts as a broken sweep: undone below.
    bool matched = true;
    std::string site_error;
    try {
      match_sites(tilted, m, lambda, tau, nu);
    } catch (const NumericalError& e) {
      matched = false;
      site_error = e.what();
    }
    PosteriorCovariance post;
    bool factorized = matched && tau.allFinite() && nu.allFinite();
    if (factorized) {
      try {
        post = prior.marginals(tau, nu, progress.precision());
      } catch (const NumericalError&) {
        factorized = false;  // not positive definite (single precision) or not finite
      }
    }
    Eigen::VectorXd m_new;
    if (factorized) {
      m_new = post.mean.cwiseQuotient(post.b.cwiseMax(1e-300)) - post.lambda.cwiseProduct(nu);
      // b_i = 1 - tau_i Sigma_ii <= 0: the cavity of site i would be improper (negative sites
      // elsewhere pull Sigma_ii above 1 / tau_i). Its update is skipped, its cavity kept, as
      // Jylanki, Vanhatalo & Vehtari (2011, Sec. 5) skip the updates that would make a cavity
      // improper; the other sites move on.
      for (Eigen::Index i = 0; i < n; ++i)
        if (!(post.b(i) > 0)) {
          m_new(i) = m(i);
          post.lambda(i) = lambda(i);
        }
    }
    // Convergence is measured on the posterior marginals (mu_i, Sigma_ii = lambda_i b_i) from
    // one sweep to the next: the cavities divide by b_i, which for strongly constrained sites
    // amplifies rounding (a floor of ~5e-13 on a noise-free kernel, against ~1e-16 here).
    const bool finite = factorized && m_new.allFinite() && post.lambda.allFinite();
    double change = std::numeric_limits<double>::infinity();
    if (finite && mean.size() > 0)
      change =
          std::max((post.mean - mean).cwiseAbs().maxCoeff(),
                   (post.lambda.cwiseProduct(post.b) - marginal_variance).cwiseAbs().maxCoeff());
    // An extrapolated step that breaks the sweep or multiplies the change by 1e3 is undone: back
    // to the last sound iterate, half its plain step, a new history. In single precision a
    // failed factorization is first retried in double.
    if (!finite || (std::isfinite(previous) && change > 1e3 * previous)) {
      if (matched && !factorized && progress.precision() == Precision::single) {
        progress.use_double();
        --it;
        continue;
      }
      if (sound.size() == 0) {
        fit.status = {RunStatus::failed,
                      matched ? "non-finite EP update at sweep " + std::to_string(it) : site_error,
                      it};
        break;
      }
      // Halving back towards the sound iterate that many times over is standing still: sites
      // whose posterior cannot be formed near it (e.g. too negative for the low-rank form).
      if (++undone > kGiveUpSweeps) {
        fit.status = {RunStatus::not_converged,
                      "EP sweeps failed or diverged " + std::to_string(undone) +
                          " times in a row (last sound change " + format_number(progress.best()) +
                          ")",
                      it};
        break;
      }
      mixing.reset();
      x = sound + 0.5 * (sound_image - sound);
      sound_image = x;  // taken again only after a sound sweep from x
      m = x.head(n);
      lambda = x.tail(n).array().exp().matrix();
      previous = std::numeric_limits<double>::infinity();
      continue;
    }
    undone = 0;
    bar.report(change);
    mean = post.mean;
    marginal_variance = post.lambda.cwiseProduct(post.b);
    previous = change;
    // Double precision from here on (a new history) once close, or once single precision stops
    // making progress (its rounding floor: ~1e-4 with a nearly singular noise-free C).
    if (progress.record(change)) mixing.reset();
    // At the rounding floor the change stops decreasing: mu = C nu - C S B^{-1} S C nu cancels
    // when the site means are large (noise-free kernel: ~3e-13 at |nu| ~ 1e3). A fixed point
    // stalled within 100 tol counts as converged, as in the TAP solver.
    if (progress.converged(change, o.tol)) {
      m = m_new;
      lambda = post.lambda;
      converged = true;
      break;
    }
    if (progress.stuck()) {
      // Stuck far above tol: rounding (ill-conditioned posterior: the TAP solver fails at such
      // hyperparameters too) or a cycle. A status at once rather than max_iterations sweeps.
      fit.status = {RunStatus::not_converged,
                    "EP stalled at a change of " + format_number(progress.best()) +
                        " per sweep (tol " + format_number(o.tol) + ") after " +
                        std::to_string(it) + " sweeps",
                    it};
      break;
    }
    x << m, lambda.array().log().matrix();
    image << m_new, post.lambda.array().log().matrix();
    sound = x;
    sound_image = image;
    x = mixing.next(x, image);
    m = x.head(n);
    lambda = x.tail(n).array().exp().matrix();
  }
  if (converged) {
    fit.status.iterations = it;
    bar.finish();
  } else if (fit.status.code == RunStatus::ok)
    fit.status = {RunStatus::not_converged,
                  "EP did not converge in " + std::to_string(o.max_iterations) + " sweeps",
                  o.max_iterations};
  // The paper's variables at the EP fixed point; for sweeps that stopped short, at their last
  // iterate, or at the last sound one where the sites of the last cannot be formed (a diverged
  // cavity), so that the status reaches the caller (and solve_ep_with_smaller_steps).
  fit.slope.resize(n);
  fit.tau.resize(n);
  const auto sites_at_cavities = [&] {
    for (Eigen::Index i = 0; i < n; ++i) {
      const SiteMoments sm = site_moments(tilted(i, m(i), lambda(i)), m(i), lambda(i));
      fit.slope(i) = sm.slope;
      fit.tau(i) = sm.tau;
    }
  };
  try {
    sites_at_cavities();
  } catch (const NumericalError& error) {
    if (converged) throw;
    if (sound.size() == 0) {
      fit.status = {RunStatus::failed, error.what(), fit.status.iterations};
      fit.slope.setConstant(std::numeric_limits<double>::quiet_NaN());
      fit.tau.setConstant(std::numeric_limits<double>::quiet_NaN());
      fit.mean_field = fit.slope;
      fit.cavity_mean = m;
      fit.cavity_variance = lambda;
      return fit;
    }
    m = sound.head(n);
    lambda = sound.tail(n).array().exp().matrix();
    sites_at_cavities();
  }
  fit.mean_field = prior.times(fit.slope);  // eq 19 (= mu at the fixed point)
  fit.cavity_mean = m;
  fit.cavity_variance = lambda;
  return fit;
}

// Parallel sweeps can cycle or diverge instead of settling: on the FITC prior with a nearly
// noise-free likelihood (letter at width 1: stalled at a change of 2e-4 after 62 sweeps,
// converged in 53 at damping 1/2), and with the negative sites of a non-log-concave likelihood
// (Jylanki, Vanhatalo & Vehtari 2011, Sec. 5, who damp such updates): a Student-t fit of Boston
// with outliers diverged at damping 1 (a cavity mean of -1e42 whose tilted modes cannot be
// found: status failed) and converged in 12 sweeps at 1/2.
MeanFieldFit solve_ep_with_smaller_steps(const SitePrior& prior, const SiteTiltedMoments& tilted,
                                         const EpOptions& options, const MeanFieldFit* warm_start) {
  return solve_with_smaller_steps(options, [&](const EpOptions& o, bool first) {
    return solve_ep(prior, tilted, o, first ? warm_start : nullptr);
  });
}

SiteTiltedMoments likelihood_tilted_moments(const Likelihood& lik, const Observations& y) {
  return [&lik, &y](Eigen::Index i, double m, double v) { return lik.tilted_moments(y[i], m, v); };
}

MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Observations& y, const Likelihood& lik,
                      const EpOptions& options, const MeanFieldFit* warm_start) {
  // One factorization of I + S C S per sweep, single precision while far from the fixed point.
  const DenseSitePrior prior = DenseSitePrior::viewing(C);
  const SiteTiltedMoments tilted = likelihood_tilted_moments(lik, y);
  if (!options.newton) return solve_ep_with_smaller_steps(prior, tilted, options, warm_start);
  EpOptions sweeps = options;
  sweeps.tol = std::max(options.tol, kNewtonStart);
  // Sweeps that diverge or cycle before the Newton start: again with smaller steps (the
  // Student-t fit above reached it at damping 1/2 and converged in 12 sweeps and Newton steps,
  // where damped sweeps alone stall at a rounding floor of 1e-10).
  const MeanFieldFit start = solve_ep_with_smaller_steps(prior, tilted, sweeps, warm_start);
  // Sweeps that cannot reach the looser tolerance at any damping cannot reach `tol` either.
  if (start.status.code != RunStatus::ok) return start;
  // The same fixed point (eqs 19, 23, 26, 28-30) by the joint Newton steps of the TAP solver,
  // to the accuracy of `tol`: u to ~1e3 tol, lambda to 1e2 tol relative (the TAP defaults
  // 1e-18 and 1e-10 at the default tol 1e-12).
  MeanFieldOptions newton;
  newton.ftol = 1e6 * options.tol * options.tol;
  newton.lambda_tol = 1e2 * options.tol;
  // From the sweeps' cavities, then from u = 0 (the TAP solver's own global phase): a loose
  // start can leave the slope equations at its lambda without a descent direction.
  for (const MeanFieldFit* from : {&start, static_cast<const MeanFieldFit*>(nullptr)}) {
    try {
      MeanFieldFit fit = solve_mean_field(C, y, lik, newton, from);
      if (fit.status.code == RunStatus::ok) {
        fit.status.iterations += start.status.iterations;
        return fit;
      }
    } catch (const NumericalError&) {  // a factorization failed
    }
  }
  // Sweeps to the tolerance when Newton does not converge, with smaller steps if they do not
  // settle. Measured on Pima during evidence learning: where both Newton starts fail the sweeps
  // stall at a rounding floor (~1e-8) and give up after kGiveUpSweeps.
  return solve_ep_with_smaller_steps(prior, tilted, options, &start);
}

SiteTiltedMoments counted_tilted_moments(const Likelihood& lik, const Observations& y,
                                         const Eigen::VectorXi& counts) {
  return [&lik, &y, &counts](Eigen::Index i, double m, double v) {
    return lik.tilted_moments_power(y[i], m, v, counts(i));  // 000 eq 43
  };
}

MeanFieldFit solve_ep(const Eigen::MatrixXd& C, const Observations& y,
                      const Eigen::VectorXi& counts, const Likelihood& lik,
                      const EpOptions& options) {
  return solve_ep_with_smaller_steps(DenseSitePrior::viewing(C),
                                     counted_tilted_moments(lik, y, counts), options);
}

CountedFit counted_ep_fit(std::shared_ptr<const Likelihood> lik, const EpOptions& options,
                          const char* engine) {
  return [lik = std::move(lik), options, engine](const Eigen::MatrixXd& C, const Observations& y,
                                                 const Eigen::VectorXi& counts) {
    const MeanFieldFit fit = solve_ep(C, y, counts, *lik, options);
    if (fit.status.code != RunStatus::ok)
      throw NumericalError(engine, "bootstrap retrain: " + fit.status.message);
    return CountedFitResult{fit.slope, fit.tau};
  };
}

ParamSchema EpEngine::schema() {
  ParamSchema s;
  s.real("damping", "fraction of the parallel sweep's change of the cavities taken per sweep", 1.0,
         1e-3, 1.0)
      .boolean("newton",
               "once a sweep changes the posterior by < 0.1, finish by Newton steps on the same "
               "fixed-point equations (shared with tap); false: sweeps to tol",
               true)
      .integer("acceleration_depth",
               "Anderson mixing of the last this many sweeps (0: plain damped parallel EP)", 5, 0)
      .real("tol", "max change of posterior means and variances per sweep at convergence", 1e-12,
            0.0)
      .integer("max_iterations", "maximum number of sweeps", 2000, 1);
  return s;
}

EpEngine::EpEngine(const Params& p) {
  options_.damping = p.real("damping");
  options_.acceleration_depth = static_cast<int>(p.integer("acceleration_depth"));
  options_.newton = p.boolean("newton");
  options_.tol = p.real("tol");
  options_.max_iterations = static_cast<int>(p.integer("max_iterations"));
}

void EpEngine::check(const Problem& problem, Eigen::Index inducing_count) const {
  if (inducing_count == 0) require_dense_memory(problem.data->X_train.rows(), 3, "ep");
}

Results EpEngine::run(const Problem& problem) const {
  EpOptions o = options_;
  o.progress = problem.context.progress;
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Likelihood& lik = *problem.likelihood;
  const Observations y = observations(d, DataPart::train, *lik.target_kind(), "ep");
  const auto prior = make_ep_prior(*problem.kernel, d.X_train, problem.inducing.get());
  const MeanFieldFit fit = prior->solve(lik, y, o, nullptr);
  Results r;
  add_fit(r, lik, y, fit);
  if (fit.status.code == RunStatus::ok) {
    const EpEvidence e = prior->evidence(*problem.kernel, lik, y, fit, false);
    if (std::isfinite(e.value)) r.scalars["log_evidence"] = e.value;
  }
  try {
    add_model_predictions(r, problem, [&] { return prior->model(problem, fit); });
  } catch (const NumericalError& error) {
    // Sites of a fit that stopped short (status not ok) whose posterior cannot be formed.
    if (fit.status.code == RunStatus::ok) throw;
    r.info["test_predictions"] = std::string("none: ") + error.what();
  }
  r.info["method"] = prior->description();
  r.timings["fit"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::unique_ptr<ResampledModel> EpEngine::prepare_resampling(const Problem& problem) const {
  return make_ep_prior(*problem.kernel, problem.data->X_train, problem.inducing.get())
      ->resampled(problem, options_);
}

std::vector<std::string> EpEngine::hyperparameter_objectives(const EngineFactory&,
                                                             PriorKind prior) const {
  if (prior == PriorKind::inducing) return {"evidence"};
  return {"evidence", "loo"};
}

std::unique_ptr<HyperparameterObjective> EpEngine::hyperparameter_objective(
    const Problem& problem, const std::string& name) const {
  const EpOptions o = options_;
  return make_fixed_point_objective(
      problem, name, "ep",
      [o](const EpPrior& prior, const Likelihood& lik, const Observations& y,
          const MeanFieldFit* warm) { return prior.solve(lik, y, o, warm); });
}

std::unique_ptr<Model> EpEngine::read_model(ModelArchive& archive, const ModelParts& parts) const {
  return read_gp_classifier(archive, parts);
}

}  // namespace quench::latent_gp
