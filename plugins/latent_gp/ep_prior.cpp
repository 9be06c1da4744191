#include "ep_prior.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "quench/errors.h"
#include "quench/low_rank_evidence.h"

namespace quench::latent_gp {

namespace {

// ---- The dense prior ----

class DenseEpPrior final : public EpPrior {
 public:
  DenseEpPrior(const Kernel& kernel, const Eigen::MatrixXd& X) : kernel_(kernel), X_(X) {}

  // C is formed at first use (bootstrap refits form their own kernel matrices).
  const SitePrior& sites() const override {
    if (!sites_) sites_.emplace(kernel_.gram(X_));
    return *sites_;
  }

  MeanFieldFit solve(const Likelihood& lik, const Observations& y, const EpOptions& options,
                     const MeanFieldFit* warm_start) const override {
    return solve_ep(c(), y, lik, options, warm_start);
  }

  EpEvidence evidence(const Kernel& kernel, const Likelihood& lik, const Observations& y,
                      const MeanFieldFit& fit, bool gradient) const override {
    const SiteSystem& sys = site_system(fit);  // one Cholesky of B = I + S C S (LU: some tau < 0)
    EpEvidence e;
    e.value = log_evidence(lik, y, fit, sys);
    if (!std::isfinite(e.value)) {
      e.failure =
          "the log evidence is not finite (with sites tau_i < 0: the posterior covariance "
          "(C^{-1} + T)^{-1} is not positive definite)";
      return e;
    }
    if (gradient && flat_size(kernel.hyperparameters()) > 0) {
      // d log Z / dtheta = 1/2 tr((u u^T - (Omega + C)^{-1}) dC/dtheta) at the fixed point (the
      // EP evidence gradient of GPML's infEP), (Omega + C)^{-1} = S B^{-1} S (dpotri).
      Eigen::MatrixXd W = sys.inverse_omega_plus_c();
      W *= -0.5;
      W.noalias() += 0.5 * fit.slope * fit.slope.transpose();
      e.kernel_gradient = kernel.gram_derivative_contractions(X_, W);
    }
    return e;
  }

  bool warm_start_from_best() const override { return false; }

  std::shared_ptr<const Model> model(const Problem& problem,
                                     const MeanFieldFit& fit) const override {
    return ClassifierModel::from_fit(problem, fit, &site_system(fit));
  }

  std::unique_ptr<ResampledModel> resampled(const Problem& problem,
                                            const EpOptions& options) const override {
    const Likelihood& lik = *problem.likelihood;
    return make_resampled_classifier(
        problem, "ep", observations(*problem.data, DataPart::train, *lik.target_kind(), "ep"),
        counted_ep_fit(problem.likelihood, options, "ep"), true);
  }

  std::string description() const override {
    return "expectation propagation (parallel sweeps, Anderson-accelerated)";
  }

 private:
  const Eigen::MatrixXd& c() const { return *sites().dense(); }
  // The site system of the fit's sites, factorized once for its evidence and model.
  const SiteSystem& site_system(const MeanFieldFit& fit) const {
    if (!system_ || system_tau_ != fit.tau) {
      system_.emplace(c(), fit.tau);
      system_tau_ = fit.tau;
    }
    return *system_;
  }

  const Kernel& kernel_;
  const Eigen::MatrixXd& X_;
  mutable std::optional<DenseSitePrior> sites_;
  mutable std::optional<SiteSystem> system_;
  mutable Eigen::VectorXd system_tau_;
};

// ---- The inducing-point prior ----

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

// sum_i [site_evidence_terms + 1/2 log(2 pi / tau_i)]: log Z_EP beyond log N(mu~ | 0, C~ + Omega)
// (the dense -1/2 log|B| - 1/2 w^T B^-1 w, B = I + S C S, is that log density + sum_i
// 1/2 log(2 pi / tau_i)).
double site_terms(const Likelihood& lik, const Observations& y, const MeanFieldFit& fit) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < y.rows(); ++i)
    sum += site_evidence_terms(lik, y[i], fit.cavity_mean(i), fit.cavity_variance(i), fit.tau(i),
                               fit.slope(i)) +
           0.5 * std::log(2.0 * M_PI / fit.tau(i));
  return sum;
}

// The Gaussian model of the sites: y = mu~ = nu / tau, phi = 1/tau + v2 on K~ (v2 enters C~).
std::pair<Eigen::VectorXd, Eigen::VectorXd> site_gaussian(const InducingSitePrior& prior,
                                                          const MeanFieldFit& fit) {
  return {site_nu(fit).cwiseQuotient(fit.tau), (1.0 / fit.tau.array() + prior.noise()).matrix()};
}

// w = U^T u on the prior's rows: <f(x)> = u(x)^T w (eq 19 at a new input, Q_xn = u(x)^T U^T).
Eigen::VectorXd predictor_weights(const InducingSitePrior& prior, const MeanFieldFit& fit) {
  return prior.factor().transpose() * fit.slope;
}

// Bootstrap refits of EP on the inducing prior: on the drawn set D with counts k_D, the counted
// sweeps on C~_DD (docs/large_n.md, "EP classification on the inducing prior"), then the refit's
// posterior mean K~[., D] u = U w + Lambda_D o u on D (001 eq 19 with the prior K~, v2 left out as
// the dense retrains leave it out of K(x_i, .)) and u(x)^T w at the test inputs, w = U_D^T u.
// The prior (U, Lambda, L) and the test features are formed once; a refit forms U_D (O(|D| M))
// and sweeps at O(|D| M^2) each. Its latent variance at an input is the refit's LowRankPredictor
// variance plus v2 (as LowRankClassifierModel predicts), at the training inputs as at new ones
// (what a left-out point is to the refit).
class ResampledSparseEp final : public ResampledModel {
 public:
  ResampledSparseEp(const Problem& problem, const EpOptions& options, InducingSitePrior prior)
      : kernel_(problem.kernel),
        likelihood_(problem.likelihood),
        options_(options),
        y_(observations(*problem.data, DataPart::train, *likelihood_->target_kind(), "ep")),
        prior_(std::move(prior)),
        test_features_(prior_.low_rank().features(problem.data->X_test)),
        test_prior_variance_(kernel_->diagonal(problem.data->X_test)),
        train_prior_variance_(kernel_->diagonal(problem.data->X_train)) {}

  // At a new input the refit is u(x)^T w = K(x, Z) L^-T w: a kernel expansion over Z with
  // coefficients L^-T w (as the sparse GP regression refits).
  bool kernel_expansion() const override { return true; }
  const Eigen::MatrixXd* expansion_inputs() const override {
    return &prior_.low_rank().inducing_inputs();
  }
  bool latent_variance() const override { return true; }

  Eigen::VectorXd predict(const Eigen::VectorXd& weights,
                          Eigen::VectorXd* coefficients) const override {
    return refit(weights, coefficients, nullptr, false);
  }

  Eigen::VectorXd predict_latent(const Eigen::VectorXd& weights, Eigen::VectorXd* coefficients,
                                 Eigen::VectorXd& variance, bool training_variance) const override {
    return refit(weights, coefficients, &variance, training_variance);
  }

 private:
  Eigen::VectorXd refit(const Eigen::VectorXd& weights, Eigen::VectorXd* coefficients,
                        Eigen::VectorXd* variance, bool training_variance) const {
    const LowRankPrior& full = prior_.low_rank();
    const Eigen::Index n = y_.rows(), m = full.rank(), tests = test_features_.rows();
    const DrawnPoints drawn = drawn_points(weights, n, "ep");
    // No point drawn: w = 0 and B = I, the prior.
    LowRankPredictor predictor{full.inducing_inputs(), full.inducing_cholesky().lower(),
                               Eigen::VectorXd::Zero(m), Eigen::MatrixXd::Identity(m, m),
                               full.form()};
    Eigen::VectorXd slope;  // on D
    if (!drawn.rows.empty()) {
      const InducingSitePrior prior = prior_.restricted_to(drawn.rows);
      const Observations y = y_.subset(drawn.rows);
      const MeanFieldFit fit = solve_ep_with_smaller_steps(
          prior, counted_tilted_moments(*likelihood_, y, drawn.counts), options_, nullptr);
      if (fit.status.code != RunStatus::ok)
        throw NumericalError("ep", "bootstrap retrain: " + fit.status.message);
      slope = fit.slope;
      if (variance)
        predictor = sparse_predictor(prior, fit);
      else
        predictor.weights = predictor_weights(prior, fit);
    }
    const Eigen::VectorXd& w = predictor.weights;
    Eigen::VectorXd out(n + tests);
    out.head(n).noalias() = full.factor() * w;
    for (std::size_t b = 0; b < drawn.rows.size(); ++b) {
      const Eigen::Index i = drawn.rows[b];
      out(i) += full.diagonal_correction()(i) * slope(static_cast<Eigen::Index>(b));
    }
    if (variance) {  // 001 eq 27 with the refit's sites (with v2)
      Eigen::VectorXd mean, test_variance;
      predictor.predict_from_features(test_features_, test_prior_variance_, mean, test_variance);
      out.tail(tests) = mean;
      variance->resize(n + tests);
      variance->tail(tests) = test_variance.array() + kernel_->diagonal_noise();
      if (training_variance) {
        Eigen::VectorXd train_mean, train_variance;
        predictor.predict_from_features(full.factor(), train_prior_variance_, train_mean,
                                        train_variance);
        variance->head(n) = train_variance.array() + kernel_->diagonal_noise();
      } else {
        variance->head(n).setConstant(std::numeric_limits<double>::quiet_NaN());
      }
    } else {
      out.tail(tests).noalias() = test_features_ * w;
    }
    if (coefficients)
      *coefficients =
          full.inducing_cholesky().lower().triangularView<Eigen::Lower>().transpose().solve(w);
    return out;
  }

  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Likelihood> likelihood_;
  EpOptions options_;
  Observations y_;
  InducingSitePrior prior_;               // refers to *kernel_
  Eigen::MatrixXd test_features_;         // u(x) at the test inputs (n_test x M)
  Eigen::VectorXd test_prior_variance_;   // k(x, x) at the test inputs
  Eigen::VectorXd train_prior_variance_;  // k(x, x) at the training inputs
};

class InducingEpPrior final : public EpPrior {
 public:
  InducingEpPrior(const Kernel& kernel, const Eigen::MatrixXd& X, const InducingInputs& inducing)
      : X_(X), prior_(kernel, X, inducing) {}

  const SitePrior& sites() const override { return prior_; }

  MeanFieldFit solve(const Likelihood& lik, const Observations& y, const EpOptions& options,
                     const MeanFieldFit* warm_start) const override {
    return solve_ep_with_smaller_steps(prior_, likelihood_tilted_moments(lik, y), options,
                                       warm_start);
  }

  // Through the sites' Gaussian model nu/tau ~ N(0, C~ + diag(1/tau)) (quench/low_rank_evidence.h):
  // its log density, and its gradient by every kernel hyperparameter (the "noise" entry v2 as
  // sum_i d/dphi_i, phi_i = 1/tau_i + v2); flat sites as floor_flat_sites.
  EpEvidence evidence(const Kernel& kernel, const Likelihood& lik, const Observations& y,
                      const MeanFieldFit& fit, bool gradient) const override {
    EpEvidence e;
    const MeanFieldFit sites = floor_flat_sites(prior_, fit);
    if (!(sites.tau.array() > 0.0).all()) {
      e.value = std::numeric_limits<double>::quiet_NaN();
      e.failure =
          "EP's log evidence on the inducing-point prior needs site precisions tau_i >= 0 (a "
          "likelihood that is not log-concave, such as label noise, gives negative ones)";
      return e;
    }
    const auto [mean, phi] = site_gaussian(prior_, sites);
    if (!gradient) {
      e.value = low_rank_gaussian_posterior(prior_.low_rank(), mean, phi).log_density +
                site_terms(lik, y, sites);
      return e;
    }
    const LowRankEvidence g =
        low_rank_gaussian_evidence(kernel, X_, prior_.low_rank(), mean, phi, 0);
    e.value = g.value + site_terms(lik, y, sites);
    // The noise entries (0 in kernel_gradient): d phi_i / d v2 = 1.
    e.kernel_gradient =
        g.kernel_gradient + g.noise_gradient.sum() * kernel.diagonal_noise_derivative();
    return e;
  }

  bool warm_start_from_best() const override { return true; }

  std::shared_ptr<const Model> model(const Problem& problem,
                                     const MeanFieldFit& fit) const override {
    return std::make_shared<const LowRankClassifierModel>(problem.kernel, problem.likelihood,
                                                          sparse_predictor(prior_, fit));
  }

  std::unique_ptr<ResampledModel> resampled(const Problem& problem,
                                            const EpOptions& options) const override {
    return std::make_unique<ResampledSparseEp>(problem, options, prior_);
  }

  std::string description() const override {
    return "expectation propagation on the inducing-point prior (" +
           to_string(prior_.low_rank().form()) +
           ", M = " + std::to_string(prior_.low_rank().rank()) + "; parallel sweeps)";
  }

 private:
  const Eigen::MatrixXd& X_;
  InducingSitePrior prior_;
};

}  // namespace

LowRankPredictor sparse_predictor(const InducingSitePrior& prior, const MeanFieldFit& fit) {
  const LowRankPrior& p = prior.low_rank();
  return {p.inducing_inputs(), p.inducing_cholesky().lower(), predictor_weights(prior, fit),
          prior.posterior(fit.tau).b_lower, p.form()};
}

std::unique_ptr<EpPrior> make_ep_prior(const Kernel& kernel, const Eigen::MatrixXd& X,
                                       const InducingInputs* inducing) {
  if (inducing) return std::make_unique<InducingEpPrior>(kernel, X, *inducing);
  return std::make_unique<DenseEpPrior>(kernel, X);
}

}  // namespace quench::latent_gp
