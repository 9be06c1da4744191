#include "multiclass_ep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

#include <Eigen/Cholesky>

#include "multiclass_model.h"
#include "quench/anderson.h"
#include "quench/cancellation.h"
#include "quench/convergence_progress.h"
#include "quench/errors.h"
#include "quench/printable.h"
#include "quench/smaller_steps.h"
#include "quench/sweep_progress.h"

namespace quench::multiclass {

namespace {

// The sites of every point as one vector: tau (point-major), then nu.
Eigen::VectorXd pack(const std::vector<ClassSite>& sites) {
  const auto n = static_cast<Eigen::Index>(sites.size());
  const Eigen::Index c = n > 0 ? sites.front().tau.size() : 0;
  Eigen::VectorXd x(2 * n * c);
  for (Eigen::Index i = 0; i < n; ++i) {
    x.segment(i * c, c) = sites[static_cast<std::size_t>(i)].tau;
    x.segment((n + i) * c, c) = sites[static_cast<std::size_t>(i)].nu;
  }
  return x;
}

// The inverse of pack, tau clamped at 0 (an extrapolated step may overshoot; the factors'
// sites are >= 0 by construction).
void unpack(const Eigen::VectorXd& x, std::vector<ClassSite>& sites) {
  const auto n = static_cast<Eigen::Index>(sites.size());
  const Eigen::Index c = n > 0 ? sites.front().tau.size() : 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    sites[static_cast<std::size_t>(i)].tau = x.segment(i * c, c).cwiseMax(0.0);
    sites[static_cast<std::size_t>(i)].nu = x.segment((n + i) * c, c);
  }
}

// Pi_i = diag(pi) - pi pi^T / 1^T pi.
Eigen::MatrixXd site_precision(const Eigen::VectorXd& pi) {
  Eigen::MatrixXd P = -pi * pi.transpose() / pi.sum();
  P.diagonal() += pi;
  return P;
}

// The cavity of point i: V = (Sigma_i^{-1} - Pi_i)^{-1}, m = V (Sigma_i^{-1} mu_i - h_i); false
// when Sigma_i^{-1} - Pi_i is not positive definite.
bool cavity(const Eigen::MatrixXd& sigma, const Eigen::VectorXd& mu, const Eigen::VectorXd& pi,
            const Eigen::VectorXd& h, Eigen::VectorXd& m, Eigen::MatrixXd& V) {
  const Eigen::LLT<Eigen::MatrixXd> s(sigma);
  if (s.info() != Eigen::Success) return false;
  const Eigen::Index c = mu.size();
  const Eigen::MatrixXd inv = s.solve(Eigen::MatrixXd::Identity(c, c));
  const Eigen::LLT<Eigen::MatrixXd> lambda(inv - site_precision(pi));
  if (lambda.info() != Eigen::Success) return false;
  V = lambda.solve(Eigen::MatrixXd::Identity(c, c));
  m = V * (inv * mu - h);
  return m.allFinite() && V.allFinite();
}

// The largest change of a posterior mean or marginal variance between sweeps, relative to the
// prior's scale at the point (sqrt K_ii and K_ii): a large amplitude (latents ~1e3 when the
// data are separable) converges to the same relative accuracy as amplitude 1.
double max_change(const ClassPosterior& a, const Eigen::MatrixXd& mean,
                  const Eigen::MatrixXd& marginals, const Eigen::VectorXd& prior_variance) {
  if (a.mean.size() != mean.size()) return std::numeric_limits<double>::infinity();
  const Eigen::Index classes = a.mean.cols();
  double change = 0.0;
  for (Eigen::Index i = 0; i < a.mean.rows(); ++i) {
    const double v = prior_variance(i);
    change = std::max(
        {change, (a.mean.row(i) - mean.row(i)).cwiseAbs().maxCoeff() / std::sqrt(v),
         (a.marginals.middleCols(i * classes, classes) - marginals.middleCols(i * classes, classes))
                 .diagonal()
                 .cwiseAbs()
                 .maxCoeff() /
             v});
  }
  return change;
}

// Cavities of every point at `fit.posterior`, and the new sites by `inner_sweeps` inner sweeps
// (into `fit.sites` with damping, or left alone when damping = 0, for the final log Z_i).
void update_sites(const Eigen::VectorXi& y, const ClassLikelihood& lik, int inner_sweeps,
                  double damping, MulticlassFit& fit) {
  const Eigen::Index n = y.size(), classes = fit.posterior.mean.cols();
  Eigen::MatrixXd pi, h;
  site_forms(y, fit.sites, pi, h);
  fit.cavity_mean.resize(n, classes);
  fit.cavity_covariance.resize(classes, classes * n);
  fit.site_log_z.resize(n);
  fit.skipped = 0;
  Eigen::VectorXd m;
  Eigen::MatrixXd V;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::MatrixXd sigma = fit.posterior.marginals.middleCols(i * classes, classes);
    if (!cavity(sigma, fit.posterior.mean.row(i).transpose(), pi.row(i).transpose(),
                h.row(i).transpose(), m, V)) {
      ++fit.skipped;  // GPstuff's rule: a site whose cavity is not a Gaussian keeps its value
      fit.site_log_z(i) = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    fit.cavity_mean.row(i) = m.transpose();
    fit.cavity_covariance.middleCols(i * classes, classes) = V;
    ClassSite& site = fit.sites[static_cast<std::size_t>(i)];
    ClassSite next = site;
    fit.site_log_z(i) = lik.match_site(y(i), m, V, next, inner_sweeps);
    if (damping > 0) {
      site.tau = (1.0 - damping) * site.tau + damping * next.tau;
      site.nu = (1.0 - damping) * site.nu + damping * next.nu;
    }
  }
}

}  // namespace

void site_forms(const Eigen::VectorXi& y, const std::vector<ClassSite>& sites, Eigen::MatrixXd& pi,
                Eigen::MatrixXd& h) {
  const auto n = static_cast<Eigen::Index>(sites.size());
  const Eigen::Index classes = sites.empty() ? 0 : sites.front().tau.size();
  pi.resize(n, classes);
  h.resize(n, classes);
  for (Eigen::Index i = 0; i < n; ++i) {
    const ClassSiteForm f = class_site_form(y(i), sites[static_cast<std::size_t>(i)]);
    pi.row(i) = f.pi.transpose();
    h.row(i) = f.h.transpose();
  }
}

void posterior_site_forms(const Eigen::VectorXi& y, const MulticlassFit& fit, Eigen::MatrixXd& pi,
                          Eigen::MatrixXd& h) {
  site_forms(y, fit.sites, pi, h);
  if (fit.counts.size() == 0) return;
  pi = fit.counts.asDiagonal() * pi;
  h = fit.counts.asDiagonal() * h;
}

MulticlassFit solve_multiclass_ep(const ClassGrams& K, const Eigen::VectorXi& y,
                                  Eigen::Index classes, const ClassLikelihood& lik,
                                  const MulticlassEpOptions& o, const MulticlassFit* warm_start,
                                  const Eigen::VectorXd& counts) {
  return solve_multiclass_ep(DenseClassPrior(K), y, classes, lik, o, warm_start, counts);
}

namespace {

// A warm start is worth less than none once a sweep from it moves some posterior mean by more
// than this many prior sds (or a variance by this fraction of the prior's): sweeps from zero sites
// change the posterior by ~2 at first and settle from there, while on glass (learning the width
// and amplitude by evidence) warm starts that a line search carried to amplitude 1e4 grew to a
// change of 20-64 and took 76-87 sweeps against 20-28 from zero sites.
constexpr double kWarmStartReach = 1.0;

// One attempt at the fixed point at o.damping (solve_multiclass_ep tries smaller steps). From a
// warm start, an attempt whose change exceeds kWarmStartReach stops early, not converged.
MulticlassFit sweep_to_fixed_point(const ClassPrior& prior, const Eigen::VectorXi& y,
                                   Eigen::Index classes, const ClassLikelihood& lik,
                                   const MulticlassEpOptions& o, const MulticlassFit* warm_start,
                                   const Eigen::VectorXd& counts) {
  const Eigen::Index n = y.size();
  MulticlassFit fit;
  fit.counts = counts;
  fit.sites = warm_start
                  ? warm_start->sites
                  : std::vector<ClassSite>(static_cast<std::size_t>(n), ClassSite::zero(classes));
  // Parallel nested EP as a map on the sites x = (tau, nu) of every point: the posterior of x
  // (C + 1 factorizations), then every site matched at its cavity by the inner EP. The map's
  // fixed point is the EP fixed point; Anderson mixing (quench/anderson.h, beta = damping)
  // changes only the path. A step that breaks the posterior or multiplies the change by 1e3 is
  // undone as in ep.cpp: back to the last sound iterate, half its plain step, a new history.
  AndersonAccelerator mixing({o.acceleration_depth, 1e-10, o.damping, 1.0});
  ConvergenceProgress bar(o.progress, o.tol);
  Eigen::MatrixXd previous_mean, previous_marginals, pi, h;
  Eigen::VectorXd x = pack(fit.sites), sound, sound_image;
  // Single precision while far from the fixed point (class_posterior), as parallel EP does.
  SweepProgress progress(o.first_precision);
  const Eigen::VectorXd prior_variance = prior.variance().cwiseMax(1e-300);
  bool converged = false;
  double last = std::numeric_limits<double>::infinity();
  int it = 0, undone = 0;
  for (it = 1; it <= o.max_iterations; ++it) {
    throw_if_stop_requested();
    posterior_site_forms(y, fit, pi, h);
    std::string failure;
    try {
      fit.posterior = prior.posterior(pi, h, progress.precision());
      if (!fit.posterior.mean.allFinite() || !fit.posterior.marginals.allFinite())
        failure = "non-finite posterior";
    } catch (const NumericalError& e) {
      failure = e.what();
    }
    const double change = failure.empty() ? max_change(fit.posterior, previous_mean,
                                                       previous_marginals, prior_variance)
                                          : std::numeric_limits<double>::infinity();
    if (!failure.empty() || (std::isfinite(last) && change > 1e3 * last)) {
      if (!failure.empty() && progress.precision() == Precision::single) {  // retried in double
        progress.use_double();
        --it;
        continue;
      }
      if (sound.size() == 0 || ++undone > kGiveUpSweeps) {
        fit.status = {
            RunStatus::failed,
            "multiclass EP sweep " + std::to_string(it) + ": " +
                (failure.empty() ? "the change grew 1000-fold" : failure) +
                (sound.size() ? " (after " + std::to_string(undone - 1) + " retries)" : ""),
            it};
        return fit;
      }
      mixing.reset();
      x = sound + 0.5 * (sound_image - sound);
      sound_image = x;  // taken again only after a sound sweep from x
      unpack(x, fit.sites);
      last = std::numeric_limits<double>::infinity();
      continue;
    }
    undone = 0;
    if (warm_start && change > kWarmStartReach && std::isfinite(change)) {
      fit.status = {RunStatus::not_converged,
                    "multiclass EP: sweep " + std::to_string(it) +
                        " from the warm start moved the posterior by " + format_number(change) +
                        " prior sds, and no sweeps were left to start from zero sites",
                    it};
      return fit;
    }
    if (std::isfinite(change)) bar.report(change);
    last = change;
    // Double precision from here on (a new history) once close, or once single precision stops
    // making progress (its rounding floor), as in ep.cpp. At the rounding floor the change stops
    // decreasing (large latents: |mu| ~ 1e2 leaves ~1e-12 relative); a fixed point stalled
    // within 100 tol counts as converged, as in ep.
    if (progress.record(change)) mixing.reset();
    if (progress.converged(change, o.tol)) {
      converged = true;
      break;
    }
    if (progress.stuck()) {
      fit.status = {RunStatus::not_converged,
                    "multiclass EP stalled at a change of " + format_number(progress.best()) +
                        " per sweep (tol " + format_number(o.tol) + ") after " +
                        std::to_string(it) + " sweeps",
                    it};
      break;
    }
    previous_mean = fit.posterior.mean;
    previous_marginals = fit.posterior.marginals;
    sound = pack(fit.sites);
    update_sites(y, lik, o.inner_sweeps, 1.0, fit);  // the map's image
    sound_image = pack(fit.sites);
    x = mixing.next(sound, sound_image);
    unpack(x, fit.sites);
  }
  if (it > o.max_iterations) {  // the last sweep moved the sites: the posterior of the sites
    posterior_site_forms(y, fit, pi, h);
    try {
      fit.posterior = prior.posterior(pi, h, Precision::full);
    } catch (const NumericalError& e) {
      fit.status = {RunStatus::failed, e.what(), it};
      return fit;
    }
  }
  // The cavities and the inner log Z_i at the final sites (not changed).
  update_sites(y, lik, o.inner_sweeps, 0.0, fit);
  if (converged) {
    fit.status.iterations = it;
    bar.finish();
  } else if (fit.status.code == RunStatus::ok) {
    fit.status = {
        RunStatus::not_converged,
        "multiclass EP did not converge in " + std::to_string(o.max_iterations) + " sweeps",
        o.max_iterations};
  }
  if (fit.skipped > 0 && fit.status.code == RunStatus::ok)
    fit.status = {RunStatus::not_converged,
                  std::to_string(fit.skipped) + " sites have no Gaussian cavity at the end", it};
  return fit;
}

}  // namespace

// Parallel nested EP cycles where its steps are too long: plain undamped sweeps on glass
// (damping 1, no mixing) stall at a change of 0.15-0.54 per sweep after 41-316 sweeps at
// amplitudes 1e2 and 1e4, and converge in 74-80 sweeps at damping 1/2. As solve_ep does, a fit
// that does not converge is tried again from zero sites with half the damping.
MulticlassFit solve_multiclass_ep(const ClassPrior& prior, const Eigen::VectorXi& y,
                                  Eigen::Index classes, const ClassLikelihood& lik,
                                  const MulticlassEpOptions& options,
                                  const MulticlassFit* warm_start, const Eigen::VectorXd& counts) {
  if (counts.size() != 0 && (counts.size() != y.size() || !(counts.array() >= 1.0).all() ||
                             !(counts.array() == counts.array().floor()).all()))
    throw std::invalid_argument(
        "solve_multiclass_ep: counts must be whole numbers >= 1, one "
        "per point");
  return solve_with_smaller_steps(options, [&](const MulticlassEpOptions& o, bool first) {
    const MulticlassFit* start = first ? warm_start : nullptr;
    MulticlassFit fit = sweep_to_fixed_point(prior, y, classes, lik, o, start, counts);
    if (!start || fit.status.code == RunStatus::ok) return fit;
    // A warm start that was dropped or failed: from zero sites at the same damping, with the
    // sweeps that remain (then smaller steps, as any fit).
    const int spent = fit.status.iterations;
    MulticlassEpOptions rest = o;
    rest.max_iterations = o.max_iterations - spent;
    if (rest.max_iterations < 1) return fit;
    fit = sweep_to_fixed_point(prior, y, classes, lik, rest, nullptr, counts);
    fit.status.iterations += spent;
    return fit;
  });
}

void require_points_once(const MulticlassFit& fit, const char* what) {
  if (fit.counts.size() != 0)
    throw std::invalid_argument(std::string(what) + ": a fit on counted points");
}

double multiclass_log_evidence(const Eigen::VectorXi& y, const MulticlassFit& fit) {
  require_points_once(fit, "multiclass_log_evidence");
  const ClassPosterior& post = fit.posterior;
  const Eigen::Index n = y.size(), classes = post.mean.cols();
  Eigen::MatrixXd pi, h;
  site_forms(y, fit.sites, pi, h);
  double lz = 0.5 * h.cwiseProduct(post.mean).sum() - 0.5 * post.log_det;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::LLT<Eigen::MatrixXd> s(post.marginals.middleCols(i * classes, classes));
    const Eigen::LLT<Eigen::MatrixXd> v(fit.cavity_covariance.middleCols(i * classes, classes));
    const Eigen::VectorXd mu = post.mean.row(i).transpose(), m = fit.cavity_mean.row(i).transpose();
    const auto log_det = [](const Eigen::LLT<Eigen::MatrixXd>& f) {
      return 2.0 * f.matrixLLT().diagonal().array().log().sum();
    };
    lz += fit.site_log_z(i) + 0.5 * m.dot(v.solve(m)) + 0.5 * log_det(v) -
          0.5 * mu.dot(s.solve(mu)) - 0.5 * log_det(s);
  }
  return lz;
}

Eigen::MatrixXd multiclass_mean_weights(const Eigen::VectorXi& y, const MulticlassFit& fit) {
  Eigen::MatrixXd pi, h;
  posterior_site_forms(y, fit, pi, h);
  const Eigen::MatrixXd& mu = fit.posterior.mean;
  // b_i = h_i - Pi_i mu_i = h_i - pi_i o mu_i + pi_i (pi_i^T mu_i) / 1^T pi_i.
  const Eigen::VectorXd shift =
      pi.cwiseProduct(mu).rowwise().sum().cwiseQuotient(pi.rowwise().sum());
  return h - pi.cwiseProduct(mu) + pi.cwiseProduct(shift.replicate(1, pi.cols()));
}

std::vector<Eigen::MatrixXd> multiclass_evidence_weights(const Eigen::VectorXi& y,
                                                         const MulticlassFit& fit, bool per_class) {
  require_points_once(fit, "multiclass_evidence_weights");
  const Eigen::MatrixXd b = multiclass_mean_weights(y, fit);
  std::vector<Eigen::MatrixXd> W =
      coupling_diagonal_blocks(std::get<ClassCoupling>(fit.posterior.coupling), per_class);
  if (per_class)
    for (std::size_t c = 0; c < W.size(); ++c) {
      const auto column = static_cast<Eigen::Index>(c);
      W[c].noalias() -= b.col(column) * b.col(column).transpose();
    }
  else
    W.front().noalias() -= b * b.transpose();  // sum_c b_c b_c^T
  for (Eigen::MatrixXd& w : W) w *= -0.5;
  return W;
}

}  // namespace quench::multiclass
