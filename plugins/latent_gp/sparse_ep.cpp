#include "sparse_ep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include <Eigen/Cholesky>

#include "classifier_model.h"
#include "quench/errors.h"
#include "quench/low_rank_evidence.h"

namespace quench::latent_gp {

namespace {

// A site the likelihood barely tilts has tau_i = (lambda_i - Var_i) / (lambda_i Var_i) at the
// rounding of Var_i (0 or +-1e-17 / lambda_i: the step at z > 8.3), where the dense evidence
// drops it or nearly so; here 1/tau_i must be finite and positive. Such sites (|tau_i| <
// 1e-12 / C~_ii) take tau_i = 1e-12 / C~_ii, which changes their factor in Z by a relative
// ~1e-12 E[(h_i - mu~_i)^2] / C~_ii.
MeanFieldFit floor_flat_sites(const InducingSitePrior& prior, const MeanFieldFit& fit) {
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
std::pair<Eigen::VectorXd, Eigen::VectorXd> site_gaussian(const InducingSitePrior& prior,
                                                          const Eigen::VectorXd& t,
                                                          const MeanFieldFit& fit) {
  return {site_nu(t, fit).cwiseQuotient(fit.tau), (1.0 / fit.tau.array() + prior.noise()).matrix()};
}

// w = U^T (t o alpha) on the prior's rows: <f(x)> = u(x)^T w (eq 19 at a new input, Q_xn =
// u(x)^T U^T).
Eigen::VectorXd predictor_weights(const InducingSitePrior& prior, const Eigen::VectorXd& t,
                                  const MeanFieldFit& fit) {
  return prior.factor().transpose() * t.cwiseProduct(fit.alpha);
}

}  // namespace

namespace {

// Parallel EP on the sparse prior, and again from zero sites with half the damping (down to
// kMinDamping) while it stalls: undamped sweeps can cycle on the FITC prior with a nearly
// noise-free likelihood (letter at width 1: stalled at a change of 2e-4 after 62 sweeps,
// converged in 53 at damping 1/2), where the dense engine's Newton finish would end them.
constexpr double kMinDamping = 0.125;

MeanFieldFit sweep_with_smaller_steps(const InducingSitePrior& prior, const Eigen::VectorXd& t,
                                      const SiteTiltedMoments& tilted, const EpOptions& options,
                                      const MeanFieldFit* warm_start) {
  MeanFieldFit fit = solve_ep(prior, t, tilted, options, warm_start);
  EpOptions smaller = options;
  while (fit.status.code == RunStatus::not_converged && smaller.damping > kMinDamping) {
    smaller.damping = std::max(0.5 * smaller.damping, kMinDamping);
    const int spent = fit.status.iterations;
    fit = solve_ep(prior, t, tilted, smaller);
    fit.status.iterations += spent;
  }
  return fit;
}

}  // namespace

MeanFieldFit solve_sparse_ep(const InducingSitePrior& prior, const Eigen::VectorXd& t,
                             const Likelihood& lik, const EpOptions& options,
                             const MeanFieldFit* warm_start) {
  return sweep_with_smaller_steps(
      prior, t,
      [&](Eigen::Index i, double m, double v) { return lik.tilted_moments({t(i)}, m, v); }, options,
      warm_start);
}

MeanFieldFit solve_sparse_ep(const InducingSitePrior& prior, const Eigen::VectorXd& t,
                             const Eigen::VectorXi& counts, const Likelihood& lik,
                             const EpOptions& options) {
  return sweep_with_smaller_steps(prior, t, counted_tilted_moments(lik, t, counts), options,
                                  nullptr);
}

// log Z_EP (the TAP free energy of 003 eqs 11-13) through the sites' Gaussian model.
double sparse_log_evidence(const InducingSitePrior& prior, const Likelihood& lik,
                           const Eigen::VectorXd& t, const MeanFieldFit& fit) {
  if (!prior.all_rows())
    throw std::invalid_argument("sparse_log_evidence: the prior of all the training inputs");
  const MeanFieldFit sites = floor_flat_sites(prior, fit);
  if (!(sites.tau.array() > 0.0).all()) return std::numeric_limits<double>::quiet_NaN();
  const auto [y, phi] = site_gaussian(prior, t, sites);
  return low_rank_gaussian_posterior(prior.low_rank(), y, phi).log_density +
         site_terms(lik, t, sites);
}

LowRankPredictor sparse_predictor(const InducingSitePrior& prior, const Eigen::VectorXd& t,
                                  const MeanFieldFit& fit) {
  const LowRankPrior& p = prior.low_rank();
  return {p.inducing_inputs(), p.inducing_cholesky().lower(), predictor_weights(prior, t, fit),
          prior.posterior(fit.tau).b_lower, p.form()};
}

Results run_sparse_ep(const Problem& problem, const EpOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& d = *problem.data;
  const Eigen::VectorXd t = class_labels(d, DataPart::train, "ep");
  const InducingSitePrior prior(*problem.kernel, d.X_train, *problem.inducing);
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

namespace {

// Bootstrap refits of sparse EP (make_resampled_sparse_ep): on the drawn set D with counts k_D,
// the counted sweeps on C~_DD (docs/large_n.md, "EP classification on the inducing prior"), then
// the refit's posterior mean K~[., D] (t o alpha) = U w + Lambda_D o (t o alpha) on D (001 eq 19
// with the prior K~, v2 left out as the dense retrains leave it out of K(x_i, .)) and u(x)^T w at
// the test inputs, w = U_D^T (t o alpha). The prior (U, Lambda, L) and the test features are
// formed once; a refit forms U_D (O(|D| M)) and sweeps at O(|D| M^2) each.
class ResampledSparseEp final : public ResampledModel {
 public:
  ResampledSparseEp(const Problem& problem, const EpOptions& options)
      : kernel_(problem.kernel),
        likelihood_(problem.likelihood),
        options_(options),
        t_(class_labels(*problem.data, DataPart::train, "ep")),
        prior_(*kernel_, problem.data->X_train, *problem.inducing),
        test_features_(prior_.low_rank().features(problem.data->X_test)),
        test_prior_variance_(kernel_->diagonal(problem.data->X_test)) {}

  // At a new input the refit is u(x)^T w = K(x, Z) L^-T w: a kernel expansion over Z with
  // coefficients L^-T w (as the sparse GP regression refits).
  bool kernel_expansion() const override { return true; }
  const Eigen::MatrixXd* expansion_inputs() const override {
    return &prior_.low_rank().inducing_inputs();
  }
  bool test_probability() const override { return true; }

  Eigen::VectorXd predict(const Eigen::VectorXd& weights,
                          Eigen::VectorXd* coefficients) const override {
    return refit(weights, coefficients, nullptr);
  }

  Eigen::VectorXd predict_with_probability(const Eigen::VectorXd& weights,
                                           Eigen::VectorXd* coefficients,
                                           Eigen::VectorXd& probability) const override {
    return refit(weights, coefficients, &probability);
  }

 private:
  Eigen::VectorXd refit(const Eigen::VectorXd& weights, Eigen::VectorXd* coefficients,
                        Eigen::VectorXd* probability) const {
    const LowRankPrior& full = prior_.low_rank();
    const Eigen::Index n = t_.size(), m = full.rank();
    const DrawnPoints drawn = drawn_points(weights, n, "ep");
    // No point drawn: w = 0 and B = I, the prior.
    LowRankPredictor predictor{full.inducing_inputs(), full.inducing_cholesky().lower(),
                               Eigen::VectorXd::Zero(m), Eigen::MatrixXd::Identity(m, m),
                               full.form()};
    Eigen::VectorXd t_alpha;  // on D
    if (!drawn.rows.empty()) {
      const InducingSitePrior prior = prior_.restricted_to(drawn.rows);
      const Eigen::VectorXd t = t_(drawn.rows);
      const MeanFieldFit fit = solve_sparse_ep(prior, t, drawn.counts, *likelihood_, options_);
      if (fit.status.code != RunStatus::ok)
        throw NumericalError("ep", "bootstrap retrain: " + fit.status.message);
      t_alpha = t.cwiseProduct(fit.alpha);
      if (probability)
        predictor = sparse_predictor(prior, t, fit);
      else
        predictor.weights = predictor_weights(prior, t, fit);
    }
    const Eigen::VectorXd& w = predictor.weights;
    Eigen::VectorXd out(n + test_features_.rows());
    out.head(n).noalias() = full.factor() * w;
    for (std::size_t b = 0; b < drawn.rows.size(); ++b) {
      const Eigen::Index i = drawn.rows[b];
      out(i) += full.diagonal_correction()(i) * t_alpha(static_cast<Eigen::Index>(b));
    }
    if (probability) {  // 001 eq 12 under the refit's latent posterior at x (eq 27: with v2)
      Eigen::VectorXd mean, variance;
      predictor.predict_from_features(test_features_, test_prior_variance_, mean, variance);
      out.tail(test_features_.rows()) = mean;
      variance.array() += kernel_->diagonal_noise();
      *probability = positive_probability(*likelihood_, mean, variance);
    } else {
      out.tail(test_features_.rows()).noalias() = test_features_ * w;
    }
    if (coefficients)
      *coefficients =
          full.inducing_cholesky().lower().triangularView<Eigen::Lower>().transpose().solve(w);
    return out;
  }

  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Likelihood> likelihood_;
  EpOptions options_;
  Eigen::VectorXd t_;
  InducingSitePrior prior_;              // refers to *kernel_
  Eigen::MatrixXd test_features_;        // u(x) at the test inputs (n_test x M)
  Eigen::VectorXd test_prior_variance_;  // k(x, x) at the test inputs
};

}  // namespace

std::unique_ptr<ResampledModel> make_resampled_sparse_ep(const Problem& problem,
                                                         const EpOptions& options) {
  return std::make_unique<ResampledSparseEp>(problem, options);
}

SparseEvidenceObjective::SparseEvidenceObjective(Eigen::MatrixXd X, Eigen::VectorXd t,
                                                 InducingInputs inducing, EpOptions options)
    : X_(std::move(X)), t_(std::move(t)), inducing_(std::move(inducing)), options_(options) {}

ObjectiveValue SparseEvidenceObjective::evaluate(const Kernel& kernel,
                                                 const Likelihood& likelihood) {
  ObjectiveValue v;
  v.value = std::numeric_limits<double>::quiet_NaN();
  try {
    const InducingSitePrior prior(kernel, X_, inducing_);
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
    fixed_point_.rate(v.value);
    const Eigen::VectorXd gl = likelihood_gradient(likelihood, t_, fit);
    v.gradient.resize(e.kernel_gradient.size() + gl.size());
    // The noise entries (0 in kernel_gradient): d phi_i / d v2 = 1.
    v.gradient << e.kernel_gradient + e.noise_gradient.sum() * kernel.diagonal_noise_derivative(),
        gl;
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

}  // namespace quench::latent_gp
