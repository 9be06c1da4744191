// Shared algebra of the GP classifiers of Opper & Winther (001, 003): labels, the Gaussian
// site system (Omega + C)^{-1} in a stable form, the TAP/EP fixed-point quantities and the
// predictions at test inputs.
#pragma once

#include <limits>
#include <optional>

#include <Eigen/Core>
#include <Eigen/LU>

#include "quench/cholesky.h"
#include "quench/inference_engine.h"
#include "quench/likelihood.h"

namespace quench::gp_classification {

/// Working precision of the O(N^3) factorization of I + S C S. `single`: spotrf + strtri
/// (+ slauum), about 2x cheaper, results to ~1e-7 cond(I + S C S) relative: for intermediate
/// steps of an iteration whose fixed point is confirmed in double precision afterwards.
enum class Precision { full, single };

/// Site precisions tau_i = 1/Omega_i with the prior covariance C (noise on the diagonal).
/// When every tau_i >= 0: B = I + S C S, S = diag(sqrt tau), so that
/// (Omega + C)^{-1} = S B^{-1} S without ever forming Omega (infinite where tau = 0); one
/// Cholesky of B. Negative tau (label noise kappa > 0 makes the likelihood non-log-concave)
/// falls back to an LU factorization of M = I + C T: Sigma = M^{-1} C, (Omega + C)^{-1} = T M^{-1}.
/// Precision::single (all tau_i >= 0 only, else full): B^{-1} = L^{-T} L^{-1} from
/// inverse_lower_single; throws NumericalError when B is not positive definite in single.
class SiteSystem {
 public:
  SiteSystem(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau,
             Precision precision = Precision::full);
  /// (I + T C)^{-1} r, T = diag(tau): the Newton system of the alpha equations at fixed lambda
  /// (mean_field.cpp). Cholesky form r - S B^{-1} S C r; LU form r - T M^{-1} C r.
  Eigen::VectorXd solve_newton(const Eigen::VectorXd& r) const;
  /// B^{-1} w (Cholesky form only: every tau_i >= 0; either precision).
  Eigen::VectorXd solve_b(const Eigen::VectorXd& w) const;
  /// log det(I + C T) (= log det B in the Cholesky form); NaN when the determinant is not
  /// positive (LU form: Sigma = (C^{-1} + T)^{-1} is then not positive definite).
  double log_det() const;
  /// Sigma v = (I + C T)^{-1} C v: C v - C S B^{-1} S C v, or M^{-1} C v (LU form).
  Eigen::VectorXd sigma_times(const Eigen::VectorXd& v) const;
  bool log_concave() const { return !lu_.has_value(); }
  /// (Omega + C)^{-1}: S B^{-1} S (dpotri on the factor), or T M^{-1} (LU form). Precision::full.
  Eigen::MatrixXd inverse_omega_plus_c() const;
  /// The lower Cholesky factor L of B = L L^T (Cholesky form, Precision::full), else nullptr.
  const Eigen::MatrixXd* b_factor() const { return chol_ ? &chol_->lower() : nullptr; }
  const Eigen::VectorXd& site_scale() const { return s_; }  ///< sqrt(max(tau_i, 0))

 private:
  const Eigen::MatrixXd& C_;
  Eigen::VectorXd tau_, s_;
  std::optional<Cholesky> chol_;
  std::optional<Eigen::MatrixXf> inv_lower_single_;  ///< L^{-1}, Precision::single
  std::optional<Eigen::PartialPivLU<Eigen::MatrixXd>> lu_;
};

/// The full posterior covariance Sigma = (C^{-1} + T)^{-1} and the cavity variances of eq 28
/// from one factorization, every site to full relative accuracy. All tau_i >= 0: B = I + S C S
/// (tau floored at 1e-200, which leaves B unchanged to rounding) and B^{-1} = L^{-T} L^{-1} in
/// place (inverse_lower_double + dlauum of quench/cholesky.h, 3 N^3/3 flops); Sigma = S^{-1} B^{-1}
/// S C, i.e. Sigma_ij = -[B^{-1}]_ij/(s_i s_j) off the diagonal and Sigma_ii = (1 - b_i)/tau_i
/// where q_i = 1 - b_i >= 1e-3, else (1/s_i) sum_k [B^{-1}]_ik s_k C_ki (no cancellation for weakly
/// constrained sites; the entries of B^{-1} in row i scale with s_i, so the division is exact in
/// relative terms). Some tau_i < 0 (label noise): LU of I + C T, Sigma = (I + C T)^{-1} C.
/// Precision::single (all tau_i >= 0 only): B^{-1} from inverse_lower_single + slauum (throws
/// NumericalError when B is not positive definite in single precision).
struct PosteriorCovariance {
  Eigen::MatrixXd sigma;   ///< Sigma, symmetric
  Eigen::VectorXd b;       ///< 1 - tau_i Sigma_ii (= [B^{-1}]_ii)
  Eigen::VectorXd lambda;  ///< eq 28: lambda_i = Sigma_ii / b_i
  Eigen::VectorXd mean;    ///< Sigma nu, when the sites' nu is given (cavity_variances)
  /// log det B = log det(I + S C S) (posterior_covariance, all tau_i >= 0; NaN otherwise).
  double log_det_b = std::numeric_limits<double>::quiet_NaN();
};
PosteriorCovariance posterior_covariance(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau,
                                         Precision precision = Precision::full);

/// Eq 28 from the posterior marginal variances diag (clamped at 0 in place) and p.b = 1 -
/// tau_i Sigma_ii: p.lambda_i = diag_i / b_i, floored at 1e-12 of the prior variance C_ii
/// (total cancellation in Sigma_ii for a nearly singular C would make tau infinite).
void cavities_from_marginals(const Eigen::VectorXd& prior_variance, Eigen::VectorXd& diag,
                             PosteriorCovariance& p);

/// b and lambda of posterior_covariance only (sigma left empty), from L^{-1} (B = L L^T) without
/// the dlauum of the full B^{-1}: [B^{-1}]_ii = |L^{-1} e_i|^2, and the columns of B^{-1} that
/// the weakly constrained sites need (q_i < 1e-3) as L^{-T} L^{-1} e_i. 2/3 of the flops of
/// posterior_covariance while those sites are few; for a refresh whose Sigma may not be needed.
/// Some tau_i < 0: the full computation. With `nu` (the sites' precision times mean) also the
/// posterior mean Sigma nu = C nu - C S B^{-1} S C nu from the same L^{-1} (two symv and two
/// trmv, O(N^2)): everything a parallel EP sweep needs from one factorization.
PosteriorCovariance cavity_variances(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau,
                                     Precision precision = Precision::full,
                                     const Eigen::VectorXd* nu = nullptr);

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

}  // namespace quench::gp_classification
