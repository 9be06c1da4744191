#include "hyperparameter_objectives.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <Eigen/LU>

#include "quench/errors.h"

namespace quench::latent_gp {

namespace {

ObjectiveValue failure(Status status) {
  ObjectiveValue v;
  v.value = std::numeric_limits<double>::quiet_NaN();
  v.status = std::move(status);
  if (v.status.code == RunStatus::ok) v.status.code = RunStatus::failed;
  return v;
}

// `evaluate()`, or a failed status where its prior, its fixed point or a site's moments cannot be
// formed (a factorization that fails, a tilted density at an absurd cavity): the optimizer steps
// back from such a point as from an unconverged fit, instead of the run ending.
template <class Evaluate>
ObjectiveValue unless_numerical_failure(Evaluate&& evaluate) {
  try {
    return evaluate();
  } catch (const NumericalError& error) {
    return failure({RunStatus::failed, error.what(), 0});
  }
}

// First and second derivatives at 0 of phi(h) from its values at -2h, -h, 0, h, 2h (5-point
// stencils, error O(h^4)).
template <class V>
std::pair<V, V> stencil(const V (&p)[5], double h) {
  return {V((p[0] - 8.0 * p[1] + 8.0 * p[3] - p[4]) / (12.0 * h)),
          V((-p[0] + 16.0 * p[1] - 30.0 * p[2] + 16.0 * p[3] - p[4]) / (12.0 * h * h))};
}

// One site of the EP fixed-point map G: (m, lambda) -> (tau, nu) = (-k/D, (f - m k)/D),
// D = 1 + lambda k, f = d log Z / dm, k = d^2 log Z / dm^2 (the site update of EP; 001 eqs
// 23, 29-30), with its derivatives in m and lambda, and in theta_lik.
struct SiteJacobian {
  double f = 0.0, k = 0.0;                        // d log Z / dm, d^2 log Z / dm^2
  double tm = 0.0, tl = 0.0, nm = 0.0, nl = 0.0;  // dtau/dm, dtau/dlambda, dnu/dm, dnu/dlambda
  Eigen::VectorXd g, tth, nth;                    // d log Z/dtheta, dtau/dtheta, dnu/dtheta
};

SiteJacobian site_jacobian(const Likelihood& lik, const Observation& y, double m, double l,
                           bool with_lik) {
  // k' = dk/dm, k'' by stencils on the closed-form k; the lambda-derivatives by the heat
  // equation of the Gaussian cavity, d log Z / dlambda = (k + f^2)/2:
  //   f_lambda = k'/2 + f k,   k_lambda = k''/2 + k^2 + f k'.
  // The step follows the scale on which log Z varies in m, sqrt(lambda + sigma^2) / max(1, |z|)
  // (|z| <= |m| / sqrt(lambda)): 0.005 of it balances the O(h^4) truncation against rounding
  // (~1e-14 relative in k over h^2); with a step 4x larger, a 24-point set showed errors of 4e-6
  // relative in the gradient, with this one ~1e-8 (the entries for the kernel's and the
  // probit's noise, equal in exact arithmetic, agree to ~1e-8).
  const double h = 0.005 * std::sqrt(l) / std::max(1.0, std::fabs(m) / std::sqrt(l));
  double k5[5];
  Eigen::VectorXd g5[5];
  SiteJacobian s;
  for (int j = 0; j < 5; ++j) {
    const double mm = m + (j - 2) * h;
    const TiltedMoments tm = lik.tilted_moments(y, mm, l);
    k5[j] = (tm.variance - l) / (l * l);
    if (j == 2) s.f = (tm.mean - m) / l;
    if (with_lik) g5[j] = lik.d_log_tilted_normalizer(y, mm, l);
  }
  s.k = k5[2];
  const auto [k1, k2] = stencil(k5, h);
  const double f = s.f, k = s.k, D = 1.0 + l * k, D2 = D * D;
  const double fl = 0.5 * k1 + f * k, kl = 0.5 * k2 + k * k + f * k1;
  s.tm = -k1 / D2;
  s.tl = -(0.5 * k2 + f * k1) / D2;
  s.nm = -k1 * (m + l * f) / D2;
  s.nl = ((fl - m * kl) * D - (f - m * k) * (k + l * kl)) / D2;
  if (with_lik) {
    s.g = g5[2];
    const auto [gf, gk] = stencil(g5, h);  // df/dtheta, dk/dtheta
    s.tth = -gk / D2;
    s.nth = ((gf - m * gk) * D - (f - m * k) * l * gk) / D2;
  }
  return s;
}

}  // namespace

Eigen::VectorXd likelihood_gradient(const Likelihood& lik, const Observations& y,
                                    const MeanFieldFit& fit) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(flat_size(lik.hyperparameters()));
  if (g.size() == 0) return g;
  for (Eigen::Index i = 0; i < y.rows(); ++i)
    g += lik.d_log_tilted_normalizer(y[i], fit.cavity_mean(i), fit.cavity_variance(i));
  return g;
}

MeanFieldFit WarmStartedFixedPoint::solve(
    const std::function<MeanFieldFit(const MeanFieldFit* warm_start)>& solve_from) {
  MeanFieldFit fit;
  if (previous_) fit = solve_from(&*previous_);
  if (!previous_ || fit.status.code != RunStatus::ok) fit = solve_from(nullptr);
  latest_.reset();
  if (fit.status.code == RunStatus::ok) (rated_ ? latest_ : previous_) = fit;
  return fit;
}

void WarmStartedFixedPoint::rate(double value) {
  if (!std::isfinite(value)) {  // no fit to start from
    latest_.reset();
    return;
  }
  if (!rated_) {  // the fit just solved is in previous_: the first rated
    rated_ = true;
    best_ = value;
    return;
  }
  if (latest_ && value > best_) {
    best_ = value;
    previous_ = std::move(latest_);
  }
  latest_.reset();
}

EvidenceObjective::EvidenceObjective(Eigen::MatrixXd X, Observations y,
                                     std::optional<InducingInputs> inducing, FixedPointSolver solve)
    : X_(std::move(X)),
      y_(std::move(y)),
      inducing_(std::move(inducing)),
      solve_(std::move(solve)) {}

ObjectiveValue EvidenceObjective::evaluate(const Kernel& kernel, const Likelihood& likelihood) {
  return unless_numerical_failure([&] {
    const auto prior = make_ep_prior(kernel, X_, inducing_ ? &*inducing_ : nullptr);
    const MeanFieldFit fit = fixed_point_.solve(
        [&](const MeanFieldFit* warm_start) { return solve_(*prior, likelihood, y_, warm_start); });
    if (fit.status.code != RunStatus::ok) return failure(fit.status);
    const EpEvidence e = prior->evidence(kernel, likelihood, y_, fit, true);
    if (!std::isfinite(e.value))
      return failure({RunStatus::failed, e.failure, fit.status.iterations});
    if (prior->warm_start_from_best()) fixed_point_.rate(e.value);
    ObjectiveValue v;
    v.value = e.value;
    const Eigen::VectorXd gl = likelihood_gradient(likelihood, y_, fit);
    v.gradient.resize(e.kernel_gradient.size() + gl.size());
    v.gradient << e.kernel_gradient, gl;
    v.status.iterations = fit.status.iterations;
    return v;
  });
}

LooObjective::LooObjective(Eigen::MatrixXd X, Observations y, FixedPointSolver solve)
    : X_(std::move(X)), y_(std::move(y)), solve_(std::move(solve)) {}

ObjectiveValue LooObjective::evaluate(const Kernel& kernel, const Likelihood& likelihood) {
  return unless_numerical_failure([&] { return value_and_gradient(kernel, likelihood); });
}

ObjectiveValue LooObjective::value_and_gradient(const Kernel& kernel,
                                                const Likelihood& likelihood) {
  const auto prior = make_ep_prior(kernel, X_, nullptr);
  const Eigen::MatrixXd& C = *prior->sites().dense();
  const MeanFieldFit fit = fixed_point_.solve(
      [&](const MeanFieldFit* warm_start) { return solve_(*prior, likelihood, y_, warm_start); });
  if (fit.status.code != RunStatus::ok) return failure(fit.status);
  const Eigen::Index n = y_.rows(), pk = flat_size(kernel.hyperparameters()),
                     pl = flat_size(likelihood.hyperparameters());
  const double inv_n = 1.0 / static_cast<double>(n);
  const Eigen::VectorXd& m = fit.cavity_mean;
  const Eigen::VectorXd& lam = fit.cavity_variance;
  ObjectiveValue v;
  v.value = 0.0;
  std::vector<SiteJacobian> sites;
  for (Eigen::Index i = 0; i < n; ++i) {
    sites.push_back(site_jacobian(likelihood, y_[i], m(i), lam(i), pl > 0));
    v.value += inv_n * likelihood.tilted_moments(y_[i], m(i), lam(i)).log_z;
  }
  v.status.iterations = fit.status.iterations;
  if (!std::isfinite(v.value))
    return failure({RunStatus::failed, "the LOO log predictive probability is not finite",
                    fit.status.iterations});
  v.gradient = Eigen::VectorXd::Zero(pk + pl);
  if (pk + pl == 0) return v;
  // Sites x = (tau, nu), posterior Sigma = (C^{-1} + T)^{-1}, mu = Sigma nu; cavities
  // lambda_i = 1/(1/Sigma_ii - tau_i), m_i = lambda_i (mu_i / Sigma_ii - nu_i) (eqs 26, 28).
  const Eigen::VectorXd& tau = fit.tau;
  const Eigen::VectorXd nu = site_nu(fit);
  const Eigen::MatrixXd S = posterior_covariance(C, tau).sigma;
  const Eigen::VectorXd mu = S * nu, sd = S.diagonal();
  // c_x: dlambda/dtau, dm/dtau, dm/dnu (dlambda/dnu = 0).
  Eigen::MatrixXd lt(n, n), mt(n, n), mn(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i) {
      const double r = S(i, j) / sd(i), l = lam(i), dij = i == j ? 1.0 : 0.0;
      lt(i, j) = l * l * (dij - r * r);
      mt(i, j) = (m(i) / l) * lt(i, j) + l * r * (mu(i) * r - mu(j));
      mn(i, j) = l * (r - dij);
    }
  // dL/dc: dL/dm_i = f_i / N, dL/dlambda_i = (k_i + f_i^2) / (2N); G_c per site.
  Eigen::VectorXd Lm(n), Ll(n), Gtm(n), Gtl(n), Gnm(n), Gnl(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const SiteJacobian& s = sites[i];
    Lm(i) = inv_n * s.f;
    Ll(i) = 0.5 * inv_n * (s.k + s.f * s.f);
    Gtm(i) = s.tm;
    Gtl(i) = s.tl;
    Gnm(i) = s.nm;
    Gnl(i) = s.nl;
  }
  // F_x = I - G_c c_x in blocks (tau, nu) x (tau, nu); the adjoint F_x^T y = c_x^T dL/dc.
  Eigen::MatrixXd F(2 * n, 2 * n);
  F.topLeftCorner(n, n) = -(Gtm.asDiagonal() * mt + Gtl.asDiagonal() * lt);
  F.topRightCorner(n, n) = -(Gtm.asDiagonal() * mn);
  F.bottomLeftCorner(n, n) = -(Gnm.asDiagonal() * mt + Gnl.asDiagonal() * lt);
  F.bottomRightCorner(n, n) = -(Gnm.asDiagonal() * mn);
  F.diagonal().array() += 1.0;
  Eigen::VectorXd rhs(2 * n);
  rhs << mt.transpose() * Lm + lt.transpose() * Ll, mn.transpose() * Lm;
  const Eigen::VectorXd y = Eigen::PartialPivLU<Eigen::MatrixXd>(F.transpose()).solve(rhs);
  if (!y.allFinite())
    return failure({RunStatus::failed, "the adjoint system of the LOO gradient is singular",
                    fit.status.iterations});
  const Eigen::VectorXd yt = y.head(n), yn = y.tail(n);
  if (pk > 0) {
    // a = dL/dc + y^T G_c; the kernel part sum_i a_m,i dm_i + a_lambda,i dlambda_i at fixed
    // sites, with dlambda_i = lambda_i^2 dSigma_ii / Sigma_ii^2, dm_i = lambda_i dmu_i / Sigma_ii
    // + lambda_i (m_i - mu_i) dSigma_ii / Sigma_ii^2, is sum_ab W_ab dC_ab with
    // W = P^T diag(d) P + sym(P^T b u^T).
    const Eigen::ArrayXd am = Lm.array() + Gtm.array() * yt.array() + Gnm.array() * yn.array();
    const Eigen::ArrayXd al = Ll.array() + Gtl.array() * yt.array() + Gnl.array() * yn.array();
    const Eigen::VectorXd d =
        ((al * lam.array().square() + am * lam.array() * (m - mu).array()) / sd.array().square())
            .matrix();
    const Eigen::VectorXd b = (am * lam.array() / sd.array()).matrix();
    Eigen::MatrixXd P = -(S * tau.asDiagonal());
    P.diagonal().array() += 1.0;
    const Eigen::VectorXd& u = fit.slope;
    const Eigen::VectorXd pb = P.transpose() * b;
    Eigen::MatrixXd W = P.transpose() * d.asDiagonal() * P;
    W.noalias() += 0.5 * (pb * u.transpose() + u * pb.transpose());
    v.gradient.head(pk) = kernel.gram_derivative_contractions(X_, W);
  }
  for (Eigen::Index i = 0; i < n && pl > 0; ++i) {
    const SiteJacobian& s = sites[i];
    v.gradient.tail(pl) += inv_n * s.g + yt(i) * s.tth + yn(i) * s.nth;
  }
  if (!v.gradient.allFinite())
    return failure({RunStatus::failed, "the LOO gradient is not finite", fit.status.iterations});
  return v;
}

std::unique_ptr<HyperparameterObjective> make_fixed_point_objective(const Problem& problem,
                                                                    const std::string& name,
                                                                    const char* engine,
                                                                    FixedPointSolver solve) {
  const Dataset& d = *problem.data;
  Observations y = observations(d, DataPart::train, *problem.likelihood->target_kind(), engine);
  if (name == "evidence")
    return std::make_unique<EvidenceObjective>(
        d.X_train, std::move(y),
        problem.inducing ? std::optional<InducingInputs>(*problem.inducing) : std::nullopt,
        std::move(solve));
  if (name == "loo" && problem.inducing)
    throw ConfigError({}, std::string(engine) +
                              ": no hyperparameter objective 'loo' on the inducing-point prior "
                              "(it has: evidence)");
  if (name == "loo")
    return std::make_unique<LooObjective>(d.X_train, std::move(y), std::move(solve));
  throw ConfigError({}, std::string(engine) + ": no hyperparameter objective '" + name +
                            "' (it has: evidence, loo)");
}

}  // namespace quench::latent_gp
