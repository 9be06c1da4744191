#include "classifier_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "quench/errors.h"

namespace quench::gp_classification {

Eigen::VectorXd class_labels(const Eigen::VectorXd& y, const char* engine) {
  Eigen::VectorXd t(y.size());
  const bool zero_one = y.size() > 0 && (y.array() == 0.0 || y.array() == 1.0).all();
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    if (zero_one)
      t(i) = y(i) > 0.5 ? 1.0 : -1.0;
    else if (y(i) == 1.0 || y(i) == -1.0)
      t(i) = y(i);
    else
      throw DataError("", static_cast<int>(i) + 2, "target",
                      std::string(engine) + " needs class labels -1/+1 or 0/1");
  }
  return t;
}

namespace {
Eigen::MatrixXd scaled(const Eigen::MatrixXd& C, const Eigen::VectorXd& s) {
  Eigen::MatrixXd B = s.asDiagonal() * C * s.asDiagonal();
  B.diagonal().array() += 1.0;
  return B;
}
}  // namespace

SiteSystem::SiteSystem(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau)
    : C_(C), tau_(tau), s_(tau.cwiseMax(0.0).cwiseSqrt()) {
  if (tau.size() == 0 || tau.minCoeff() >= 0.0) {
    chol_.emplace(scaled(C, s_), JitterPolicy{}, "I + S C S");
  } else {
    Eigen::MatrixXd M = C * tau.asDiagonal();
    M.diagonal().array() += 1.0;
    lu_.emplace(M);
  }
}

Eigen::VectorXd SiteSystem::posterior_mean(const Eigen::VectorXd& nu) const {
  const Eigen::VectorXd cnu = C_ * nu;
  if (lu_) return lu_->solve(cnu);
  const Eigen::VectorXd w = s_.cwiseProduct(cnu);
  return cnu - C_ * s_.cwiseProduct(chol_->solve(w));
}

Eigen::VectorXd SiteSystem::solve_newton(const Eigen::VectorXd& r) const {
  const Eigen::VectorXd cr = C_ * r;
  if (lu_) return r - tau_.cwiseProduct(lu_->solve(cr));
  const Eigen::VectorXd w = s_.cwiseProduct(cr);
  return r - s_.cwiseProduct(chol_->solve(w));
}

Eigen::VectorXd SiteSystem::posterior_variance() const {
  if (lu_) return lu_->solve(C_).diagonal();
  // Sigma_ii = C_ii - ||L^{-1} S C e_i||^2.
  const Eigen::MatrixXd W = chol_->solve_lower(s_.asDiagonal() * C_);
  return (C_.diagonal() - W.colwise().squaredNorm().transpose()).cwiseMax(0.0);
}

Eigen::VectorXd SiteSystem::cavity_variance() const {
  const Eigen::Index n = tau_.size();
  Eigen::VectorXd lambda(n);
  // Floor against total cancellation in Sigma_ii for a nearly singular C (noise-free
  // Gaussian kernel): a zero cavity variance would make the tilted variance 0 and tau
  // infinite. 1e-12 C_ii is far below any variance that changes a result.
  auto floored = [&](Eigen::Index i, double l) { return std::max(l, 1e-12 * C_(i, i)); };
  if (lu_) {
    const Eigen::VectorXd sigma = posterior_variance();
    for (Eigen::Index i = 0; i < n; ++i)
      lambda(i) = floored(i, sigma(i) / std::max(1.0 - tau_(i) * sigma(i), 1e-300));
    return lambda;
  }
  // lambda_i = 1/[(Omega + C)^{-1}]_ii - Omega_i = (1 - b_i)/(tau_i b_i), b = diag B^{-1}
  // (one triangular inversion), accurate where q_i = 1 - b_i = tau_i Sigma_ii is not small
  // (relative error ~ eps/q_i). Where q_i < 1e-3 (weakly constrained sites, tau_i = 0
  // included) Sigma_ii = C_ii - ||L^{-1} S C e_i||^2 is computed for those columns only and
  // lambda_i = Sigma_ii/(1 - tau_i Sigma_ii).
  const Eigen::VectorXd b = chol_->inverse_diagonal();
  std::vector<Eigen::Index> weak;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double q = 1.0 - b(i);
    if (q >= 1e-3)
      lambda(i) = floored(i, q / (tau_(i) * b(i)));
    else
      weak.push_back(i);
  }
  if (!weak.empty()) {
    Eigen::MatrixXd SC(n, static_cast<Eigen::Index>(weak.size()));
    for (std::size_t k = 0; k < weak.size(); ++k)
      SC.col(static_cast<Eigen::Index>(k)) = s_.cwiseProduct(C_.col(weak[k]));
    const Eigen::MatrixXd W = chol_->solve_lower(SC);
    for (std::size_t k = 0; k < weak.size(); ++k) {
      const Eigen::Index i = weak[k];
      const double sigma =
          std::max(C_(i, i) - W.col(static_cast<Eigen::Index>(k)).squaredNorm(), 0.0);
      // 1 - tau_i Sigma_ii = b_i > 0.999 here.
      lambda(i) = floored(i, sigma / (1.0 - tau_(i) * sigma));
    }
  }
  return lambda;
}

Eigen::VectorXd SiteSystem::quadratic_form(const Eigen::MatrixXd& K) const {
  if (lu_) return (K.array() * (tau_.asDiagonal() * lu_->solve(K)).array()).colwise().sum();
  const Eigen::MatrixXd V = chol_->solve_lower(s_.asDiagonal() * K);
  return V.colwise().squaredNorm().transpose();
}

SiteMoments site_moments(const Likelihood& lik, double t, double m, double lambda) {
  const TiltedMoments tm = lik.tilted_moments(t, m, lambda);
  SiteMoments s;
  s.log_z = tm.log_z;
  s.alpha = t * (tm.mean - m) / lambda;  // eq 23: t alpha = d log Z / dm
  // Omega = lambda Var / (lambda - Var) (eqs 29-30 in EP form); tau = 1/Omega.
  s.tau = (lambda - tm.variance) / (lambda * tm.variance);
  return s;
}

double error_rate(const Eigen::VectorXd& t, const Eigen::VectorXd& h) {
  if (t.size() == 0) return 0.0;
  return static_cast<double>((t.array() * h.array() <= 0.0).count()) /
         static_cast<double>(t.size());
}

double log_evidence(const Likelihood& lik, const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
                    const MeanFieldFit& fit) {
  // log Z_EP = sum log Zhat_i + 1/2 sum log(1 + lambda tau) - log|L_B|
  //            + sum alpha^2 (1 + lambda tau) / (2 tau) - 1/2 w^T B^{-1} w,
  // w_i = sqrt(tau_i) mu~_i with site means mu~_i = m_i + t_i alpha_i (lambda_i + Omega_i).
  const Eigen::Index n = t.size();
  const SiteSystem sys(C, fit.tau);
  if (!sys.log_concave()) return std::numeric_limits<double>::quiet_NaN();
  double lz = -0.5 * sys.log_det_b();
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double lam = fit.cavity_variance(i), tau = fit.tau(i), a = fit.alpha(i);
    lz += site_moments(lik, t(i), fit.cavity_mean(i), lam).log_z;
    lz += 0.5 * std::log1p(lam * tau);
    if (tau > 0) {
      lz += a * a * (1.0 + lam * tau) / (2.0 * tau);
      const double s = std::sqrt(tau);
      w(i) = s * fit.cavity_mean(i) + t(i) * a * (lam * s + 1.0 / s);
    }
  }
  lz -= 0.5 * w.dot(sys.solve_b(w));
  return lz;
}

void add_predictions(Results& r, const Problem& problem, const Eigen::VectorXd& t,
                     const Eigen::VectorXd& alpha, const SiteSystem* sites, bool probabilities) {
  const Dataset& d = *problem.data;
  if (d.X_test.rows() == 0) return;
  const Eigen::MatrixXd K = problem.kernel->cross(d.X_train, d.X_test);
  const Eigen::VectorXd h = K.transpose() * t.cwiseProduct(alpha);  // eq 27
  // The test latent includes the kernel's noise v2 (probit noise of App. A).
  Eigen::VectorXd var =
      problem.kernel->diagonal(d.X_test).array() + problem.kernel->diagonal_noise();
  if (sites) var = (var - sites->quadratic_form(K)).cwiseMax(0.0);  // eq 27
  Eigen::VectorXd p(h.size()), cls(h.size());
  for (Eigen::Index j = 0; j < h.size(); ++j) {
    p(j) = probabilities && problem.likelihood
               ? std::exp(problem.likelihood->tilted_moments(1.0, h(j), var(j)).log_z)
               : 0.5;                 // eq 12
    cls(j) = h(j) >= 0 ? 1.0 : -1.0;  // eq 13
  }
  r.vectors["test_mean_field"] = h;
  r.vectors["test_variance"] = var;
  if (probabilities && problem.likelihood) r.vectors["test_probability"] = p;
  r.vectors["test_class"] = cls;
  if (d.y_test.size() == d.X_test.rows()) {
    const Eigen::VectorXd tt = class_labels(d.y_test, "classifier");
    r.scalars["test_error"] = error_rate(tt, h);
    r.scalars["test_errors"] = static_cast<double>((tt.array() * h.array() <= 0.0).count());
  }
}

void add_fit(Results& r, const Eigen::VectorXd& t, const MeanFieldFit& fit) {
  r.vectors["alpha"] = fit.alpha;
  r.vectors["mean_field"] = fit.mean_field;
  r.vectors["cavity_mean"] = fit.cavity_mean;
  r.vectors["cavity_variance"] = fit.cavity_variance;
  r.scalars["loo_error"] = error_rate(t, fit.cavity_mean);  // eq 32
  r.scalars["loo_errors"] = r.scalars["loo_error"] * static_cast<double>(t.size());
  r.scalars["train_error"] = error_rate(t, fit.mean_field);
  r.scalars["iterations"] = fit.status.iterations;
  r.status = fit.status;
}

}  // namespace quench::gp_classification
