#include "quench/low_rank_evidence.h"

#include <cmath>

#include "quench/errors.h"

namespace quench {
namespace {

/// R = diag(1/psi) U L_B^-T (N x M): [C^-1]_ii = 1/psi_i - |R_i|^2.
Eigen::MatrixXd scaled_factor(const LowRankPrior& prior, const LowRankGaussianPosterior& p) {
  Eigen::MatrixXd R = p.psi.cwiseInverse().asDiagonal() * prior.factor();
  p.b.matrixU().solveInPlace<Eigen::OnTheRight>(R);
  return R;
}

}  // namespace

// C^-1 = diag(1/psi) - diag(1/psi) U B^-1 U^T diag(1/psi) (Woodbury), log det C = sum log psi +
// log det B (the matrix determinant lemma).
LowRankGaussianPosterior low_rank_gaussian_posterior(const LowRankPrior& prior,
                                                     const Eigen::VectorXd& y,
                                                     const Eigen::VectorXd& phi,
                                                     Eigen::MatrixXd* scaled) {
  const Eigen::MatrixXd& U = prior.factor();
  const Eigen::Index n = U.rows(), m = U.cols();
  LowRankGaussianPosterior p;
  p.psi = prior.diagonal_correction() + phi;
  if (!(p.psi.minCoeff() > 0))
    throw NumericalError("low-rank posterior", "a noise variance phi_i + Lambda_i is not positive");
  const Eigen::ArrayXd inv_psi = p.psi.array().inverse();
  Eigen::MatrixXd B = Eigen::MatrixXd::Identity(m, m);
  B.selfadjointView<Eigen::Lower>().rankUpdate(
      (inv_psi.sqrt().matrix().asDiagonal() * U).transpose());
  p.b.compute(B);
  if (p.b.info() != Eigen::Success)
    throw NumericalError("low-rank posterior", "I + U^T diag(1/psi) U is not positive definite");
  const Eigen::VectorXd yp = (y.array() * inv_psi).matrix();
  p.alpha = yp - inv_psi.matrix().asDiagonal() * (U * p.b.solve(U.transpose() * yp));
  p.weights = U.transpose() * p.alpha;
  Eigen::MatrixXd R = scaled_factor(prior, p);
  p.inverse_diagonal = (inv_psi - R.rowwise().squaredNorm().array()).matrix();
  if (scaled) *scaled = std::move(R);
  const double log_det_B = 2.0 * p.b.matrixLLT().diagonal().array().log().sum();
  p.log_density = -0.5 * y.dot(p.alpha) - 0.5 * (p.psi.array().log().sum() + log_det_B) -
                  0.5 * static_cast<double>(n) * std::log(2 * M_PI);
  return p;
}

// With Omega = alpha alpha^T - C^-1, dC = dQ + dphi + [FITC] (dk_ii - dq_ii) and the trace term
// -t sum (k_ii - q_ii):
//   d value = 1/2 tr(Omega dQ) + 1/2 sum Omega_ii dphi_i + sum delta_i (dk_ii - dq_ii),
//   delta_i = [FITC] 1/2 Omega_ii - t,
// i.e. tr(Psi dQ) + sum delta_i dk_ii with Psi = 1/2 Omega - diag(delta). For Q = K_nm K_mm^-1
// K_mn and A^T = K_nm K_mm^-1 = U L^-1 (K_mm = L L^T, jitter fixed):
//   tr(Psi dQ) = <dK_nm, 2 Psi A^T> - <dK_mm, A Psi A^T>,
//   2 Psi A^T  = [alpha (alpha^T U) - diag(1/psi) U B^-1 - 2 diag(delta) U] L^-1,
//   A Psi A^T  = L^-T [1/2 (U^T alpha)(U^T alpha)^T - 1/2 (I - B^-1) - U^T diag(delta) U] L^-1,
// using U^T diag(1/psi) U B^-1 = (B - I) B^-1 = I - B^-1. Six N M^2 products in all (five for
// VFE and SoR with one noise variance, where U^T diag(delta) U = -t psi (B - I)).
LowRankEvidence low_rank_gaussian_evidence(const Kernel& kernel, const Eigen::MatrixXd& X,
                                           const LowRankPrior& prior, const Eigen::VectorXd& y,
                                           const Eigen::VectorXd& phi, double trace_weight) {
  const Eigen::MatrixXd& U = prior.factor();
  const Eigen::Index n = U.rows(), m = U.cols();
  Eigen::MatrixXd R;  // diag(1/psi) U L_B^-T
  const LowRankGaussianPosterior p = low_rank_gaussian_posterior(prior, y, phi, &R);
  LowRankEvidence out;
  out.alpha = p.alpha;
  out.residual_trace = prior.residual_variance().sum();
  out.value = p.log_density - trace_weight * out.residual_trace;
  const Eigen::VectorXd omega_diag = p.alpha.cwiseAbs2() - p.inverse_diagonal;
  out.noise_gradient = 0.5 * omega_diag;

  const bool fitc = prior.form() == LowRankForm::fitc;
  const Eigen::VectorXd delta =
      (fitc ? Eigen::VectorXd(0.5 * omega_diag) : Eigen::VectorXd::Zero(n)).array() - trace_weight;
  // 2 Psi A^T, built in R's storage: R L_B^-1 = diag(1/psi) U B^-1.
  p.b.matrixL().solveInPlace<Eigen::OnTheRight>(R);
  R *= -1.0;
  R.noalias() += p.alpha * p.weights.transpose();
  R.noalias() -= 2.0 * delta.asDiagonal() * U;
  const auto L = prior.inducing_cholesky().lower().triangularView<Eigen::Lower>();
  L.solveInPlace<Eigen::OnTheRight>(R);  // ... L^-1
  // A Psi A^T.
  Eigen::MatrixXd core = 0.5 * p.weights * p.weights.transpose();
  core.diagonal().array() -= 0.5;
  core += 0.5 * p.b.solve(Eigen::MatrixXd::Identity(m, m));
  if (fitc || phi.maxCoeff() != phi.minCoeff()) {
    core.noalias() -= U.transpose() * (delta.asDiagonal() * U);
  } else {  // delta = -t and psi = phi constant: U^T U = psi (B - I), no N M^2 product
    Eigen::MatrixXd UtU = p.b.reconstructedMatrix();
    UtU.diagonal().array() -= 1.0;
    core.noalias() += (trace_weight * phi(0)) * UtU;
  }
  L.transpose().solveInPlace(core);         // L^-T core
  L.solveInPlace<Eigen::OnTheRight>(core);  // ... L^-1
  const Eigen::MatrixXd& Z = prior.inducing_inputs();
  // The jitter on K_mm is a fixed fraction of its mean diagonal (LowRankPrior), so it moves
  // with the hyperparameters too: d jitter = jitter / mean(K_jj) * mean(dK_jj), entering as
  // -<d jitter I, core>.
  const double mean_variance = kernel.cross(Z, Z).diagonal().mean();
  const Eigen::VectorXd jitter_weight = Eigen::VectorXd::Constant(
      Z.rows(), -core.trace() * prior.jitter() / (mean_variance * static_cast<double>(Z.rows())));
  out.kernel_gradient = kernel.cross_derivative_contractions(X, Z, R) -
                        kernel.cross_derivative_contractions(Z, Z, core) +
                        kernel.diagonal_derivative_contractions(X, delta) +
                        kernel.diagonal_derivative_contractions(Z, jitter_weight);
  return out;
}

}  // namespace quench
