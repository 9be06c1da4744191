#include "mean_field.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/QR>

#include "quench/errors.h"

namespace quench::gp_classification {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Cavity means (eq 26) and the fixed-point map of eq 23 at the current alpha, lambda.
struct Sweep {
  Eigen::VectorXd h, m, target, tau;
};
Sweep sweep(const Eigen::MatrixXd& C, const Eigen::VectorXd& t, const Likelihood& lik,
            const Eigen::VectorXd& alpha, const Eigen::VectorXd& lambda) {
  Sweep s;
  s.h = C * t.cwiseProduct(alpha);                         // eq 19
  s.m = s.h - lambda.cwiseProduct(t).cwiseProduct(alpha);  // eq 26
  s.target.resize(t.size());
  s.tau.resize(t.size());
  for (Eigen::Index i = 0; i < t.size(); ++i) {
    const SiteMoments sm = site_moments(lik, t(i), s.m(i), lambda(i));  // eq 23
    s.target(i) = sm.alpha;
    s.tau(i) = sm.tau;  // 1/Omega_i, eqs 29-30
  }
  return s;
}

// Anderson acceleration (depth 5) of the fixed-point map lambda -> eq 28(alpha*(lambda)) in
// log lambda, which alone converges only linearly. The history is cleared whenever the
// residual grows; any lambda > 0 is admissible for the inner Newton solve, so an
// extrapolated step cannot break it.
class AndersonLog {
 public:
  Eigen::VectorXd next(const Eigen::VectorXd& lambda, const Eigen::VectorXd& fresh) {
    const Eigen::VectorXd x = lambda.array().log().matrix(), g = fresh.array().log().matrix();
    const Eigen::VectorXd f = g - x;
    if (!f_.empty() && f.norm() > f_.back().norm()) {
      f_.clear();
      g_.clear();
    }
    f_.push_back(f);
    g_.push_back(g);
    if (f_.size() > 6) {
      f_.erase(f_.begin());
      g_.erase(g_.begin());
    }
    const auto m = static_cast<Eigen::Index>(f_.size()) - 1;
    if (m == 0) return fresh;
    Eigen::MatrixXd dF(f.size(), m), dG(f.size(), m);
    for (Eigen::Index j = 0; j < m; ++j) {
      dF.col(j) = f_[static_cast<std::size_t>(j) + 1] - f_[static_cast<std::size_t>(j)];
      dG.col(j) = g_[static_cast<std::size_t>(j) + 1] - g_[static_cast<std::size_t>(j)];
    }
    const Eigen::VectorXd gamma = dF.colPivHouseholderQr().solve(f);
    const Eigen::VectorXd y = g - dG * gamma;
    if (!y.allFinite()) return fresh;
    return y.array().exp().matrix();
  }

 private:
  std::vector<Eigen::VectorXd> f_, g_;
};

// Newton solver (see MeanFieldSolver::newton). With u = t alpha the alpha equations at fixed
// lambda read F(u) = u - f(m) = 0, m = (C - Lambda) u (eqs 19, 26), f_i = d log Z_i / dm_i
// (eq 23). f' = -tau/(1 + lambda tau) with tau the site precision 1/Omega (eqs 29-30), so the
// Jacobian is diag(1/(1 + lambda tau)) (I + T C) and the Newton step solves
// (I + T C) du = -(1 + lambda tau) F. For a log-concave likelihood the equations are the
// stationarity conditions of a convex function (Hessian >= C), so damped Newton with
// backtracking on |F|^2 converges globally.
MeanFieldFit solve_newton(const Eigen::MatrixXd& C, const Eigen::VectorXd& t, const Likelihood& lik,
                          const MeanFieldOptions& o) {
  const Eigen::Index n = t.size();
  MeanFieldFit fit;
  Eigen::VectorXd alpha = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd lambda = C.diagonal();
  Sweep s = sweep(C, t, lik, alpha, lambda);
  int steps = 0;
  bool converged = false;
  AndersonLog anderson;
  // Newton converges in tens of steps; max_iterations (sized for the paper's iteration)
  // is capped so that a stalled solve is reported instead of running for hours.
  const int max_steps = std::min(o.max_iterations, 2000);
  // Inexact inner solves: while lambda still moves by a relative `change`, the alpha
  // equations are solved only to |F| < 1e-2 change max(1, max alpha); the last inner solve
  // before convergence is to ftol.
  double inner_tol = o.refresh_lambda ? 1e-4 : o.ftol;
  auto residual = [&](const Sweep& sw, const Eigen::VectorXd& a) {
    return Eigen::VectorXd(t.cwiseProduct(a - sw.target));  // F in u = t alpha
  };
  while (!converged && fit.status.code == RunStatus::ok) {
    // Inner loop: the alpha equations at fixed lambda.
    Eigen::VectorXd F = residual(s, alpha);
    double merit = F.squaredNorm();
    // Tolerances on |F|^2 are relative to max(1, max alpha)^2: with a noise-free kernel alpha
    // reaches 1e2-1e3 and an absolute 1e-9 on it is below rounding.
    auto rel = [&] { return std::pow(std::max(1.0, alpha.cwiseAbs().maxCoeff()), 2); };
    while (F.cwiseAbs2().maxCoeff() >= inner_tol * rel()) {
      if (++steps > max_steps) break;
      const SiteSystem sys(C, s.tau);
      const Eigen::VectorXd r = -(1.0 + lambda.array() * s.tau.array()).matrix().cwiseProduct(F);
      const Eigen::VectorXd da = t.cwiseProduct(sys.solve_newton(r));
      double step = 1.0;
      bool accepted = false;
      for (int k = 0; k < 40 && !accepted; ++k, step /= 2) {
        const Eigen::VectorXd trial = alpha + step * da;
        Sweep st = sweep(C, t, lik, trial, lambda);
        const Eigen::VectorXd Ft = residual(st, trial);
        const double mt = Ft.squaredNorm();
        if (std::isfinite(mt) && mt < merit) {
          alpha = trial;
          s = std::move(st);
          F = Ft;
          merit = mt;
          accepted = true;
        }
      }
      if (!accepted) {
        // At the rounding floor a Newton step cannot decrease |F| further.
        if (F.cwiseAbs2().maxCoeff() < 1e6 * o.ftol * rel()) break;
        fit.status = {
            RunStatus::failed,
            "Newton step on the alpha equations found no decrease at step " + std::to_string(steps),
            steps};
        break;
      }
    }
    if (fit.status.code != RunStatus::ok) break;
    if (steps > o.max_iterations) {
      fit.status = {RunStatus::not_converged,
                    "the alpha equations did not converge in " + std::to_string(o.max_iterations) +
                        " Newton steps",
                    o.max_iterations};
      break;
    }
    if (!o.refresh_lambda) {
      converged = true;
      break;
    }
    // Outer loop: eq 28 at the solved alpha.
    const Eigen::VectorXd fresh = SiteSystem(C, s.tau).cavity_variance();
    const double change = ((fresh - lambda).array().abs() / lambda.array().max(1e-300)).maxCoeff();
    lambda = change < o.lambda_tol || !o.anderson ? fresh : anderson.next(lambda, fresh);
    s = sweep(C, t, lik, alpha, lambda);
    if (!std::isfinite(change)) {
      fit.status = {RunStatus::failed, "non-finite cavity variance", steps};
      break;
    }
    ++fit.lambda_refreshes;
    if (change < o.lambda_tol && inner_tol <= o.ftol &&
        residual(s, alpha).cwiseAbs2().maxCoeff() <
            1e6 * o.ftol * std::pow(std::max(1.0, alpha.cwiseAbs().maxCoeff()), 2))
      converged = true;
    const double scale = std::max(1.0, alpha.cwiseAbs().maxCoeff());
    inner_tol =
        change < o.lambda_tol ? o.ftol : std::max(o.ftol, std::pow(1e-2 * change * scale, 2));
  }
  if (converged) fit.status.iterations = steps;
  fit.alpha = alpha;
  fit.mean_field = s.h;
  fit.cavity_mean = s.m;
  fit.cavity_variance = lambda;
  fit.tau = s.tau;
  return fit;
}

}  // namespace

MeanFieldFit solve_mean_field(const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                              const Likelihood& lik, const MeanFieldOptions& o) {
  if (o.solver == MeanFieldSolver::newton) return solve_newton(C, t, lik, o);
  const Eigen::Index n = t.size();
  MeanFieldFit fit;
  Eigen::VectorXd alpha = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd lambda = C.diagonal();  // Sec. 4 start, eq 35 for naive mean field
  double eta = o.eta, previous = std::numeric_limits<double>::infinity();
  bool converged = false;
  int it = 0;
  // Eq 28: lambda_i = 1/[(Omega + C)^{-1}]_ii - Omega_i at the current alpha.
  auto refresh = [&](const Sweep& s) {
    const SiteSystem sys(C, s.tau);
    const Eigen::VectorXd fresh = sys.cavity_variance();
    const double change = ((fresh - lambda).array().abs() / lambda.array().max(1e-300)).maxCoeff();
    lambda = fresh;
    return change;
  };
  Sweep s;
  for (it = 1; it <= o.max_iterations; ++it) {
    s = sweep(C, t, lik, alpha, lambda);
    const Eigen::VectorXd delta = s.target - alpha;
    const double err = delta.squaredNorm();
    if (!std::isfinite(err)) {
      fit.status = {RunStatus::failed, "non-finite alpha update at step " + std::to_string(it), it};
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
    alpha += eta * delta;
    eta = err < previous ? std::min(eta * 1.1, o.eta_max) : eta / 2;  // Sec. 4
    previous = err;
    if (o.refresh_lambda && it % o.lambda_every == 0) refresh(sweep(C, t, lik, alpha, lambda));
  }
  if (!converged && fit.status.code == RunStatus::ok)
    fit.status = {RunStatus::not_converged,
                  "max_i |delta alpha_i|^2 did not fall below ftol in " +
                      std::to_string(o.max_iterations) + " steps",
                  o.max_iterations};
  else if (converged)
    fit.status.iterations = it;
  s = sweep(C, t, lik, alpha, lambda);
  fit.alpha = alpha;
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

Results TapEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Eigen::VectorXd t = class_labels(d.y_train, "tap");
  const Eigen::MatrixXd C = problem.kernel->gram(d.X_train);
  const MeanFieldFit fit = solve_mean_field(C, t, *problem.likelihood, options_);
  Results r;
  add_fit(r, t, fit);
  const SiteSystem sys(C, fit.tau);
  if (evidence_ && fit.status.code == RunStatus::ok && sys.log_concave())
    r.scalars["log_evidence"] = log_evidence(*problem.likelihood, C, t, fit);
  add_predictions(r, problem, t, fit.alpha, &sys);
  r.info["method"] = "TAP mean field, 001 Secs. 3-4 (eqs 19, 23, 26, 28-30)";
  r.timings["fit"] = seconds_since(start);
  return r;
}

ParamSchema NaiveMeanFieldEngine::schema() { return mean_field_schema(false); }
NaiveMeanFieldEngine::NaiveMeanFieldEngine(const Params& params)
    : options_(options_from(params, false)) {}

Results NaiveMeanFieldEngine::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Eigen::VectorXd t = class_labels(d.y_train, "naive_mean_field");
  const Eigen::MatrixXd C = problem.kernel->gram(d.X_train);
  MeanFieldFit fit = solve_mean_field(C, t, *problem.likelihood, options_);
  Results r;
  add_fit(r, t, fit);
  // Leave-one-out of App. D (eqs 47-51): Omega_i = C_ii (1/(t alpha <h>) - 1) (here in the
  // general form lambda Var / (lambda - Var) at lambda = C_ii), then
  // delta<h_i> = -(1/[(Omega + C)^{-1}]_ii - Omega_i) t_i alpha_i.
  const SiteSystem sys(C, fit.tau);
  const Eigen::VectorXd shift = sys.cavity_variance();
  const Eigen::VectorXd loo_mean =
      fit.mean_field - shift.cwiseProduct(t).cwiseProduct(fit.alpha);  // eq 51
  r.vectors["cavity_mean"] = loo_mean;
  r.vectors["naive_cavity_mean"] = fit.cavity_mean;  // eq 35 cavity, lambda_i = C_ii
  r.scalars["loo_error"] = error_rate(t, loo_mean);
  r.scalars["loo_errors"] = r.scalars["loo_error"] * static_cast<double>(t.size());
  add_predictions(r, problem, t, fit.alpha, nullptr);  // naive: lambda(x) = C(x, x)
  r.info["method"] = "naive mean field, 001 Sec. 6 (eq 35), LOO of App. D (eqs 47-51)";
  r.timings["fit"] = seconds_since(start);
  return r;
}

}  // namespace quench::gp_classification
