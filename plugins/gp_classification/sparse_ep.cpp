#include "sparse_ep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include <Eigen/Cholesky>

#include "classifier_model.h"
#include "quench/errors.h"
#include "quench/low_rank_evidence.h"

namespace quench::gp_classification {

namespace {

// A site the likelihood barely tilts has tau_i = (lambda_i - Var_i) / (lambda_i Var_i) at the
// rounding of Var_i (0 or +-1e-17 / lambda_i: the step at z > 8.3), where the dense evidence
// drops it or nearly so; here 1/tau_i must be finite and positive. Such sites (|tau_i| <
// 1e-12 / C~_ii) take tau_i = 1e-12 / C~_ii, which changes their factor in Z by a relative
// ~1e-12 E[(h_i - mu~_i)^2] / C~_ii.
MeanFieldFit floor_flat_sites(const SparseSitePrior& prior, const MeanFieldFit& fit) {
  MeanFieldFit sites = fit;
  const Eigen::VectorXd floor = 1e-12 * prior.variance().cwiseInverse();
  for (Eigen::Index i = 0; i < sites.tau.size(); ++i)
    if (std::fabs(sites.tau(i)) < floor(i)) sites.tau(i) = floor(i);
  return sites;
}

// sum_i [site_evidence_terms + 1/2 log(2 pi / tau_i)]: log Z_EP beyond log N(mu~ | 0, C~ + Omega).
double site_terms(const Likelihood& lik, const Eigen::VectorXd& t, const MeanFieldFit& fit) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < t.size(); ++i)
    sum += site_evidence_terms(lik, t(i), fit.cavity_mean(i), fit.cavity_variance(i), fit.tau(i),
                               fit.alpha(i)) +
           0.5 * std::log(2.0 * M_PI / fit.tau(i));
  return sum;
}

// The Gaussian model of the sites: y = mu~ = nu / tau, phi = 1/tau + v2 on K~ (v2 enters C~).
std::pair<Eigen::VectorXd, Eigen::VectorXd> site_gaussian(const SparseSitePrior& prior,
                                                          const Eigen::VectorXd& t,
                                                          const MeanFieldFit& fit) {
  return {site_nu(t, fit).cwiseQuotient(fit.tau), (1.0 / fit.tau.array() + prior.noise()).matrix()};
}

}  // namespace

SparseSitePrior::SparseSitePrior(const Kernel& kernel, const Eigen::MatrixXd& X,
                                 const InducingInputs& inducing)
    : prior_(kernel, X, inducing),
      noise_(kernel.diagonal_noise()),
      diagonal_((prior_.diagonal_correction().array() + noise_).matrix()),
      variance_(diagonal_ + prior_.factor().rowwise().squaredNorm()) {}

// docs/large_n.md §2: LowRankPrior::posterior_covariance with the latent noise v2 on the
// diagonal.
SparseSitePrior::SitePosterior SparseSitePrior::posterior(const Eigen::VectorXd& tau) const {
  SitePosterior p;
  p.covariance = prior_.posterior_covariance(tau, noise_, &p.b_lower);
  return p;
}

EpPrior SparseSitePrior::ep_prior() const {
  return {variance_,
          [this](const Eigen::VectorXd& v) -> Eigen::VectorXd {
            return diagonal_.cwiseProduct(v) + prior_.factor() * (prior_.factor().transpose() * v);
          },
          [this](const Eigen::VectorXd& tau, const Eigen::VectorXd& nu, Precision) {
            const DiagonalPlusLowRank G = posterior(tau).covariance;
            PosteriorCovariance p;
            Eigen::VectorXd diag = G.diagonal();
            p.b = (1.0 - tau.array() * diag.array()).matrix();  // 1 - tau_i Sigma_ii
            cavities_from_marginals(variance_, diag, p);        // eq 28
            p.mean = G.times(nu);                               // mu = Sigma nu
            return p;
          },
          Precision::full};
}

Eigen::MatrixXd SparseSitePrior::dense() const {
  Eigen::MatrixXd C = prior_.dense();
  C.diagonal().array() += noise_;
  return C;
}

MeanFieldFit solve_sparse_ep(const SparseSitePrior& prior, const Eigen::VectorXd& t,
                             const Likelihood& lik, const EpOptions& options,
                             const MeanFieldFit* warm_start) {
  return solve_ep(
      prior.ep_prior(), t,
      [&](Eigen::Index i, double m, double v) { return lik.tilted_moments(t(i), m, v); }, options,
      warm_start);
}

// log Z_EP (the TAP free energy of 003 eqs 11-13) through the sites' Gaussian model.
double sparse_log_evidence(const SparseSitePrior& prior, const Likelihood& lik,
                           const Eigen::VectorXd& t, const MeanFieldFit& fit) {
  const MeanFieldFit sites = floor_flat_sites(prior, fit);
  if (!(sites.tau.array() > 0.0).all()) return std::numeric_limits<double>::quiet_NaN();
  const auto [y, phi] = site_gaussian(prior, t, sites);
  return low_rank_gaussian_posterior(prior.low_rank(), y, phi).log_density +
         site_terms(lik, t, sites);
}

LowRankPredictor sparse_predictor(const SparseSitePrior& prior, const Eigen::VectorXd& t,
                                  const MeanFieldFit& fit) {
  const LowRankPrior& p = prior.low_rank();
  return {p.inducing_inputs(), p.inducing_cholesky().lower(),
          p.factor().transpose() * t.cwiseProduct(fit.alpha), prior.posterior(fit.tau).b_lower,
          p.form()};
}

Results run_sparse_ep(const Problem& problem, const EpOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Eigen::VectorXd t = class_labels(d, DataPart::train, "ep");
  const SparseSitePrior prior(*problem.kernel, d.X_train, *problem.inducing);
  const MeanFieldFit fit = solve_sparse_ep(prior, t, *problem.likelihood, options);
  Results r;
  add_fit(r, *problem.likelihood, t, fit);
  if (fit.status.code == RunStatus::ok) {
    const double lz = sparse_log_evidence(prior, *problem.likelihood, t, fit);
    if (std::isfinite(lz)) r.scalars["log_evidence"] = lz;
  }
  try {
    add_model_predictions(r, problem, [&] {
      return std::make_shared<const LowRankClassifierModel>(problem.kernel, problem.likelihood,
                                                            sparse_predictor(prior, t, fit));
    });
  } catch (const NumericalError& error) {
    // Sites of a fit that stopped short (status not ok) whose G cannot be formed.
    if (fit.status.code == RunStatus::ok) throw;
    r.info["test_predictions"] = std::string("none: ") + error.what();
  }
  r.info["method"] = "expectation propagation on the inducing-point prior (" +
                     to_string(problem.inducing->form) +
                     ", M = " + std::to_string(prior.low_rank().rank()) + "; parallel sweeps)";
  r.timings["fit"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

SparseEvidenceObjective::SparseEvidenceObjective(Eigen::MatrixXd X, Eigen::VectorXd t,
                                                 InducingInputs inducing, EpOptions options)
    : X_(std::move(X)), t_(std::move(t)), inducing_(std::move(inducing)), options_(options) {}

ObjectiveValue SparseEvidenceObjective::evaluate(const Kernel& kernel,
                                                 const Likelihood& likelihood) {
  ObjectiveValue v;
  v.value = std::numeric_limits<double>::quiet_NaN();
  try {
    const SparseSitePrior prior(kernel, X_, inducing_);
    const MeanFieldFit fit = fixed_point_.solve([&](const MeanFieldFit* warm_start) {
      return solve_sparse_ep(prior, t_, likelihood, options_, warm_start);
    });
    v.status = fit.status;
    if (fit.status.code != RunStatus::ok) return v;
    const MeanFieldFit sites = floor_flat_sites(prior, fit);
    if (!(sites.tau.array() > 0.0).all()) {
      v.status = {RunStatus::failed,
                  "sparse EP's log evidence needs site precisions tau_i >= 0 (label noise "
                  "gives negative ones)",
                  fit.status.iterations};
      return v;
    }
    const auto [y, phi] = site_gaussian(prior, t_, sites);
    const LowRankEvidence e = low_rank_gaussian_evidence(kernel, X_, prior.low_rank(), y, phi, 0);
    v.value = e.value + site_terms(likelihood, t_, sites);
    const auto blocks = kernel.hyperparameters();
    const Eigen::VectorXd gl = likelihood_gradient(likelihood, t_, fit);
    v.gradient.resize(e.kernel_gradient.size() + gl.size());
    v.gradient << e.kernel_gradient, gl;
    const Eigen::Index noise = flat_offset(blocks, "noise");
    if (noise >= 0) v.gradient(noise) = e.noise_gradient.sum();  // d phi_i / d v2 = 1
  } catch (const NumericalError& error) {
    v.value = std::numeric_limits<double>::quiet_NaN();
    v.status = {RunStatus::failed, error.what(), 0};
  }
  return v;
}

std::unique_ptr<HyperparameterObjective> make_sparse_ep_objective(const Problem& problem,
                                                                  const std::string& name,
                                                                  const EpOptions& options) {
  if (name != "evidence")
    throw ConfigError({}, "ep: no hyperparameter objective '" + name +
                              "' on the inducing-point prior (it has: evidence)");
  const Dataset& d = *problem.data;
  return std::make_unique<SparseEvidenceObjective>(
      d.X_train, class_labels(d, DataPart::train, "ep"), *problem.inducing, options);
}

}  // namespace quench::gp_classification
