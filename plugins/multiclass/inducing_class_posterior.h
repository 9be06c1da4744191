// The posterior of C latent GPs coupled by multi-class sites (class_posterior.h) on the
// inducing-point prior D_c + U_c U_c^T of each class c (quench/site_prior.h's InducingSitePrior:
// D_c = Lambda_c + v2_c, FITC, VFE or SoR, on inducing inputs Z shared by the classes; one
// prior for every class, D_c = D and U_c = U, when the kernel is shared, one per class with a
// kernel per class), with no N x N matrix (docs/multiclass.md, "The joint model on the
// inducing-point prior").
//
// Write f_c = U_c a_c + e_c with the whitened inducing values a_c ~ N(0, I_M) and
// e_ci ~ N(0, d_ic), all independent (d_i = (D_c[i])_c, point i's C residual variances).
// Integrating e_i against point i's site exp(-1/2 f_i^T Pi_i f_i + h_i^T f_i),
// Pi_i = diag(pi) - pi pi^T / s (s = 1^T pi), leaves a site on (u_ic^T a_c)_c with
//   R_i  = (I + diag(d_i) Pi_i)^{-1} = diag(1 / (1 + d_i o pi)) + (d_i o g) g^T / sigma,
//   Pi^_i = Pi_i R_i = diag(g) - g g^T / sigma,   h^_i = R_i^T h_i,
//   g = pi / (1 + d_i o pi) (elementwise),  sigma = 1^T g
// (Sherman-Morrison, and d_i o pi o g = pi - g), a site of Pi's own form with g for pi. So a's
// posterior is N(a_bar, P^{-1}) with
//   P[c, k] = delta_ck I + U_c^T diag(Pi^[c, k]) U_k  (P >= I),   P a_bar = (U_c^T h^_c)_c,
// and, given a, e_i is Gaussian: the marginals of f_i are
//   mu_i = R_i (t_i + d_i o h_i),   Sigma_i = R_i diag(d_i) + R_i S_i R_i^T,
//   t_ic = u_ic^T a_bar_c,   S_i[c, k] = u_ic^T P^{-1}[c, k] u_ik,
// and log det(I + K~ Pi) = sum_i [sum_c log(1 + d_ic pi_ic) + log(sigma_i / s_i)] + log det P.
// Cost: C(C+1)/2 weighted products U_c^T diag(w) U_k and as many products U_c P^{-1}[c, k]:
// 3/2 C(C+1) N M^2 flops with one shared prior (the products for P are weighted Gram
// matrices, SYRK), about (2C^2 + C) N M^2 with a prior per class (GEMMs off the diagonal);
// and the Cholesky factor and inverse of P, (CM)^3 — no N^3 term.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "class_posterior.h"
#include "quench/kernel.h"
#include "quench/site_prior.h"

namespace quench::multiclass {

/// The C latent GPs on `priors`: one InducingSitePrior shared by every class, or one per class
/// (the same rows and inducing inputs); refers to them.
class InducingClassPrior final : public ClassPrior {
 public:
  explicit InducingClassPrior(const InducingSitePrior& shared);
  explicit InducingClassPrior(std::vector<const InducingSitePrior*> per_class);
  Eigen::Index size() const override { return priors_.front()->factor().rows(); }
  /// max_c of the classes' prior variances.
  Eigen::VectorXd variance() const override;
  /// The header's algebra; Precision::single (sweeps far from the fixed point): the N M^2
  /// products in single precision (marginals to ~1e-6 relative), P, its factor and inverse in
  /// double. Posterior::coupling holds an InducingCoupling. Throws NumericalError when P is not
  /// positive definite (non-finite sites).
  ClassPosterior posterior(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& h,
                           Precision precision) const override;

 private:
  std::vector<const InducingSitePrior*> priors_;  // 1 (shared) or C
  std::vector<Eigen::MatrixXf> U_single_;         // each U_c in single precision
};

/// d log Z_EP / dtheta of `kernel` (shared, or a kernel per class: quench/class_kernels.h) at
/// a fixed point with sites (pi, h), posterior `post` of InducingClassPrior(priors) (priors of
/// class_kernel(kernel, c) at X) and b = h - Pi mu (multiclass_mean_weights). log Z_EP is
/// stationary in the sites there, so its gradient is that of the Gaussian integral
/// log Z_G = log E_a,e exp(-1/2 f^T Pi f + h^T f), whose partial derivatives are (Fisher's
/// identity, with Stein's lemma for the variances d_ic):
///   d/dU_c  = E[r_c a_c^T] = b_c a_bar_c^T - sum_k diag(Pi^[c, k]) U_k P^{-1}[k, c],
///   d/dd_ic = 1/2 E[r_ic^2 - Pi_i[c, c]] = 1/2 (b_ic^2 + (Pi_i Sigma_i Pi_i)[c, c] - Pi_i[c, c]),
/// r = h - Pi f; each kernel's entries by low_rank_kernel_gradient from its classes' sums
/// (D = Lambda + v2) and its "noise" entry v2 as the sum of its d/dd_ic.
Eigen::VectorXd inducing_class_evidence_gradient(
    const Kernel& kernel, const Eigen::MatrixXd& X,
    const std::vector<const InducingSitePrior*>& priors, const Eigen::MatrixXd& pi,
    const Eigen::MatrixXd& b, const ClassPosterior& post);

}  // namespace quench::multiclass
