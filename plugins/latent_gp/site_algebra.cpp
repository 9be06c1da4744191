#include "site_algebra.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "quench/errors.h"

namespace quench::latent_gp {

SiteMoments site_moments(const Likelihood& lik, const Observation& y, double m, double lambda) {
  return site_moments(lik.tilted_moments(y, m, lambda), m, lambda);
}

SiteMoments site_moments(const TiltedMoments& tm, double m, double lambda) {
  SiteMoments s;
  s.log_z = tm.log_z;
  s.slope = (tm.mean - m) / lambda;  // eq 23: u = d log Z / dm
  // Omega = lambda Var / (lambda - Var) (eqs 29-30 in EP form); tau = 1/Omega.
  s.tau = (lambda - tm.variance) / (lambda * tm.variance);
  return s;
}

SiteDerivatives site_derivatives(const Likelihood& lik, const Observations& y,
                                 const Eigen::VectorXd& m, const Eigen::VectorXd& lambda) {
  const Eigen::Index n = y.rows();
  SiteDerivatives d{Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    const double l = lambda(i), h = 3e-3 * std::sqrt(l);
    double f = 0.0;
    auto k_at = [&](double mm, double* fout) {
      const TiltedMoments tm = lik.tilted_moments(y[i], mm, l);
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

Eigen::VectorXd site_nu(const MeanFieldFit& fit) {
  const Eigen::ArrayXd lt = fit.cavity_variance.array() * fit.tau.array();
  return (fit.tau.array() * fit.cavity_mean.array() + fit.slope.array() * (1.0 + lt)).matrix();
}

double site_evidence_terms(const Likelihood& lik, const Observation& y, double m, double lambda,
                           double tau, double slope) {
  double terms = site_moments(lik, y, m, lambda).log_z + 0.5 * std::log1p(lambda * tau);
  if (tau > 0) terms += slope * slope * (1.0 + lambda * tau) / (2.0 * tau);
  return terms;
}

double log_evidence(const Likelihood& lik, const Observations& y, const MeanFieldFit& fit,
                    const SiteSystem& sys) {
  // log Z_EP = sum log Zhat_i + 1/2 sum log(1 + lambda tau) - log|L_B|
  //            + sum u^2 (1 + lambda tau) / (2 tau) - 1/2 w^T B^{-1} w,
  // w_i = sqrt(tau_i) mu~_i with site means mu~_i = m_i + u_i (lambda_i + Omega_i).
  const Eigen::Index n = y.rows();
  if (!sys.nonnegative_sites()) {
    // Sites of either sign, from the definition: log Z = sum_i (log Zhat_i - log c_i)
    //   - 1/2 log det(I + C T) + 1/2 nu^T Sigma nu,  c_i = \int exp(-tau_i h^2/2 + nu_i h)
    //   N(h; m_i, lambda_i) dh = exp((nu_i + m_i/lambda_i)^2 / (2 (tau_i + 1/lambda_i))
    //   - m_i^2 / (2 lambda_i)) / sqrt(1 + lambda_i tau_i)   (1 + lambda tau = lambda/Var > 0).
    const Eigen::VectorXd nu = site_nu(fit);
    double lz = -0.5 * sys.log_det() + 0.5 * nu.dot(sys.sigma_times(nu));
    for (Eigen::Index i = 0; i < n; ++i) {
      const double lam = fit.cavity_variance(i), tau = fit.tau(i), m = fit.cavity_mean(i);
      const double q = nu(i) + m / lam;
      lz += site_moments(lik, y[i], m, lam).log_z + 0.5 * std::log1p(lam * tau) -
            q * q / (2.0 * (tau + 1.0 / lam)) + m * m / (2.0 * lam);
    }
    return lz;
  }
  double lz = -0.5 * sys.log_det();
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double lam = fit.cavity_variance(i), tau = fit.tau(i), u = fit.slope(i);
    lz += site_evidence_terms(lik, y[i], fit.cavity_mean(i), lam, tau, u);
    if (tau > 0) {
      const double s = std::sqrt(tau);
      w(i) = s * fit.cavity_mean(i) + u * (lam * s + 1.0 / s);
    }
  }
  lz -= 0.5 * w.dot(sys.solve_b(w));
  return lz;
}

}  // namespace quench::latent_gp
