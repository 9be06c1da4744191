#include "quench/low_rank_evidence.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "quench/cholesky.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/errors.h"
#include "quench/hyperparameter.h"

namespace quench {
namespace {

// Rows per block of the N x M products that need not be held whole.
constexpr Eigen::Index kEvidenceBlockRows = 2048;

// The kernel gradient's terms through K(Z, Z) (-<dK_mm, core>), diag K(X, X) (sum delta_i
// dk_ii) and the jitter on K_mm, a fixed fraction of its mean diagonal (LowRankPrior), which
// moves with the hyperparameters too: d jitter = jitter / mean(K_jj) * mean(dK_jj), entering as
// -<d jitter I, core>.
Eigen::VectorXd inducing_and_diagonal_terms(const Kernel& kernel, const Eigen::MatrixXd& X,
                                            const Eigen::MatrixXd& Z, const Eigen::MatrixXd& core,
                                            const Eigen::VectorXd& delta, double jitter) {
  const double mean_variance = kernel.cross(Z, Z).diagonal().mean();
  const Eigen::VectorXd jitter_weight = Eigen::VectorXd::Constant(
      Z.rows(), -core.trace() * jitter / (mean_variance * static_cast<double>(Z.rows())));
  return -kernel.cross_derivative_contractions(Z, Z, core) +
         kernel.diagonal_derivative_contractions(X, delta) +
         kernel.diagonal_derivative_contractions(Z, jitter_weight);
}

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
// using U^T diag(1/psi) U B^-1 = (B - I) B^-1 = I - B^-1. Five N M^2 products (B, the scaled
// factor, two triangular solves, U^T diag(delta) U by rank updates; none for the last where
// delta = 0, as for EP's sites on VFE and SoR, or with one noise variance, where
// U^T diag(delta) U = -t psi (B - I)).
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
  if (fitc || phi.maxCoeff() != phi.minCoeff()) {  // rows with delta_i = 0 cost nothing
    core -= Eigen::MatrixXd(weighted_gram(U, delta).selfadjointView<Eigen::Lower>());
  } else {  // delta = -t and psi = phi constant: U^T U = psi (B - I), no N M^2 product
    Eigen::MatrixXd UtU = p.b.reconstructedMatrix();
    UtU.diagonal().array() -= 1.0;
    core.noalias() += (trace_weight * phi(0)) * UtU;
  }
  L.transpose().solveInPlace(core);         // L^-T core
  L.solveInPlace<Eigen::OnTheRight>(core);  // ... L^-1
  out.kernel_gradient =
      kernel.cross_derivative_contractions(X, prior.inducing_inputs(), R) +
      inducing_and_diagonal_terms(kernel, X, prior.inducing_inputs(), core, delta, prior.jitter());
  return out;
}

Eigen::VectorXd low_rank_kernel_gradient(const Kernel& kernel, const Eigen::MatrixXd& X,
                                         const LowRankPrior& prior,
                                         const Eigen::MatrixXd& factor_gradient,
                                         const Eigen::VectorXd& diagonal_gradient) {
  const Eigen::MatrixXd& U = prior.factor();
  const Eigen::VectorXd delta = prior.form() == LowRankForm::fitc
                                    ? diagonal_gradient
                                    : Eigen::VectorXd(Eigen::VectorXd::Zero(U.rows()));
  Eigen::MatrixXd G = factor_gradient;
  G.noalias() -= 2.0 * delta.asDiagonal() * U;
  Eigen::MatrixXd core = U.transpose() * G;
  core = 0.25 * (core + core.transpose()).eval();
  const auto L = prior.inducing_cholesky().lower().triangularView<Eigen::Lower>();
  L.solveInPlace<Eigen::OnTheRight>(G);     // G L^-1
  L.transpose().solveInPlace(core);         // L^-T core
  L.solveInPlace<Eigen::OnTheRight>(core);  // ... L^-1
  return kernel.cross_derivative_contractions(X, prior.inducing_inputs(), G) +
         inducing_and_diagonal_terms(kernel, X, prior.inducing_inputs(), core, delta,
                                     prior.jitter());
}

// Lambda = 0 and psi = sigma2 on every row: with A = K_mn K_nm, G0 = L^-1 A L^-T (= U^T U) and
// S = L^-T B^-1 L^-1, C^-1 = (I - K_nm S K_mn / sigma2) / sigma2, and the product with dK_nm of
// low_rank_gaussian_evidence is [alpha (alpha^T U) - U B^-1 / sigma2 + 2 t U] L^-1 =
// alpha (L^-T w)^T + K_nm P, P = L^-T (2 t I - B^-1 / sigma2) L^-1 (delta = -t); A Psi A^T's
// core has U^T diag(delta) U = -t G0.
SharedNoiseEvidence shared_noise_evidence(const Kernel& kernel, const Eigen::MatrixXd& X,
                                          const InducingInputs& inducing, const Eigen::VectorXd& y,
                                          double sigma2, double trace_weight) {
  if (inducing.form == LowRankForm::fitc)
    throw std::invalid_argument("shared_noise_evidence: FITC has a diagonal correction");
  if (!(sigma2 > 0))
    throw NumericalError("low-rank evidence", "the noise variance is not positive");
  const Eigen::MatrixXd& Z = inducing.Z;
  const Eigen::Index n = X.rows(), m = Z.rows();
  LowRankPrior::check_memory(n, m);
  SharedNoiseEvidence out;
  const Cholesky Kmm = LowRankPrior::factor_inducing(kernel, Z, inducing.jitter, out.jitter);
  const auto L = Kmm.lower().triangularView<Eigen::Lower>();
  const Eigen::MatrixXd Knm = kernel.cross(X, Z);
  Eigen::MatrixXd G0 = Eigen::MatrixXd::Zero(m, m);  // A (dsyrk), then L^-1 A L^-T
  G0.selfadjointView<Eigen::Lower>().rankUpdate(Knm.transpose());
  G0 = G0.selfadjointView<Eigen::Lower>();
  L.solveInPlace(G0);
  L.transpose().solveInPlace<Eigen::OnTheRight>(G0);
  out.residual_trace = kernel.diagonal(X).sum() - G0.trace();

  Eigen::MatrixXd B = G0 / sigma2;
  B.diagonal().array() += 1.0;
  const Eigen::LLT<Eigen::MatrixXd> b(B);
  if (b.info() != Eigen::Success)
    throw NumericalError("low-rank evidence", "I + U^T U / sigma^2 is not positive definite");
  const Eigen::MatrixXd B_inverse = b.solve(Eigen::MatrixXd::Identity(m, m));
  Eigen::VectorXd v = Knm.transpose() * y;  // K_mn y, then S K_mn y
  L.solveInPlace(v);
  v = b.solve(v);
  L.transpose().solveInPlace(v);
  const Eigen::VectorXd alpha = (y - Knm * v / sigma2) / sigma2;
  Eigen::VectorXd w = Knm.transpose() * alpha;  // U^T alpha = L^-1 K_mn alpha
  L.solveInPlace(w);
  Eigen::VectorXd w_hat = w;  // L^-T w
  L.transpose().solveInPlace(w_hat);
  const double log_det_B = 2.0 * Eigen::MatrixXd(b.matrixL()).diagonal().array().log().sum();
  const double dn = static_cast<double>(n);
  out.value = -0.5 * y.dot(alpha) - 0.5 * (dn * std::log(sigma2) + log_det_B) -
              0.5 * dn * std::log(2 * M_PI) - trace_weight * out.residual_trace;
  const double trace_inverse =  // tr C^-1 = N / sigma2 - tr(B^-1 G0) / sigma2^2
      dn / sigma2 - B_inverse.cwiseProduct(G0).sum() / (sigma2 * sigma2);
  out.noise_gradient = 0.5 * (alpha.squaredNorm() - trace_inverse);

  Eigen::MatrixXd P = -B_inverse / sigma2;
  P.diagonal().array() += 2.0 * trace_weight;
  L.transpose().solveInPlace(P);
  L.solveInPlace<Eigen::OnTheRight>(P);
  out.kernel_gradient = Eigen::VectorXd::Zero(flat_size(kernel.hyperparameters()));
  for (Eigen::Index r = 0; r < n; r += kEvidenceBlockRows) {  // <dK_nm, alpha w_hat^T + K_nm P>
    const Eigen::Index rows = std::min(kEvidenceBlockRows, n - r);
    Eigen::MatrixXd R = alpha.segment(r, rows) * w_hat.transpose();
    R.noalias() += Knm.middleRows(r, rows) * P;
    out.kernel_gradient += kernel.cross_derivative_contractions(X.middleRows(r, rows), Z, R);
  }
  Eigen::MatrixXd core = 0.5 * w * w.transpose();
  core.diagonal().array() -= 0.5;
  core += 0.5 * B_inverse + trace_weight * G0;
  L.transpose().solveInPlace(core);
  L.solveInPlace<Eigen::OnTheRight>(core);
  out.kernel_gradient += inducing_and_diagonal_terms(
      kernel, X, Z, core, Eigen::VectorXd::Constant(n, -trace_weight), out.jitter);
  return out;
}

}  // namespace quench
