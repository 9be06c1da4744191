// The posterior of C latent GPs coupled by multi-class sites (class_posterior.h) on the
// inducing-point prior D + U U^T of every class (quench/site_prior.h's InducingSitePrior: D =
// Lambda + v2, FITC, VFE or SoR), with no N x N matrix (docs/multiclass.md, "The joint model on the
// inducing-point prior").
//
// Write f_c = U a_c + e_c with the whitened inducing values a_c ~ N(0, I_M) and e_ci ~ N(0, D_i),
// all independent. Integrating e_i against point i's site exp(-1/2 f_i^T Pi_i f_i + h_i^T f_i),
// Pi_i = diag(pi) - pi pi^T / s (s = 1^T pi), leaves a site on (u_i^T a_c)_c with
//   R_i  = (I + D_i Pi_i)^{-1} = diag(1 / (1 + D_i pi)) + D_i g g^T / sigma,
//   Pi^_i = Pi_i R_i = diag(g) - g g^T / sigma,   h^_i = R_i h_i,
//   g = pi / (1 + D_i pi) (elementwise),  sigma = 1^T g,
// a site of Pi's own form with g for pi. So a's posterior is N(a_bar, P^{-1}) with
//   P[c, k] = delta_ck I + U^T diag(Pi^[c, k]) U  (P >= I),   P a_bar = (U^T h^_c)_c,
// and, given a, e_i is Gaussian: the marginals of f_i are
//   mu_i = R_i (U_i a_bar + D_i h_i),   Sigma_i = D_i R_i + R_i S_i R_i,
//   S_i[c, k] = u_i^T P^{-1}[c, k] u_i,
// and log det(I + K~ Pi) = sum_i [sum_c log(1 + D_i pi_ic) + log(sigma_i / s_i)] + log det P.
// Cost: C(C+1)/2 weighted Gram matrices and as many products U P^{-1}[c, k], 3/2 C(C+1) N M^2
// flops, and the Cholesky factor and inverse of P, (CM)^3 — no N^3 term.
#pragma once

#include <Eigen/Core>

#include "class_posterior.h"
#include "quench/kernel.h"
#include "quench/site_prior.h"

namespace quench::multiclass {

/// The C latent GPs on `prior` (all its rows); refers to it.
class InducingClassPrior final : public ClassPrior {
 public:
  explicit InducingClassPrior(const InducingSitePrior& prior);
  Eigen::Index size() const override { return prior_.factor().rows(); }
  Eigen::VectorXd variance() const override { return prior_.variance(); }
  /// The header's algebra; Precision::single (sweeps far from the fixed point): the N M^2
  /// products in single precision (marginals to ~1e-6 relative), P, its factor and inverse in
  /// double. Posterior::coupling holds an InducingCoupling. Throws NumericalError when P is not
  /// positive definite (non-finite sites).
  ClassPosterior posterior(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& h,
                           Precision precision) const override;

 private:
  const InducingSitePrior& prior_;
  Eigen::MatrixXf U_single_;  // U in single precision
};

/// S_j[c, k] = u_j^T P^{-1}[c, k] u_j for the rows u_j of `features` (n x M) and the inverse
/// of P (CM x CM): C x Cn, block j = S_j. C(C+1)/2 products of n x M by M x M.
Eigen::MatrixXd inducing_class_covariances(const Eigen::MatrixXd& features,
                                           const Eigen::MatrixXd& precision_inverse,
                                           Eigen::Index classes);
/// The same in single precision.
Eigen::MatrixXf inducing_class_covariances(const Eigen::MatrixXf& features,
                                           const Eigen::MatrixXf& precision_inverse,
                                           Eigen::Index classes);

/// d log Z_EP / dtheta of the kernel at a fixed point with sites (pi, h), posterior `post` of
/// InducingClassPrior(prior) and b = h - Pi mu (multiclass_mean_weights). log Z_EP is stationary
/// in the sites there, so its gradient is that of the Gaussian integral
/// log Z_G = log E_a,e exp(-1/2 f^T Pi f + h^T f), whose partial derivatives are (Fisher's
/// identity, with Stein's lemma for the variance D_i):
///   d/dU   = sum_c E[r_c a_c^T] = b a_bar^T - sum_ck diag(Pi^[c, k]) U P^{-1}[k, c],
///   d/dD_i = 1/2 sum_c E[r_ci^2 - Pi_i[c, c]] = 1/2 (|b_i|^2 + tr(Pi_i Sigma_i Pi_i) - tr Pi_i),
/// r = h - Pi f; the kernel's entries by low_rank_kernel_gradient (D_i = Lambda_i + v2) and its
/// "noise" entry v2 as sum_i d/dD_i.
Eigen::VectorXd inducing_class_evidence_gradient(const Kernel& kernel, const Eigen::MatrixXd& X,
                                                 const InducingSitePrior& prior,
                                                 const Eigen::MatrixXd& pi,
                                                 const Eigen::MatrixXd& b,
                                                 const ClassPosterior& post);

}  // namespace quench::multiclass
