// The Gaussian model on the inducing-point prior, y ~ N(0, K~ + diag(phi)) with K~ = Lambda +
// U U^T (quench/low_rank_prior.h): its posterior quantities and log density in O(N M^2) time
// (posterior), and the log density's gradient by the kernel's hyperparameters and by each
// phi_i with one N x M array beyond U (evidence; docs/large_n.md, "Evidence and its
// gradient"). Sparse GP regression fits and learns with them (phi = sigma^2, Titsias' trace
// term for VFE); a site-based engine's log Z at fixed sites is the same quantity (phi = 1 /
// tau, y = nu / tau).
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "quench/export.h"
#include "quench/kernel.h"
#include "quench/low_rank_prior.h"

namespace quench {

/// C = K~ + diag(phi) = diag(psi) + U U^T, psi = Lambda + phi, through
/// B = I + U^T diag(1/psi) U = L_B L_B^T (M x M).
struct QUENCH_API LowRankGaussianPosterior {
  Eigen::VectorXd psi;               ///< Lambda + phi (> 0)
  Eigen::LLT<Eigen::MatrixXd> b;     ///< the Cholesky factor of B
  Eigen::VectorXd alpha;             ///< C^-1 y
  Eigen::VectorXd weights;           ///< U^T alpha: the mean at x is u(x)^T weights
  Eigen::VectorXd inverse_diagonal;  ///< [C^-1]_ii
  double log_density = 0;            ///< log N(y | 0, C)
};

/// Throws NumericalError when some psi_i <= 0 or B is not positive definite. `scaled`, when
/// given, receives diag(1/psi) U L_B^-T (N x M), whose squared row norms gave diag C^-1.
QUENCH_API LowRankGaussianPosterior low_rank_gaussian_posterior(const LowRankPrior& prior,
                                                                const Eigen::VectorXd& y,
                                                                const Eigen::VectorXd& phi,
                                                                Eigen::MatrixXd* scaled = nullptr);

struct LowRankEvidence {
  /// log N(y | 0, K~ + diag(phi)) - trace_weight * sum_i (K_ii - Q_ii).
  double value = 0;
  /// d value / d theta for the kernel's flat hyperparameters (through K(X, Z), K(Z, Z) and
  /// diag K(X, X); a "noise" entry of the kernel gets 0 here: it enters through phi).
  Eigen::VectorXd kernel_gradient;
  /// d value / d phi_i = 1/2 (alpha_i^2 - [(K~ + diag phi)^-1]_ii).
  Eigen::VectorXd noise_gradient;
  /// (K~ + diag(phi))^-1 y.
  Eigen::VectorXd alpha;
  /// sum_i (K_ii - Q_ii): the trace term's sum (its phi-derivative is the caller's).
  double residual_trace = 0;
};

/// For the prior built on the rows of X (the inputs it was built with) by `kernel` at its
/// current hyperparameters; phi_i + Lambda_i > 0. trace_weight: 1 / (2 sigma^2) for
/// Titsias' VFE bound, 0 otherwise. The jitter on K_mm is differentiated as what it is, a
/// fixed fraction of K_mm's mean diagonal. Throws NumericalError as low_rank_gaussian_posterior.
QUENCH_API LowRankEvidence low_rank_gaussian_evidence(
    const Kernel& kernel, const Eigen::MatrixXd& X, const LowRankPrior& prior,
    const Eigen::VectorXd& y, const Eigen::VectorXd& phi, double trace_weight);

/// The kernel gradient of any quantity F that depends on the inducing-point prior only through
/// K~ = Lambda + U U^T (a Gaussian integral over the latents, as an EP fixed point's log Z at
/// fixed sites), from its partial derivatives at fixed Lambda and U:
///   factor_gradient    dF/dU (N x M), which is 2 Psi U for some symmetric Psi since F sees U
///                      only through U U^T,
///   diagonal_gradient  dF/dLambda_i (N; FITC only: Lambda = diag(K - Q); ignored for VFE, SoR).
/// With U = K_nm L^-T and Lambda_i = k_ii - |u_i|^2, the total dF/dU is
/// G = factor_gradient - 2 diag(diagonal_gradient) U, and
///   dF = <dK_nm, G L^-1> - <dK_mm, 1/2 L^-T sym(U^T G) L^-1> + sum_i delta_i dk_ii
/// plus the jitter's term, as low_rank_gaussian_evidence's kernel gradient (trace weight 0). A
/// "noise" entry of the kernel gets 0: it enters where the caller adds it to Lambda.
/// Two N M^2 products and the kernel's contractions.
QUENCH_API Eigen::VectorXd low_rank_kernel_gradient(const Kernel& kernel, const Eigen::MatrixXd& X,
                                                    const LowRankPrior& prior,
                                                    const Eigen::MatrixXd& factor_gradient,
                                                    const Eigen::VectorXd& diagonal_gradient);

/// Sparse GP regression's evidence with one noise variance sigma2 on every row and no diagonal
/// correction (VFE, SoR: K~ = Q on the training inputs), from K(X, Z) without forming U: the
/// value and kernel gradient of low_rank_gaussian_evidence with phi = sigma2 and the prior
/// LowRankPrior(kernel, X, inducing) would build, and the sum of its noise gradient. One dsyrk
/// (K_mn K_nm) and one product (K_nm by an M x M matrix, in row blocks), 3 N M^2 flops and one
/// N x M array, against 5 N M^2 and three (docs/large_n.md, "Evidence and its gradient").
struct SharedNoiseEvidence {
  double value = 0;
  Eigen::VectorXd kernel_gradient;
  double noise_gradient = 0;  ///< sum_i d value / d phi_i at phi = sigma2 (trace weight fixed)
  double residual_trace = 0;  ///< sum_i (K_ii - Q_ii)
  double jitter = 0;          ///< the absolute jitter on K_mm
};

/// std::invalid_argument for a FITC `inducing` (its Lambda varies by row: use
/// low_rank_gaussian_evidence); NumericalError as low_rank_gaussian_evidence; ConfigError when
/// the N x M array does not fit (LowRankPrior::check_memory).
QUENCH_API SharedNoiseEvidence shared_noise_evidence(const Kernel& kernel, const Eigen::MatrixXd& X,
                                                     const InducingInputs& inducing,
                                                     const Eigen::VectorXd& y, double sigma2,
                                                     double trace_weight);

}  // namespace quench
