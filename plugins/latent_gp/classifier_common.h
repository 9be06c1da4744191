// Shared algebra of the GP classifiers of Opper & Winther (001, 003): labels, the Gaussian
// site system (Omega + C)^{-1} in a stable form, the TAP/EP fixed-point quantities and the
// predictions at test inputs.
#pragma once

#include <limits>
#include <optional>

#include <Eigen/Core>

#include "quench/inference_engine.h"
#include "quench/likelihood.h"
#include "quench/site_posterior.h"

namespace quench::latent_gp {

/// One site's TAP/EP quantities at cavity mean m and variance lambda (001 eqs 23, 29-30):
/// t alpha = d log Z / dm, tau = 1/Omega = 1/Var_tilted - 1/lambda (clamped at 0).
struct SiteMoments {
  double alpha = 0.0;  ///< eq 23 (>= 0 for the probit without label noise)
  double tau = 0.0;    ///< 1/Omega_i
  double log_z = 0.0;  ///< log of the tilted normalizer
};
SiteMoments site_moments(const Likelihood& lik, double t, double m, double lambda);
/// The same from the tilted moments `tm` of the site at (m, lambda) (any site, e.g. a k-fold
/// power of the likelihood).
SiteMoments site_moments(const TiltedMoments& tm, double t, double m, double lambda);

/// Derivatives of one site's eq 23 (f = t alpha = d log Z / dm) and eqs 29-30 (tau = 1/Omega)
/// at the cavity mean m and variance lambda, for the joint Newton step of the TAP solver. With
/// k = d^2 log Z / dm^2 = (Var - lambda)/lambda^2 and the heat equation of the Gaussian cavity,
/// d log Z / d lambda = (k + f^2)/2:
///   f_m = k,  f_lambda = k'/2 + f k,  tau = -k/(1 + lambda k),
///   tau_m = -k'/(1 + lambda k)^2,  tau_lambda = -(k''/2 + f k')/(1 + lambda k)^2,
/// with k' = dk/dm and k'' = d^2k/dm^2 by central differences (step 3e-3 sqrt(lambda); a
/// Jacobian accurate to ~1e-5 slows Newton from quadratic to a fast linear rate, the residuals
/// themselves are exact).
struct SiteDerivatives {
  Eigen::VectorXd fm, fl, tm, tl;  ///< df/dm, df/dlambda, dtau/dm, dtau/dlambda
};
SiteDerivatives site_derivatives(const Likelihood& lik, const Eigen::VectorXd& t,
                                 const Eigen::VectorXd& m, const Eigen::VectorXd& lambda);

/// A solved classifier on the training set, in the paper's variables.
struct MeanFieldFit {
  Eigen::VectorXd alpha;            ///< eq 23
  Eigen::VectorXd mean_field;       ///< <h_i> = sum_j C_ij t_j alpha_j (eq 19)
  Eigen::VectorXd cavity_mean;      ///< <h_i>_\i = <h_i> - lambda_i t_i alpha_i (eq 26)
  Eigen::VectorXd cavity_variance;  ///< lambda_i (eq 28)
  Eigen::VectorXd tau;              ///< 1/Omega_i
  int lambda_refreshes = 0;         ///< eq-28 refreshes (Newton TAP solver)
  Status status;
};

/// sum_i Theta(-t_i h_i), a tie (h_i = 0) counting as an error: an exact count.
Eigen::Index error_count(const Eigen::VectorXd& t, const Eigen::VectorXd& h);

/// (1/N) sum_i Theta(-t_i h_i), a tie (h_i = 0) counting as an error (eq 32).
double error_rate(const Eigen::VectorXd& t, const Eigen::VectorXd& h);

/// p(+1 | x) = the likelihood's predictive integral of the label +1 under N(mean_j,
/// variance_j) at each input (001 eq 12).
Eigen::VectorXd positive_probability(const Likelihood& lik, const Eigen::VectorXd& mean,
                                     const Eigen::VectorXd& variance);

/// The site precision times the site mean, nu_i = tau_i mu~_i = tau_i m_i + t_i alpha_i
/// (1 + lambda_i tau_i) (mu~_i = m_i + t_i alpha_i (lambda_i + Omega_i)), finite as tau_i -> 0.
Eigen::VectorXd site_nu(const Eigen::VectorXd& t, const MeanFieldFit& fit);

/// One site's terms of log Z_EP besides the Gaussian normalizer of the sites (log_evidence):
/// log Zhat_i + 1/2 log(1 + lambda_i tau_i) + alpha_i^2 (1 + lambda_i tau_i) / (2 tau_i), the
/// last term 0 for tau_i <= 0.
double site_evidence_terms(const Likelihood& lik, double t, double m, double lambda, double tau,
                           double alpha);

/// EP/TAP approximate log evidence log Z = log \int prod_i t~_i(h_i) N(h; 0, C) dh with the
/// Gaussian sites matched at the fixed point (the TAP free energy of 003 eqs 11-13); `sys` is
/// SiteSystem(C, fit.tau). Sites of either sign (label noise makes some tau_i < 0): NaN when
/// Sigma = (C^{-1} + T)^{-1} is not positive definite.
double log_evidence(const Likelihood& lik, const Eigen::VectorXd& t, const MeanFieldFit& fit,
                    const SiteSystem& sys);

/// The built-in leave-one-out predictive distribution: with the left-out field of example i
/// Gaussian, N(m_i, v_i) (the cavity of eqs 26-28), r.vectors["loo_probability"]_i =
/// p(+1 | D without i) = \int p(+1 | h) N(h; m_i, v_i) dh (001 eq 12 at the cavity) and
/// r.scalars["loo_log_predictive"] = (1/N) sum_i log p(t_i | D without i).
void add_loo_predictive(Results& r, const Likelihood& lik, const Eigen::VectorXd& t,
                        const Eigen::VectorXd& m, const Eigen::VectorXd& v);

/// Common outputs of a fit: alpha, mean_field, cavity_mean, cavity_variance, loo_error (eq 32),
/// the leave-one-out predictive at the cavity (add_loo_predictive), train_error, status,
/// iterations.
void add_fit(Results& r, const Likelihood& lik, const Eigen::VectorXd& t, const MeanFieldFit& fit);

}  // namespace quench::latent_gp
