// The Gaussian posterior of a latent GP with diagonal sites, f ~ N(0, C) times
// prod_i exp(-tau_i f_i^2 / 2 + nu_i f_i): Sigma = (C^{-1} + T)^{-1} from one factorization in
// a stable form, and the cavity variances of EP/TAP (001 eq 28). Shared by the site-based
// engines (EP, TAP, naive mean field, the multi-class sweeps).
#pragma once

#include <limits>
#include <optional>
#include <vector>

#include <Eigen/Core>
#include <Eigen/LU>

#include "quench/cholesky.h"
#include "quench/export.h"

namespace quench {

/// Working precision of the O(N^3) factorization of I + S C S. `single`: spotrf + strtri
/// (+ slauum), about 2x cheaper, results to ~1e-7 cond(I + S C S) relative: for intermediate
/// steps of an iteration whose fixed point is confirmed in double precision afterwards.
enum class Precision { full, single };

/// The sites J with tau_j < 0 (a likelihood that is not log-concave: the Student-t's outliers,
/// label noise kappa > 0; Jylanki, Vanhatalo & Vehtari 2011) as a rank-r correction of the
/// posterior Sigma_+ = (C^{-1} + T_+)^{-1} of the sites with tau_+ = max(tau, 0), which the
/// Cholesky form handles (Woodbury, N = diag(-tau_J), U the columns J of I):
///   Sigma = (Sigma_+^{-1} - U N U^T)^{-1} = Sigma_+ + G H^{-1} G^T,
///   G = Sigma_+ U (N x r),  H = N^{-1} - U^T Sigma_+ U (r x r),
/// O(N^2 r) beside the O(N^3) of Sigma_+; Sigma is positive definite iff H is. H by a pivoted
/// LU (any sign: a state where Sigma is not positive definite is reported by log_det's NaN).
class QUENCH_API NegativeSiteCorrection {
 public:
  /// `sigma_columns` = G, the columns `index` of Sigma_+; tau the sites' precisions (all N).
  NegativeSiteCorrection(const Eigen::VectorXd& tau, std::vector<Eigen::Index> index,
                         Eigen::MatrixXd sigma_columns);
  const std::vector<Eigen::Index>& index() const { return index_; }
  const Eigen::MatrixXd& sigma_columns() const { return g_; }  ///< G
  const Eigen::MatrixXd& weights() const { return w_; }        ///< H^{-1} G^T
  /// diag(G H^{-1} G^T), what Sigma_ii gains.
  Eigen::VectorXd diagonal() const;
  /// G H^{-1} G^T v.
  Eigen::VectorXd times(const Eigen::VectorXd& v) const;
  /// log det(N) + log det(H) = log det(I + C T) - log det(I + C T_+); NaN when det H <= 0.
  double log_det() const;

 private:
  std::vector<Eigen::Index> index_;
  Eigen::VectorXd tau_;  ///< tau_J
  Eigen::MatrixXd g_, w_;
  Eigen::PartialPivLU<Eigen::MatrixXd> h_;
};

/// Site precisions tau_i = 1/Omega_i with the prior covariance C (noise on the diagonal).
/// B = I + S C S, S = diag(sqrt max(tau, 0)), so that (Omega + C)^{-1} = S B^{-1} S when every
/// tau_i >= 0, without ever forming Omega (infinite where tau = 0); one Cholesky of B. Sites
/// with tau_i < 0 add a NegativeSiteCorrection (O(N^2 r) for r of them).
/// Precision::single (all tau_i >= 0 only, else full): B^{-1} = L^{-T} L^{-1} from
/// inverse_lower_single; throws NumericalError when B is not positive definite in single.
class QUENCH_API SiteSystem {
 public:
  SiteSystem(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau,
             Precision precision = Precision::full);
  /// (I + T C)^{-1} r = r - T Sigma r, T = diag(tau): the Newton system of the alpha equations
  /// at fixed lambda (mean_field.cpp); r - S B^{-1} S C r when every tau_i >= 0.
  Eigen::VectorXd solve_newton(const Eigen::VectorXd& r) const;
  /// B^{-1} w (either precision).
  Eigen::VectorXd solve_b(const Eigen::VectorXd& w) const;
  /// log det(I + C T) (= log det B when every tau_i >= 0); NaN when the determinant is not
  /// positive (Sigma = (C^{-1} + T)^{-1} is then not positive definite).
  double log_det() const;
  /// Sigma v = (I + C T)^{-1} C v: C v - C S B^{-1} S C v, plus the correction's G H^{-1} G^T v.
  Eigen::VectorXd sigma_times(const Eigen::VectorXd& v) const;
  /// Every tau_i >= 0 (no correction).
  bool nonnegative_sites() const { return !negative_.has_value(); }
  /// (Omega + C)^{-1}: S B^{-1} S (dpotri on the factor), or T - T Sigma T with negative sites.
  /// Precision::full.
  Eigen::MatrixXd inverse_omega_plus_c() const;
  /// The lower Cholesky factor L of B = L L^T (every tau_i >= 0, Precision::full), else nullptr.
  const Eigen::MatrixXd* b_factor() const {
    return chol_ && !negative_ ? &chol_->lower() : nullptr;
  }
  const Eigen::VectorXd& site_scale() const { return s_; }  ///< sqrt(max(tau_i, 0))

 private:
  /// Sigma_+ v from cv = C v.
  Eigen::VectorXd positive_sigma_times(const Eigen::VectorXd& cv) const;

  const Eigen::MatrixXd& C_;
  Eigen::VectorXd tau_, s_;
  std::optional<Cholesky> chol_;
  std::optional<Eigen::MatrixXf> inv_lower_single_;  ///< L^{-1}, Precision::single
  std::optional<NegativeSiteCorrection> negative_;
};

/// The full posterior covariance Sigma = (C^{-1} + T)^{-1} and the cavity variances of eq 28
/// from one factorization, every site to full relative accuracy. All tau_i >= 0: B = I + S C S
/// (tau floored at 1e-200, which leaves B unchanged to rounding) and B^{-1} = L^{-T} L^{-1} in
/// place (inverse_lower_double + dlauum of quench/cholesky.h, 3 N^3/3 flops); Sigma = S^{-1} B^{-1}
/// S C, i.e. Sigma_ij = -[B^{-1}]_ij/(s_i s_j) off the diagonal and Sigma_ii = (1 - b_i)/tau_i
/// where q_i = 1 - b_i >= 1e-3, else (1/s_i) sum_k [B^{-1}]_ik s_k C_ki (no cancellation for weakly
/// constrained sites; the entries of B^{-1} in row i scale with s_i, so the division is exact in
/// relative terms). Some tau_i < 0: Sigma_+ of tau_+ = max(tau, 0) so, then its
/// NegativeSiteCorrection (b_i = 1 - tau_i Sigma_ii from b_+ without cancellation).
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
/// Some tau_i < 0: their NegativeSiteCorrection from the columns J of Sigma_+ (O(N^2 r)). With `nu`
/// (the sites' precision times mean) also the posterior mean Sigma nu = C nu - C S B^{-1} S C nu
/// from the same L^{-1} (two symv and two trmv, O(N^2)): everything a parallel EP sweep needs from
/// one factorization.
QUENCH_API PosteriorCovariance cavity_variances(const Eigen::MatrixXd& C,
                                                const Eigen::VectorXd& tau,
                                                Precision precision = Precision::full,
                                                const Eigen::VectorXd* nu = nullptr);

}  // namespace quench
