#include "classifier_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "quench/errors.h"

namespace quench::latent_gp {

SiteMoments site_moments(const Likelihood& lik, double t, double m, double lambda) {
  return site_moments(lik.tilted_moments({t}, m, lambda), t, m, lambda);
}

SiteMoments site_moments(const TiltedMoments& tm, double t, double m, double lambda) {
  SiteMoments s;
  s.log_z = tm.log_z;
  s.alpha = t * (tm.mean - m) / lambda;  // eq 23: t alpha = d log Z / dm
  // Omega = lambda Var / (lambda - Var) (eqs 29-30 in EP form); tau = 1/Omega.
  s.tau = (lambda - tm.variance) / (lambda * tm.variance);
  return s;
}

SiteDerivatives site_derivatives(const Likelihood& lik, const Eigen::VectorXd& t,
                                 const Eigen::VectorXd& m, const Eigen::VectorXd& lambda) {
  const Eigen::Index n = t.size();
  SiteDerivatives d{Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    const double l = lambda(i), h = 3e-3 * std::sqrt(l);
    double f = 0.0;
    auto k_at = [&](double mm, double* fout) {
      const TiltedMoments tm = lik.tilted_moments({t(i)}, mm, l);
      if (fout) *fout = (tm.mean - mm) / l;
      return (tm.variance - l) / (l * l);
    };
    const double k = k_at(m(i), &f), kp = k_at(m(i) + h, nullptr), kn = k_at(m(i) - h, nullptr);
    const double k1 = (kp - kn) / (2 * h), k2 = (kp - 2 * k + kn) / (h * h);
    const double den = (1.0 + l * k) * (1.0 + l * k);  // (Var/lambda)^2 > 0
    d.fm(i) = k;
    d.fl(i) = 0.5 * k1 + f * k;
    d.tm(i) = -k1 / den;
    d.tl(i) = -(0.5 * k2 + f * k1) / den;
  }
  return d;
}

Eigen::Index error_count(const Eigen::VectorXd& t, const Eigen::VectorXd& h) {
  return (t.array() * h.array() <= 0.0).count();
}

double error_rate(const Eigen::VectorXd& t, const Eigen::VectorXd& h) {
  if (t.size() == 0) return 0.0;
  return static_cast<double>(error_count(t, h)) / static_cast<double>(t.size());
}

Eigen::VectorXd site_nu(const Eigen::VectorXd& t, const MeanFieldFit& fit) {
  const Eigen::ArrayXd lt = fit.cavity_variance.array() * fit.tau.array();
  return (fit.tau.array() * fit.cavity_mean.array() + t.array() * fit.alpha.array() * (1.0 + lt))
      .matrix();
}

double site_evidence_terms(const Likelihood& lik, double t, double m, double lambda, double tau,
                           double alpha) {
  double terms = site_moments(lik, t, m, lambda).log_z + 0.5 * std::log1p(lambda * tau);
  if (tau > 0) terms += alpha * alpha * (1.0 + lambda * tau) / (2.0 * tau);
  return terms;
}

double log_evidence(const Likelihood& lik, const Eigen::VectorXd& t, const MeanFieldFit& fit,
                    const SiteSystem& sys) {
  // log Z_EP = sum log Zhat_i + 1/2 sum log(1 + lambda tau) - log|L_B|
  //            + sum alpha^2 (1 + lambda tau) / (2 tau) - 1/2 w^T B^{-1} w,
  // w_i = sqrt(tau_i) mu~_i with site means mu~_i = m_i + t_i alpha_i (lambda_i + Omega_i).
  const Eigen::Index n = t.size();
  if (!sys.log_concave()) {
    // Sites of either sign, from the definition: log Z = sum_i (log Zhat_i - log c_i)
    //   - 1/2 log det(I + C T) + 1/2 nu^T Sigma nu,  c_i = \int exp(-tau_i h^2/2 + nu_i h)
    //   N(h; m_i, lambda_i) dh = exp((nu_i + m_i/lambda_i)^2 / (2 (tau_i + 1/lambda_i))
    //   - m_i^2 / (2 lambda_i)) / sqrt(1 + lambda_i tau_i)   (1 + lambda tau = lambda/Var > 0).
    const Eigen::VectorXd nu = site_nu(t, fit);
    double lz = -0.5 * sys.log_det() + 0.5 * nu.dot(sys.sigma_times(nu));
    for (Eigen::Index i = 0; i < n; ++i) {
      const double lam = fit.cavity_variance(i), tau = fit.tau(i), m = fit.cavity_mean(i);
      const double q = nu(i) + m / lam;
      lz += site_moments(lik, t(i), m, lam).log_z + 0.5 * std::log1p(lam * tau) -
            q * q / (2.0 * (tau + 1.0 / lam)) + m * m / (2.0 * lam);
    }
    return lz;
  }
  double lz = -0.5 * sys.log_det();
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double lam = fit.cavity_variance(i), tau = fit.tau(i), a = fit.alpha(i);
    lz += site_evidence_terms(lik, t(i), fit.cavity_mean(i), lam, tau, a);
    if (tau > 0) {
      const double s = std::sqrt(tau);
      w(i) = s * fit.cavity_mean(i) + t(i) * a * (lam * s + 1.0 / s);
    }
  }
  lz -= 0.5 * w.dot(sys.solve_b(w));
  return lz;
}

Eigen::VectorXd positive_probability(const Likelihood& lik, const Eigen::VectorXd& mean,
                                     const Eigen::VectorXd& variance) {
  Eigen::VectorXd p(mean.size());
  for (Eigen::Index j = 0; j < mean.size(); ++j)
    p(j) = std::exp(lik.tilted_moments({1.0}, mean(j), variance(j)).log_z);
  return p;
}

void add_loo_predictive(Results& r, const Likelihood& lik, const Eigen::VectorXd& t,
                        const Eigen::VectorXd& m, const Eigen::VectorXd& v) {
  const Eigen::Index n = t.size();
  double log_predictive = 0.0;
  for (Eigen::Index i = 0; i < n; ++i)
    log_predictive += lik.tilted_moments({t(i)}, m(i), v(i)).log_z;  // no log(1 - p) cancellation
  r.vectors["loo_probability"] = positive_probability(lik, m, v);
  if (n > 0) r.scalars["loo_log_predictive"] = log_predictive / static_cast<double>(n);
}

void add_fit(Results& r, const Likelihood& lik, const Eigen::VectorXd& t, const MeanFieldFit& fit) {
  r.vectors["alpha"] = fit.alpha;
  r.vectors["mean_field"] = fit.mean_field;
  r.vectors["stability"] = t.cwiseProduct(fit.mean_field);  // t_i <h_i> (001 Fig. 3)
  r.vectors["cavity_mean"] = fit.cavity_mean;
  r.vectors["cavity_variance"] = fit.cavity_variance;
  r.scalars["loo_error"] = error_rate(t, fit.cavity_mean);  // eq 32
  r.scalars["loo_errors"] = static_cast<double>(error_count(t, fit.cavity_mean));
  add_loo_predictive(r, lik, t, fit.cavity_mean, fit.cavity_variance);
  r.scalars["train_error"] = error_rate(t, fit.mean_field);
  r.scalars["iterations"] = fit.status.iterations;
  r.status = fit.status;
}

}  // namespace quench::latent_gp
