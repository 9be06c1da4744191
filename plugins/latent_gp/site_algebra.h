// The site algebra of the latent-GP engines (EP, TAP, naive mean field; 001 Secs. 3-6, 003) for
// any scalar likelihood: one site's slope u = d log Z / dm and precision tau of its tilted
// normalizer at the cavity (m, lambda), the fixed point in those variables and its log evidence.
// 001's alpha of a binary target is t u: the label is the binary kind's reading, not a factor of
// the algebra (docs/design.md, "One latent-GP site algebra").
#pragma once

#include <Eigen/Core>

#include "quench/inference_engine.h"
#include "quench/likelihood.h"
#include "quench/site_posterior.h"
#include "quench/target.h"

namespace quench::latent_gp {

/// One site's quantities at cavity mean m and variance lambda (001 eqs 23, 29-30 with the
/// label folded into u): u = d log Z / dm, tau = 1/Omega = 1/Var_tilted - 1/lambda (either
/// sign: negative for a site that is not log-concave there, e.g. a Student-t outlier).
struct SiteMoments {
  double slope = 0.0;  ///< u = d log Z / dm (001's t alpha, eq 23)
  double tau = 0.0;    ///< 1/Omega_i
  double log_z = 0.0;  ///< log of the tilted normalizer
};
SiteMoments site_moments(const Likelihood& lik, const Observation& y, double m, double lambda);
/// The same from the tilted moments `tm` of the site at (m, lambda) (any site, e.g. a k-fold
/// power of the likelihood).
SiteMoments site_moments(const TiltedMoments& tm, double m, double lambda);

/// Derivatives of one site's slope (f = u = d log Z / dm, eq 23) and eqs 29-30 (tau = 1/Omega)
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
SiteDerivatives site_derivatives(const Likelihood& lik, const Observations& y,
                                 const Eigen::VectorXd& m, const Eigen::VectorXd& lambda);

/// A solved latent GP on the training set.
struct MeanFieldFit {
  Eigen::VectorXd slope;            ///< u_i (001's t_i alpha_i, eq 23): <h> = C u
  Eigen::VectorXd mean_field;       ///< <h_i> = sum_j C_ij u_j (eq 19)
  Eigen::VectorXd cavity_mean;      ///< <h_i>_\i = <h_i> - lambda_i u_i (eq 26)
  Eigen::VectorXd cavity_variance;  ///< lambda_i (eq 28)
  Eigen::VectorXd tau;              ///< 1/Omega_i
  int lambda_refreshes = 0;         ///< eq-28 refreshes (Newton TAP solver)
  Status status;
};

/// sum_i Theta(-t_i h_i), a tie (h_i = 0) counting as an error: an exact count.
Eigen::Index error_count(const Eigen::VectorXd& t, const Eigen::VectorXd& h);

/// (1/N) sum_i Theta(-t_i h_i), a tie (h_i = 0) counting as an error (eq 32).
double error_rate(const Eigen::VectorXd& t, const Eigen::VectorXd& h);

/// The site precision times the site mean, nu_i = tau_i mu~_i = tau_i m_i + u_i (1 + lambda_i
/// tau_i) (mu~_i = m_i + u_i (lambda_i + Omega_i)), finite as tau_i -> 0.
Eigen::VectorXd site_nu(const MeanFieldFit& fit);

/// One site's terms of log Z_EP besides the Gaussian normalizer of the sites (log_evidence):
/// log Zhat_i + 1/2 log(1 + lambda_i tau_i) + u_i^2 (1 + lambda_i tau_i) / (2 tau_i), the last
/// term 0 for tau_i <= 0.
double site_evidence_terms(const Likelihood& lik, const Observation& y, double m, double lambda,
                           double tau, double slope);

/// EP/TAP approximate log evidence log Z = log \int prod_i t~_i(h_i) N(h; 0, C) dh with the
/// Gaussian sites matched at the fixed point (the TAP free energy of 003 eqs 11-13); `sys` is
/// SiteSystem(C, fit.tau). Sites of either sign (tau_i < 0 where the likelihood is not
/// log-concave): NaN when Sigma = (C^{-1} + T)^{-1} is not positive definite.
double log_evidence(const Likelihood& lik, const Observations& y, const MeanFieldFit& fit,
                    const SiteSystem& sys);

}  // namespace quench::latent_gp
