// `learn: {objective: loo}` for the joint multi-class model (docs/multiclass.md, "Learning by
// leave-one-out"): the built-in leave-one-out log predictive
//   L = (1/N) sum_i log p(y_i | N(f; m_ci, V_ci)),
// (m_ci, V_ci) point i's cavity at the nested-EP fixed point on the exact prior P =
// blockdiag(K_c), the value the engine reports as loo_log_predictive, with its exact gradient in
// the kernel's hyperparameters.
//
// The cavities move with theta directly (through P at fixed sites) and through the sites: the
// fixed point is x = G(c(x, P)), x_i = point i's factor sites (tau_j, nu_j), j != y_i (2(C - 1)),
// G point by point the inner EP matched to convergence at the cavity c_i = (m_ci, V_ci). By the
// implicit function theorem, with the adjoint y of
//   (I - G_c c_x)^T y = c_x^T dL/dc          (dense LU of order 2(C - 1) N),
//   dL/dtheta = (dL/dc + G_c^T y) . dc/dP|_x : dP/dtheta.
// c_x in closed form: with the site form (Pi_j, h_j) (quench/class_likelihood.h) and Sigma the
// posterior covariance, dSigma_ii = -Sigma_ij dPi_j Sigma_ji and dmu_i = Sigma_ij (dh_j - dPi_j
// mu_j), then the cavity from A_i = Sigma_ii^-1: V_ci = (A_i - Pi_i)^-1, m_ci = V_ci (A_i mu_i -
// h_i). dc/dP in closed form: dSigma = B dP B^T, dmu = B dP b with B = (I + P Pi)^-1 and b = B^T h
// the mean weights, so the kernel part is one contraction W = B^T X B + sym(B^T z b^T) with X
// block-diagonal by point. G_c and dL/dc (the inner EP and the likelihood's predictive, both
// solved to 1e-12) by central differences in the cavity's n_c = C + C(C + 1)/2 coordinates, at
// steps of 1e-4 of the smallest contrast variance v (sqrt v for the means; the likelihood sees
// only contrasts f_a - f_b, and the common direction's variance grows with the amplitude).
// Cost beyond the fit: the LU of I + P Pi (order CN), 2(C - 1) N^2 C x C block products for
// c_x, the LU of order 2(C - 1) N, B^T X B ((CN)^3), and 2 (C + 1) n_c inner EPs per point for
// the differences (2 n_c for G_c, 2 n_c predictives of C each for dL/dc).
#pragma once

#include <memory>
#include <vector>

#include <Eigen/Core>

#include "multiclass_ep.h"
#include "quench/class_likelihood.h"
#include "quench/hyperparameter_objective.h"
#include "quench/kernel.h"

namespace quench::multiclass {

/// L and dL/dtheta of `kernel` (its flat vector) at a converged fit (points once each) with
/// labels y on the prior of the Gram matrices K (one, or one per class) at X; `threads` for the
/// per-point work (the same bits for any count).
ObjectiveValue class_loo_value_and_gradient(const Kernel& kernel, const Eigen::MatrixXd& X,
                                            const std::vector<Eigen::MatrixXd>& K,
                                            const Eigen::VectorXi& y,
                                            const ClassLikelihood& likelihood,
                                            const MulticlassFit& fit, int threads);

}  // namespace quench::multiclass
