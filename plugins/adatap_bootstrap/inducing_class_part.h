// Eq M4 of the C-class replica model on the inducing-point prior (docs/adatap_multiclass.md,
// "On the inducing-point prior"): K~_c = diag(Lambda_c) + U_c U_c^T for each class c
// (quench/low_rank_prior.h; one prior for every class, or one per class on the same inducing
// inputs), so that f_c = U_c v_c + e_c with v ~ N(0, I_CM) and e_ic ~ N(0, Lambda_ic)
// (quench/inducing_class_features.h). Point i's Gaussian site exp(-1/2 f_i^T D_i f_i +
// gamma_i^T f_i) (C x C and C) integrated over e_i leaves, with T_i = (I + Lambda_i D_i)^-1,
//   D~_i = D_i T_i,  gamma~_i = T_i^T gamma_i  on the rows g_i = (u_ic^T v_c)_c,
// so v's posterior has precision A = I + sum_i U_i^T D~_i U_i (blocks
// A[c, e] = delta_ce I + U_c^T diag(D~[c, e]) U_e, CM x CM) and mean mu = A^-1 sum_i U_i^T
// gamma~_i; given v, f_i has mean T_i (g_i + Lambda_i gamma_i) and covariance T_i Lambda_i. So
//   m_i = T_i (U_i mu + Lambda_i gamma_i),   V_i = G_ii = T_i S_i T_i^T + T_i Lambda_i,
//   G_ij = T_i U_i Sigma U_j^T T_j^T + delta_ij T_i Lambda_i,   Sigma = A^-1,
// with S_i = U_i Sigma U_i^T. The bootstrap covariance C_i = -sum_j G_ij lambda_j G_ji (the
// linear terms spread with covariance -lambda_j, independently over the points) is
//   C_i = T_i Y_i T_i^T - V_i lambda_i V_i + A_i lambda_i A_i,   A_i = T_i S_i T_i^T,
// Y_i = U_i Y U_i^T, Y = -Sigma Xi Sigma, Xi = sum_j U_j^T T_j^T lambda_j T_j U_j: Y is the
// bootstrap covariance of mu, as at a new input (eq M9). On VFE and SoR, Lambda = 0 and T = I.
// Cost per evaluation: C(C+1) weighted products U_c^T diag(w) U_e and C(C+1) products of
// N x M by M x M (N M^2 each; SYRK with one kernel), and (CM)^3 for A's factor, Sigma and Y;
// memory O(C N M) (the factors) and O((CM)^2). No N x N matrix.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "class_solver.h"
#include "quench/inducing_class_features.h"
#include "quench/low_rank_prior.h"

namespace quench::adatap {

/// The posterior of the whitened inducing values v (CM, class c's block at c M) at the sites:
/// its bootstrap mean mu, covariance Sigma and the bootstrap covariance Y of mu (>= 0).
struct InducingClassWeights {
  Eigen::VectorXd mean;
  Eigen::MatrixXd within, spread;
};

class InducingClassPart {
 public:
  /// On `priors`: one for every class, or one per class (the same rows and inducing inputs);
  /// refers to them.
  InducingClassPart(std::vector<const LowRankPrior*> priors, Eigen::Index classes);
  /// The header's m, V and C at s's sites; keeps the weights. NumericalError when A is not
  /// positive definite (sites that are not finite).
  void operator()(ClassSolution& s);
  /// Each point's largest prior variance K~_c,ii over the classes.
  Eigen::VectorXd variance() const;
  /// The weights at the last evaluation.
  const InducingClassWeights& weights() const { return weights_; }

 private:
  std::vector<const LowRankPrior*> priors_;
  Eigen::Index classes_;
  std::vector<const Eigen::MatrixXd*> U_;  // each prior's factor
  Eigen::MatrixXd residual_;               // N x C: Lambda_i as rows
  InducingClassWeights weights_;
};

/// Eq M9 at new inputs whose features are `u`: mean u_c^T mu_c, within-sample covariance
/// u_c^T Sigma[c, e] u_e + delta_ce r_c (r the residual variance), spread u_c^T Y[c, e] u_e.
ClassPredictive inducing_class_predictive(const InducingClassWeights& weights,
                                          const InducingClassFeatures& u, Eigen::Index classes);

}  // namespace quench::adatap
