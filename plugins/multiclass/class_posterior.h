// The posterior of C latent GPs on the same N inputs coupled by multi-class sites
// (quench/class_likelihood.h), from C + 1 factorizations of order N (docs/multiclass.md).
//
// With the prior blockdiag(K_0, ..., K_{C-1}) (class-major; K_c = K for one kernel shared by
// every class, one K_c per class with a kernel per class) and the sites' precision
//   Pi = D - D E (E^T D E)^{-1} E^T D,  D = diag(pi) (class c: D_c = diag(pi_{.c})),
//   E = [I; ...; I] (CN x N),
// Woodbury on the rank-N coupling gives, with A_c = (K_c^{-1} + D_c)^{-1} (one GP per class),
// B_c = I + S_c K_c S_c (S_c = D_c^{1/2}) and E_c = S_c B_c^{-1} S_c:
//   Sigma = (K^{-1} + Pi)^{-1} = A + P M^{-1} P^T,  P_c = A_c D_c = K_c E_c,  M = sum_c E_c,
//   log det(I + K Pi) = sum_c log det B_c + log det M - sum_i log 1^T pi_i,
//   (K + Pi^{-1})^{-1} = R,  R_cc' = delta_cc' E_c - E_c M^{-1} E_c',
// so that the marginal C x C block of point i is Sigma_i[c, c'] = delta_cc' A_c[i, i] +
// (L^{-1} D_c A_c)[:, i] . (L^{-1} D_c' A_c')[:, i] with M = L L^T.
#pragma once

#include <optional>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include "quench/class_kernels.h"
#include "quench/site_posterior.h"

namespace quench::multiclass {

/// What a C-class posterior is predicted from: E_c and the Cholesky factor of M (header).
struct ClassCoupling {
  std::vector<Eigen::MatrixXd> e;  ///< E_c = S_c B_c^{-1} S_c, N x N each, symmetric
  Eigen::MatrixXd m_lower;         ///< L with M = sum_c E_c = L L^T
};

/// What a C-class posterior on the inducing-point prior is predicted from
/// (inducing_class_posterior.h): the Gaussian posterior N(a_bar, P^{-1}) of the whitened inducing
/// values a = (a_0, ..., a_{C-1}) (class-major blocks of M).
struct InducingCoupling {
  Eigen::MatrixXd inducing_mean;      ///< M x C: a_bar
  Eigen::MatrixXd precision_inverse;  ///< CM x CM: P^{-1}
};

/// The posterior of sites (pi, h) (N x C each; pi > 0 where a site has information, pi_iy = 1).
struct ClassPosterior {
  Eigen::MatrixXd mean;       ///< N x C: mu = Sigma h
  Eigen::MatrixXd marginals;  ///< C x CN: columns [iC, iC + C) hold Sigma_i
  double log_det = 0.0;       ///< log det(I + K Pi)
  /// The prior's own summary for predictions and the evidence gradient.
  std::variant<ClassCoupling, InducingCoupling> coupling;
};

/// The prior of the C latent GPs at the N training inputs as the sweeps of multiclass_ep.h see
/// it: the posterior of any sites, and the prior variances that scale the convergence test.
class ClassPrior {
 public:
  virtual ~ClassPrior() = default;
  virtual Eigen::Index size() const = 0;
  /// The prior variance of each point's latents (N; the largest over classes), the scale of
  /// the convergence test.
  virtual Eigen::VectorXd variance() const = 0;
  /// Throws NumericalError when a factorization fails.
  virtual ClassPosterior posterior(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& h,
                                   Precision precision) const = 0;
};

/// The exact prior K_c (N x N each): class_posterior below, its per-class work on `threads`.
/// Refers to the matrices.
class DenseClassPrior final : public ClassPrior {
 public:
  explicit DenseClassPrior(ClassGrams K, std::optional<int> threads = std::nullopt)
      : K_(std::move(K)), threads_(threads) {}
  Eigen::Index size() const override { return K_.rows(); }
  /// max_c K_c[i, i].
  Eigen::VectorXd variance() const override { return K_.variance(); }
  ClassPosterior posterior(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& h,
                           Precision precision) const override;

 private:
  ClassGrams K_;
  std::optional<int> threads_;
};

/// The header's algebra: C posterior_covariance calls (N^3 flops each), one Cholesky of M and
/// C triangular solves (N^3 each). Precision::single (for sweeps far from the fixed point):
/// the C factorizations and the triangular solves in single precision (marginals to ~1e-6
/// relative), M and its factor in double. The per-class factorizations and solves run on
/// `threads` workers (quench/parallel.h, 0 = all cores; BLAS single-threaded in them, so the
/// same bits for any count), or with nullopt in turn on the calling thread (a caller that is
/// itself one of parallel_for's units: a retrain; BLAS as the caller set it, 1 there). Throws
/// NumericalError when a factorization fails.
ClassPosterior class_posterior(const ClassGrams& K, const Eigen::MatrixXd& pi,
                               const Eigen::MatrixXd& h, Precision precision = Precision::full,
                               std::optional<int> threads = std::nullopt);

/// R_cc = E_c - E_c M^{-1} E_c for every class c (the diagonal blocks of (K + Pi^{-1})^{-1},
/// for the evidence gradient), or (per_class false) their sum in one matrix: one triangular solve
/// and one rank-N update per class.
std::vector<Eigen::MatrixXd> coupling_diagonal_blocks(const ClassCoupling& coupling,
                                                      bool per_class);

}  // namespace quench::multiclass
