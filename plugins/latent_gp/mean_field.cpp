#include "mean_field.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "ep.h"
#include "fit_outputs.h"
#include "hyperparameter_objectives.h"
#include "quench/cancellation.h"
#include "quench/errors.h"
#include "quench/memory_budget.h"

namespace quench::latent_gp {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Cavity means (eq 26) and the fixed-point map of eq 23 at the current slopes u, lambda.
struct Sweep {
  Eigen::VectorXd h, m, target, tau;
};
Sweep sweep(const Eigen::MatrixXd& C, const Observations& y, const Likelihood& lik,
            const Eigen::VectorXd& u, const Eigen::VectorXd& lambda) {
  Sweep s;
  s.h = C.selfadjointView<Eigen::Lower>() * u;  // eq 19 (symv)
  s.m = s.h - lambda.cwiseProduct(u);           // eq 26
  s.target.resize(y.rows());
  s.tau.resize(y.rows());
  for (Eigen::Index i = 0; i < y.rows(); ++i) {
    const SiteMoments sm = site_moments(lik, y[i], s.m(i), lambda(i));  // eq 23
    s.target(i) = sm.slope;
    s.tau(i) = sm.tau;  // 1/Omega_i, eqs 29-30
  }
  return s;
}

// GMRES (no restart) for A x = b from x = 0, A given by `apply`; stops when |b - A x| <=
// tol |b| or after max_iterations.
template <class Apply>
Eigen::VectorXd gmres(const Apply& apply, const Eigen::VectorXd& b, double tol,
                      int max_iterations) {
  const Eigen::Index n = b.size();
  const double beta = b.norm();
  if (beta == 0.0 || n == 0) return Eigen::VectorXd::Zero(n);
  const int m = static_cast<int>(std::min<Eigen::Index>(max_iterations, n));
  Eigen::MatrixXd V(n, m + 1), H = Eigen::MatrixXd::Zero(m + 1, m);
  Eigen::VectorXd cs(m), sn(m), g = Eigen::VectorXd::Zero(m + 1);
  V.col(0) = b / beta;
  g(0) = beta;
  int k = 0;
  while (k < m) {
    Eigen::VectorXd w = apply(V.col(k));
    for (int j = 0; j <= k; ++j) {  // modified Gram-Schmidt
      H(j, k) = V.col(j).dot(w);
      w -= H(j, k) * V.col(j);
    }
    H(k + 1, k) = w.norm();
    if (H(k + 1, k) > 0.0) V.col(k + 1) = w / H(k + 1, k);
    for (int j = 0; j < k; ++j) {  // previous Givens rotations
      const double a = cs(j) * H(j, k) + sn(j) * H(j + 1, k);
      H(j + 1, k) = -sn(j) * H(j, k) + cs(j) * H(j + 1, k);
      H(j, k) = a;
    }
    const double r = std::hypot(H(k, k), H(k + 1, k));
    cs(k) = r > 0.0 ? H(k, k) / r : 1.0;
    sn(k) = r > 0.0 ? H(k + 1, k) / r : 0.0;
    H(k, k) = r;
    H(k + 1, k) = 0.0;
    g(k + 1) = -sn(k) * g(k);
    g(k) *= cs(k);
    ++k;
    if (std::fabs(g(k)) <= tol * beta || r == 0.0) break;
  }
  const Eigen::VectorXd y = H.topLeftCorner(k, k).triangularView<Eigen::Upper>().solve(g.head(k));
  return V.leftCols(k) * y;
}

// (Sigma o Sigma - diag(Sigma_ii^2)) v from the lower triangle of the symmetric Sigma: one pass
// over the matrix, no N x N temporary.
Eigen::VectorXd squared_offdiagonal_product(const Eigen::MatrixXd& sigma,
                                            const Eigen::VectorXd& v) {
  const Eigen::Index n = v.size();
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n), col(n);
  for (Eigen::Index j = 0; j + 1 < n; ++j) {
    const Eigen::Index k = n - j - 1;
    col.head(k) = sigma.col(j).tail(k).cwiseAbs2();
    w.tail(k) += v(j) * col.head(k);
    w(j) += col.head(k).dot(v.tail(k));
  }
  return w;
}

// The joint Newton step on the TAP equations in the slopes u (001's t alpha) and lambda:
//   F(u, lambda) = u - f(m, lambda) = 0,  m = (C - Lambda) u          (eqs 19, 23, 26)
//   G(u, lambda) = log lambda - log lambdahat(tau(m, lambda)) = 0      (eqs 28-30)
// Linearized: delta u = R D (-F + e delta lambda) with R = (I + T C)^{-1}, D = 1 + lambda tau,
// e = f_lambda - f_m u (f_m = -tau/D, so I - f_m (C - Lambda) = D^{-1}(I + T C)), and
// d lambdahat_i / d tau_j = -(1 - delta_ij) Sigma_ij^2 / b_i^2 (the diagonal term vanishes).
// Eliminating delta u leaves an N x N system for x = delta log lambda, solved by GMRES; the
// update is lambda exp(x) (in log lambda the first step from lambda = C_ii, far above the
// fixed point, is not cut short by lambda > 0). Every product costs two matrix-vector products
// (Sigma and Sigma o Sigma, both from the lower triangle of Sigma, the latter never formed),
// since C R = Sigma and R = I - T Sigma. No O(N^3) work beyond `post`.
void joint_newton_step(const Observations& y, const Likelihood& lik, const Eigen::VectorXd& u,
                       const Eigen::VectorXd& lambda, const Eigen::VectorXd& m,
                       const Eigen::VectorXd& tau, const PosteriorCovariance& post,
                       const Eigen::VectorXd& F, const Eigen::VectorXd& G, double tol,
                       Eigen::VectorXd& du, Eigen::VectorXd& dlog) {
  const SiteDerivatives d = site_derivatives(lik, y, m, lambda);
  const Eigen::VectorXd& tf = tau;
  const Eigen::VectorXd D = (1.0 + lambda.array() * tf.array()).matrix();
  const Eigen::VectorXd e = d.fl - d.fm.cwiseProduct(u);
  const Eigen::VectorXd kscale = -post.b.cwiseAbs2().cwiseInverse().cwiseQuotient(post.lambda);
  // v -> (C - Lambda) R v, and R v.
  auto clr = [&](const Eigen::VectorXd& v, Eigen::VectorXd& ry) {
    const Eigen::VectorXd z = post.sigma.selfadjointView<Eigen::Lower>() * v;
    ry = v - tf.cwiseProduct(z);
    return Eigen::VectorXd(z - lambda.cwiseProduct(ry));
  };
  Eigen::VectorXd ry;
  const Eigen::VectorXd y0 = -D.cwiseProduct(F);
  const Eigen::VectorXd dtau0 = d.tm.cwiseProduct(clr(y0, ry));
  const Eigen::VectorXd rhs =
      -G + kscale.cwiseProduct(squared_offdiagonal_product(post.sigma, dtau0));
  auto apply = [&](const Eigen::VectorXd& x) {
    const Eigen::VectorXd dl = lambda.cwiseProduct(x);
    Eigen::VectorXd r;
    const Eigen::VectorXd dm = clr(D.cwiseProduct(e).cwiseProduct(dl), r) - u.cwiseProduct(dl);
    const Eigen::VectorXd dtau = d.tm.cwiseProduct(dm) + d.tl.cwiseProduct(dl);
    return Eigen::VectorXd(x - kscale.cwiseProduct(squared_offdiagonal_product(post.sigma, dtau)));
  };
  dlog = gmres(apply, rhs, tol, 60);
  clr(D.cwiseProduct(-F + e.cwiseProduct(lambda.cwiseProduct(dlog))), du);
}

// The factorizations of I + S C S far from the fixed point are done in single precision
// (Precision::single, ~2x cheaper; the steps they give are approximate Newton steps, the
// residuals are always evaluated in double): the slope steps of the loose tolerances below
// kSingleTol, and the eq-28 refreshes while max_i |G_i| at the previous refresh exceeds
// kSingleG (single precision gives lambda to ~1e-7 cond(B) ~ 1e-3 relative on letter). The
// fixed point is confirmed by refreshes in double precision. `make(p)` factorizes in precision
// p; a matrix that is not positive definite in single precision is factorized in double.
constexpr double kSingleTol = 1e-8, kSingleG = 0.5;
template <class Make>
auto factorized(Precision precision, const Make& make) {
  if (precision == Precision::single) {
    try {
      return make(Precision::single);
    } catch (const NumericalError&) {
    }
  }
  return make(Precision::full);
}

// Newton solver (see MeanFieldSolver::newton). With the slopes u (001's t alpha) the slope
// equations at fixed lambda read F(u) = u - f(m) = 0, m = (C - Lambda)u (eqs 19, 26), f_i = d log
// Z_i / dm_i (eq 23). f' = -tau/(1 + lambda tau) with tau the site precision 1/Omega (eqs 29-30),
// so the Jacobian is diag(1/(1 + lambda tau)) (I + T C) and the Newton step solves (I + T C) du =
// -(1 + lambda tau) F. For a log-concave likelihood the equations are the stationarity conditions
// of a convex function (Hessian >= C), so damped Newton with backtracking on |F|^2 converges
// globally. Phase 1 solves them at lambda_i = C_ii (naive mean field: to ftol, the whole solve) or,
// for TAP, at the eq-28 lambda of u = 0 to a loose 1e-3; phase 2 (TAP) takes joint Newton steps in
// (u, lambda) (joint_newton_step), each with one factorization. On letter (N = 2000): 1 + 3 slope
// steps and 3 refreshes in single precision, 3 in double (the last one confirms the fixed point).
MeanFieldFit solve_newton(const Eigen::MatrixXd& C, const Observations& y, const Likelihood& lik,
                          const MeanFieldOptions& o, Eigen::VectorXd u, Eigen::VectorXd lambda,
                          bool warm) {
  MeanFieldFit fit;
  Sweep s = sweep(C, y, lik, u, lambda);
  int steps = 0;
  if (o.refresh_lambda && !warm) {
    // TAP: lambda from eq 28 at u = 0 (single precision suffices for a start), much
    // closer to the fixed point than C_ii (on letter lambda_i ends at 5e-4..0.5 C_ii).
    ++steps;
    ++fit.lambda_refreshes;
    lambda = factorized(Precision::single, [&](Precision p) {
               return cavity_variances(C, s.tau, p);
             }).lambda;
    s = sweep(C, y, lik, u, lambda);
  }
  // Newton converges in tens of steps; max_iterations (sized for the paper's iteration)
  // is capped so that a stalled solve is reported instead of running for hours.
  const int max_steps = std::min(o.max_iterations, 2000);
  auto residual = [&](const Sweep& sw, const Eigen::VectorXd& a) {
    return Eigen::VectorXd(a - sw.target);  // F in u
  };
  // Tolerances on |F|^2 are relative to max(1, max |u|)^2: with a noise-free kernel u reaches
  // 1e2-1e3 and an absolute 1e-9 on it is below rounding.
  auto rel = [&] { return std::pow(std::max(1.0, u.cwiseAbs().maxCoeff()), 2); };
  const double tol1 = o.refresh_lambda ? 1e-3 : o.ftol;
  Eigen::VectorXd F;
  // Damped Newton steps on the slope equations at the current lambda until max F^2 < tol rel.
  auto solve_slopes = [&](double tol) {
    F = residual(s, u);
    double merit = F.squaredNorm();
    Precision precision = tol >= kSingleTol ? Precision::single : Precision::full;
    while (F.cwiseAbs2().maxCoeff() >= tol * rel()) {
      if (++steps > max_steps) return;
      throw_if_stop_requested();
      const SiteSystem sys =
          factorized(precision, [&](Precision p) { return SiteSystem(C, s.tau, p); });
      const Eigen::VectorXd r = -(1.0 + lambda.array() * s.tau.array()).matrix().cwiseProduct(F);
      const Eigen::VectorXd du = sys.solve_newton(r);
      bool accepted = false;
      double step = 1.0;
      for (int k = 0; k < 40 && !accepted; ++k, step /= 2) {
        const Eigen::VectorXd trial = u + step * du;
        Sweep st = sweep(C, y, lik, trial, lambda);
        const Eigen::VectorXd Ft = residual(st, trial);
        const double mt = Ft.squaredNorm();
        if (std::isfinite(mt) && mt < merit) {
          u = trial;
          s = std::move(st);
          F = Ft;
          merit = mt;
          accepted = true;
        }
      }
      if (!accepted && precision == Precision::single) {
        precision = Precision::full;  // a direction too inexact (ill-conditioned B): in double
        continue;
      }
      if (!accepted) {
        // At the rounding floor a Newton step cannot decrease |F| further.
        if (F.cwiseAbs2().maxCoeff() < 1e6 * o.ftol * rel()) return;
        fit.status = {
            RunStatus::failed,
            "Newton step on the slope equations found no decrease at step " + std::to_string(steps),
            steps};
        return;
      }
    }
  };
  solve_slopes(tol1);
  bool converged = false;
  if (fit.status.code == RunStatus::ok && steps <= max_steps && !o.refresh_lambda) converged = true;
  // Phase 2: joint Newton steps; a step that does not decrease the merit
  // |F|^2/rel + |G/lambda|^2 is halved (from the previous point).
  Eigen::VectorXd u0, lambda0, du, dl;
  double previous = std::numeric_limits<double>::infinity(), theta = 1.0;
  double gmax = std::numeric_limits<double>::infinity();  // max_i |G_i| at the last refresh
  bool single = false;
  while (o.refresh_lambda && fit.status.code == RunStatus::ok && !converged) {
    if (++steps > max_steps) break;
    throw_if_stop_requested();
    const Precision precision = gmax > kSingleG ? Precision::single : Precision::full;
    // The merit of a single-precision refresh is not comparable with a double one.
    if (precision == Precision::full && single) previous = std::numeric_limits<double>::infinity();
    single = precision == Precision::single;
    // Newton squares max|G| (with a factor ~0.1-0.5 on letter): once max|G|^2 < lambda_tol the
    // next refresh is expected to confirm the fixed point: lambda only (cavity_variances),
    // Sigma below only if it does not.
    PosteriorCovariance post =
        gmax * gmax < o.lambda_tol
            ? cavity_variances(C, s.tau)
            : factorized(precision, [&](Precision p) { return posterior_covariance(C, s.tau, p); });
    ++fit.lambda_refreshes;
    F = residual(s, u);
    const Eigen::VectorXd G = (lambda.array() / post.lambda.array()).log().matrix();
    const double change = (post.lambda - lambda).cwiseQuotient(lambda).cwiseAbs().maxCoeff();
    gmax = G.cwiseAbs().maxCoeff();
    const double fmax = F.cwiseAbs2().maxCoeff() / rel();
    const double m = F.squaredNorm() / rel() + G.squaredNorm();
    if (!std::isfinite(m)) {
      fit.status = {RunStatus::failed, "non-finite TAP residual at step " + std::to_string(steps),
                    steps};
      break;
    }
    const bool stalled = !(m < previous);
    if (change < o.lambda_tol && (fmax < o.ftol || (stalled && fmax < 1e6 * o.ftol))) {
      lambda = post.lambda;  // the final eq-28 refresh
      s = sweep(C, y, lik, u, lambda);
      converged = true;
      break;
    }
    if (stalled) {
      theta /= 2;
      if (theta < 1e-6) {
        fit.status = {RunStatus::failed,
                      "joint Newton step found no decrease at step " + std::to_string(steps),
                      steps};
        break;
      }
      u = u0 + theta * du;
      lambda = lambda0.cwiseProduct((theta * dl).array().exp().matrix());
      s = sweep(C, y, lik, u, lambda);
      continue;
    }
    previous = m;
    if (post.sigma.size() == 0) post = posterior_covariance(C, s.tau);
    joint_newton_step(y, lik, u, lambda, s.m, s.tau, post, F, G,
                      std::clamp(std::sqrt(m), 1e-12, 1e-3), du, dl);
    theta = 1.0;
    // After a Newton step the slope equations are solved again only when far off (the next
    // joint step corrects them); after a plain refresh to the phase-1 tolerance.
    double tol2 = 0.1;
    if (!(dl.cwiseAbs().maxCoeff() <= 5.0)) {
      // Far from the fixed point (a Newton step would change some lambda_i by more than a
      // factor e^5): the plain eq-28 refresh lambda := lambdahat instead; u follows below.
      dl = -G;
      du.setZero();
      tol2 = tol1;
    }
    u0 = u;
    lambda0 = lambda;
    u += theta * du;
    lambda = lambda.cwiseProduct((theta * dl).array().exp().matrix());
    s = sweep(C, y, lik, u, lambda);
    solve_slopes(tol2);
  }
  if (fit.status.code == RunStatus::ok && !converged)
    fit.status = {
        RunStatus::not_converged,
        "the TAP equations did not converge in " + std::to_string(max_steps) + " Newton steps",
        max_steps};
  if (converged) fit.status.iterations = steps;
  fit.slope = u;
  fit.mean_field = s.h;
  fit.cavity_mean = s.m;
  fit.cavity_variance = lambda;
  fit.tau = s.tau;
  return fit;
}

}  // namespace

MeanFieldFit solve_mean_field(const Eigen::MatrixXd& C, const Observations& y,
                              const Likelihood& lik, const MeanFieldOptions& o,
                              const MeanFieldFit* warm_start) {
  // Sec. 4 start (lambda_i = C_ii is also eq 35 for naive mean field), or the warm start.
  Eigen::VectorXd u = warm_start ? warm_start->slope : Eigen::VectorXd::Zero(y.rows());
  Eigen::VectorXd lambda =
      warm_start && o.refresh_lambda ? warm_start->cavity_variance : Eigen::VectorXd(C.diagonal());
  if (o.solver == MeanFieldSolver::newton)
    return solve_newton(C, y, lik, o, u, lambda, warm_start != nullptr);
  MeanFieldFit fit;
  double eta = o.eta, previous = std::numeric_limits<double>::infinity();
  bool converged = false;
  int it = 0;
  // Eq 28: lambda_i = 1/[(Omega + C)^{-1}]_ii - Omega_i at the current slopes.
  auto refresh = [&](const Sweep& s) {
    const Eigen::VectorXd fresh = posterior_covariance(C, s.tau).lambda;
    const double change = ((fresh - lambda).array().abs() / lambda.array().max(1e-300)).maxCoeff();
    lambda = fresh;
    return change;
  };
  Sweep s;
  for (it = 1; it <= o.max_iterations; ++it) {
    s = sweep(C, y, lik, u, lambda);
    const Eigen::VectorXd delta = s.target - u;
    const double err = delta.squaredNorm();
    if (!std::isfinite(err)) {
      fit.status = {RunStatus::failed, "non-finite slope update at step " + std::to_string(it), it};
      break;
    }
    if (delta.cwiseAbs2().maxCoeff() < o.ftol) {
      if (!o.refresh_lambda) {
        converged = true;
        break;
      }
      if (refresh(s) < o.lambda_tol) {
        converged = true;
        break;
      }
      previous = std::numeric_limits<double>::infinity();
      continue;
    }
    u += eta * delta;
    eta = err < previous ? std::min(eta * 1.1, o.eta_max) : eta / 2;  // Sec. 4
    previous = err;
    if (o.refresh_lambda && it % o.lambda_every == 0) refresh(sweep(C, y, lik, u, lambda));
  }
  if (!converged && fit.status.code == RunStatus::ok)
    fit.status = {RunStatus::not_converged,
                  "max_i |delta u_i|^2 did not fall below ftol in " +
                      std::to_string(o.max_iterations) + " steps",
                  o.max_iterations};
  else if (converged)
    fit.status.iterations = it;
  s = sweep(C, y, lik, u, lambda);
  fit.slope = u;
  fit.mean_field = s.h;
  fit.cavity_mean = s.m;
  fit.cavity_variance = lambda;
  fit.tau = s.tau;
  return fit;
}

namespace {

ParamSchema mean_field_schema(bool tap) {
  ParamSchema s;
  s.string("solver",
           "paper: the damped iteration of 001 Sec. 4; newton: same fixed point, Newton steps at "
           "fixed lambda",
           "newton", {"newton", "paper"})
      .real("ftol", "stop when max_i |delta alpha_i|^2 < ftol", 1e-18, 0.0)
      .real("eta", "initial step of the alpha iteration (001 Sec. 4)", 0.05, 1e-12, 1.0)
      .integer("max_iterations", "maximum number of alpha steps", 200000, 1);
  if (tap)
    s.integer("lambda_every", "refresh Omega and lambda every this many steps (001 Sec. 4)", 20, 1)
        .real("lambda_tol", "relative change of lambda accepted at convergence", 1e-10, 0.0)
        .boolean("evidence", "compute the approximate log evidence", true);
  return s;
}

MeanFieldOptions options_from(const Params& p, bool tap) {
  MeanFieldOptions o;
  o.refresh_lambda = tap;
  o.solver = p.string("solver") == "paper" ? MeanFieldSolver::paper : MeanFieldSolver::newton;
  o.ftol = p.real("ftol");
  o.eta = p.real("eta");
  o.max_iterations = static_cast<int>(p.integer("max_iterations"));
  if (tap) {
    o.lambda_every = static_cast<int>(p.integer("lambda_every"));
    o.lambda_tol = p.real("lambda_tol");
  }
  return o;
}

}  // namespace

ParamSchema TapEngine::schema() { return mean_field_schema(true); }
TapEngine::TapEngine(const Params& params) : options_(options_from(params, true)) {
  evidence_ = params.boolean("evidence");
}

void TapEngine::check(const Problem& problem, Eigen::Index) const {
  require_dense_memory(problem.data->X_train.rows(), 3, "tap");
}

Results TapEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Likelihood& lik = *problem.likelihood;
  const Observations y = observations(d, DataPart::train, *lik.target_kind(), "tap");
  const Eigen::MatrixXd C = problem.kernel->gram(d.X_train);
  MeanFieldFit fit = solve_mean_field(C, y, lik, options_);
  Results r;
  if (fit.status.code == RunStatus::failed && options_.solver == MeanFieldSolver::newton) {
    // TAP's fixed point is EP's (001 eqs 19, 23, 26, 28-30): where the joint Newton steps fail
    // from u = 0 (the template's zero-inflated Poisson on recreation: "no decrease at step 29"),
    // EP's guarded sweeps reach it, then finish by the same Newton steps from near it. (Steps
    // run out, not_converged, is reported as it is.)
    EpOptions ep;
    ep.max_iterations = std::min(ep.max_iterations, options_.max_iterations);
    MeanFieldFit swept = solve_ep(C, y, lik, ep);
    if (swept.status.code == RunStatus::ok) {
      r.info["fixed_point"] =
          "reached by EP's sweeps after TAP's Newton steps failed: " + fit.status.message;
      fit = std::move(swept);
    }
  }
  add_fit(r, lik, y, fit);
  const SiteSystem sys(C, fit.tau);
  if (evidence_ && fit.status.code == RunStatus::ok) {
    const double lz = log_evidence(lik, y, fit, sys);
    if (std::isfinite(lz)) r.scalars["log_evidence"] = lz;
  }
  add_model_predictions(r, problem, [&] { return ClassifierModel::from_fit(problem, fit, &sys); });
  r.info["method"] = "TAP mean field, 001 Secs. 3-4 (eqs 19, 23, 26, 28-30)";
  r.timings["fit"] = seconds_since(start);
  return r;
}

std::unique_ptr<ResampledModel> TapEngine::prepare_resampling(const Problem& problem) const {
  return make_resampled_classifier(
      problem, "tap",
      observations(*problem.data, DataPart::train, *problem.likelihood->target_kind(), "tap"),
      counted_ep_fit(problem.likelihood, EpOptions{}, "tap"), true);
}

std::vector<std::string> TapEngine::hyperparameter_objectives(const EngineFactory&,
                                                              PriorKind prior) const {
  if (prior == PriorKind::inducing) return {"evidence"};
  return {"evidence", "loo"};
}

std::unique_ptr<HyperparameterObjective> TapEngine::hyperparameter_objective(
    const Problem& problem, const std::string& name) const {
  const MeanFieldOptions o = options_;
  return make_fixed_point_objective(problem, name, "tap",
                                    [o](const EpPrior& prior, const Likelihood& lik,
                                        const Observations& y, const MeanFieldFit* warm) {
                                      return solve_mean_field(*prior.sites().dense(), y, lik, o,
                                                              warm);
                                    });
}

ParamSchema NaiveMeanFieldEngine::schema() { return mean_field_schema(false); }
NaiveMeanFieldEngine::NaiveMeanFieldEngine(const Params& params)
    : options_(options_from(params, false)) {}

void NaiveMeanFieldEngine::check(const Problem& problem, Eigen::Index) const {
  require_dense_memory(problem.data->X_train.rows(), 3, "naive_mean_field");
}

Results NaiveMeanFieldEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Likelihood& lik = *problem.likelihood;
  const Observations y = observations(d, DataPart::train, *lik.target_kind(), "naive_mean_field");
  const Eigen::MatrixXd C = problem.kernel->gram(d.X_train);
  MeanFieldFit fit = solve_mean_field(C, y, lik, options_);
  Results r;
  add_fit(r, lik, y, fit);
  // Leave-one-out of App. D (eqs 47-51): Omega_i = C_ii (1/(t alpha <h>) - 1) (here in the
  // general form lambda Var / (lambda - Var) at lambda = C_ii), then
  // delta<h_i> = -(1/[(Omega + C)^{-1}]_ii - Omega_i) u_i.
  const Eigen::VectorXd shift = posterior_covariance(C, fit.tau).lambda;
  const Eigen::VectorXd loo_mean = fit.mean_field - shift.cwiseProduct(fit.slope);  // eq 51
  r.vectors["cavity_mean"] = loo_mean;
  r.vectors["naive_cavity_mean"] = fit.cavity_mean;  // eq 35 cavity, lambda_i = C_ii
  if (lik.target_kind() == TargetKind::binary) {
    r.scalars["loo_error"] = error_rate(y.y, loo_mean);
    r.scalars["loo_errors"] = static_cast<double>(error_count(y.y, loo_mean));
  }
  // The left-out field's variance as the naive method predicts any input: C_ii (eq 35).
  add_loo_outputs(r, lik, y, loo_mean, fit.cavity_variance);
  add_model_predictions(r, problem, [&] {  // naive: lambda(x) = C(x, x)
    return ClassifierModel::from_fit(problem, fit, nullptr);
  });
  r.info["method"] = "naive mean field, 001 Sec. 6 (eq 35), LOO of App. D (eqs 47-51)";
  r.timings["fit"] = seconds_since(start);
  return r;
}

}  // namespace quench::latent_gp
