// The Gaussian posterior of a latent GP with diagonal sites, f ~ N(0, C) times
// prod_i exp(-tau_i f_i^2 / 2 + nu_i f_i): Sigma = (C^{-1} + T)^{-1} from one factorization in
// a stable form, and the cavity variances of EP/TAP (001 eq 28). Shared by the site-based
// engines (EP, TAP, naive mean field, the multi-class sweeps).
#pragma once

#include <limits>
#include <optional>

#include <Eigen/Core>
#include <Eigen/LU>

#include "quench/cholesky.h"
#include "quench/export.h"

namespace quench {

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
class QUENCH_API SiteSystem {
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
QUENCH_API PosteriorCovariance posterior_covariance(const Eigen::MatrixXd& C,
                                                    const Eigen::VectorXd& tau,
                                                    Precision precision = Precision::full);

/// Eq 28 from the posterior marginal variances diag (clamped at 0 in place) and p.b = 1 -
/// tau_i Sigma_ii: p.lambda_i = diag_i / b_i, floored at 1e-12 of the prior variance C_ii
/// (total cancellation in Sigma_ii for a nearly singular C would make tau infinite).
QUENCH_API void cavities_from_marginals(const Eigen::VectorXd& prior_variance,
                                        Eigen::VectorXd& diag, PosteriorCovariance& p);

/// b and lambda of posterior_covariance only (sigma left empty), from L^{-1} (B = L L^T) without
/// the dlauum of the full B^{-1}: [B^{-1}]_ii = |L^{-1} e_i|^2, and the columns of B^{-1} that
/// the weakly constrained sites need (q_i < 1e-3) as L^{-T} L^{-1} e_i. 2/3 of the flops of
/// posterior_covariance while those sites are few; for a refresh whose Sigma may not be needed.
/// Some tau_i < 0: the full computation. With `nu` (the sites' precision times mean) also the
/// posterior mean Sigma nu = C nu - C S B^{-1} S C nu from the same L^{-1} (two symv and two
/// trmv, O(N^2)): everything a parallel EP sweep needs from one factorization.
QUENCH_API PosteriorCovariance cavity_variances(const Eigen::MatrixXd& C,
                                                const Eigen::VectorXd& tau,
                                                Precision precision = Precision::full,
                                                const Eigen::VectorXd* nu = nullptr);

}  // namespace quench
