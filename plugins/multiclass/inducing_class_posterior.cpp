#include "inducing_class_posterior.h"

#include <cmath>
#include <utility>
#include <variant>

#include "quench/cholesky.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/hyperparameter.h"
#include "quench/low_rank_evidence.h"

namespace quench::multiclass {

namespace {

// Point i's folded site (header): g = pi / (1 + D pi), sigma = 1^T g.
struct FoldedSites {
  Eigen::MatrixXd g;      // N x C
  Eigen::VectorXd sigma;  // N
};

FoldedSites fold(const Eigen::MatrixXd& pi, const Eigen::VectorXd& D) {
  FoldedSites f;
  f.g = pi.array() / (1.0 + (D.asDiagonal() * pi).array());
  f.sigma = f.g.rowwise().sum();
  return f;
}

// R_i v = v / (1 + D_i pi) + D_i g (g^T v) / sigma for the rows v of V (N x C).
Eigen::MatrixXd apply_r(const Eigen::MatrixXd& pi, const Eigen::VectorXd& D, const FoldedSites& f,
                        const Eigen::MatrixXd& V) {
  const Eigen::VectorXd shift =
      D.cwiseProduct(f.g.cwiseProduct(V).rowwise().sum()).cwiseQuotient(f.sigma);
  return (V.array() / (1.0 + (D.asDiagonal() * pi).array())).matrix() + shift.asDiagonal() * f.g;
}

// The C x C matrix R_i.
Eigen::MatrixXd r_matrix(const Eigen::VectorXd& pi, double D, const Eigen::VectorXd& g,
                         double sigma) {
  Eigen::MatrixXd R = (D / sigma) * g * g.transpose();
  R.diagonal().array() += 1.0 / (1.0 + D * pi.array());
  return R;
}

// The weights of P[c, k]'s Gram matrix: Pi^[c, k] over the points.
Eigen::VectorXd folded_precision(const FoldedSites& f, Eigen::Index c, Eigen::Index k) {
  Eigen::VectorXd w = -f.g.col(c).cwiseProduct(f.g.col(k)).cwiseQuotient(f.sigma);
  if (c == k) w += f.g.col(c);
  return w;
}

}  // namespace

InducingClassPrior::InducingClassPrior(const InducingSitePrior& prior)
    : prior_(prior), U_single_(prior.factor().cast<float>()) {}

ClassPosterior InducingClassPrior::posterior(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& h,
                                             Precision precision) const {
  const Eigen::MatrixXd& U = prior_.factor();
  const Eigen::VectorXd& D = prior_.diagonal_part();
  const Eigen::Index n = U.rows(), m = U.cols(), classes = pi.cols();
  const FoldedSites f = fold(pi, D);

  // Far from the fixed point (Precision::single) the N M^2 products run in single precision
  // (ssyrk, sgemm: twice as fast), P, its factor and inverse in double.
  const bool single = precision == Precision::single;
  Eigen::MatrixXd P(classes * m, classes * m);
  for (Eigen::Index c = 0; c < classes; ++c)
    for (Eigen::Index k = 0; k <= c; ++k) {
      const Eigen::VectorXd w = folded_precision(f, c, k);
      Eigen::MatrixXd block =
          single ? Eigen::MatrixXd(
                       weighted_gram(U_single_, Eigen::VectorXf(w.cast<float>())).cast<double>())
                 : weighted_gram(U, w);
      block = block.selfadjointView<Eigen::Lower>();
      if (c == k) block.diagonal().array() += 1.0;
      P.block(c * m, k * m, m, m) = block;
    }
  const Cholesky chol_p(std::move(P), JitterPolicy{0.0, 10.0, 0},
                        "P = I + U^T Pi^ U (multi-class, inducing-point prior)");

  InducingCoupling coupling;
  const Eigen::MatrixXd h_folded = apply_r(pi, D, f, h);
  Eigen::MatrixXd r = U.transpose() * h_folded;  // M x C, column c = U^T h^_c
  coupling.inducing_mean = Eigen::Map<const Eigen::MatrixXd>(
      chol_p.solve(Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(r.data(), r.size()))).data(),
      m, classes);

  ClassPosterior post;
  Eigen::MatrixXd shifted = U * coupling.inducing_mean;  // U_i a_bar, then + D_i h_i
  shifted += D.asDiagonal() * h;
  post.mean = apply_r(pi, D, f, shifted);

  coupling.precision_inverse = chol_p.inverse();
  const Eigen::MatrixXd S =
      single
          ? Eigen::MatrixXd(
                inducing_class_covariances(
                    U_single_, Eigen::MatrixXf(coupling.precision_inverse.cast<float>()), classes)
                    .cast<double>())
          : inducing_class_covariances(U, coupling.precision_inverse, classes);
  post.marginals.resize(classes, classes * n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::MatrixXd R =
        r_matrix(pi.row(i).transpose(), D(i), f.g.row(i).transpose(), f.sigma(i));
    post.marginals.middleCols(i * classes, classes) =
        D(i) * R + R * S.middleCols(i * classes, classes) * R;
  }
  post.log_det = chol_p.log_determinant() + (1.0 + (D.asDiagonal() * pi).array()).log().sum() +
                 f.sigma.array().log().sum() - pi.rowwise().sum().array().log().sum();
  post.coupling = std::move(coupling);
  return post;
}

namespace {

template <class Matrix>
Matrix class_covariances(const Matrix& features, const Matrix& precision_inverse,
                         Eigen::Index classes) {
  const Eigen::Index n = features.rows(), m = features.cols();
  Matrix S(classes, classes * n);
  Matrix Y(n, m);
  for (Eigen::Index c = 0; c < classes; ++c)
    for (Eigen::Index k = 0; k <= c; ++k) {
      Y.noalias() = features * precision_inverse.block(c * m, k * m, m, m);
      const auto s = Y.cwiseProduct(features).rowwise().sum().eval();
      for (Eigen::Index i = 0; i < n; ++i) {
        S(c, i * classes + k) = s(i);
        S(k, i * classes + c) = s(i);
      }
    }
  return S;
}

}  // namespace

Eigen::MatrixXd inducing_class_covariances(const Eigen::MatrixXd& features,
                                           const Eigen::MatrixXd& precision_inverse,
                                           Eigen::Index classes) {
  return class_covariances(features, precision_inverse, classes);
}

Eigen::MatrixXf inducing_class_covariances(const Eigen::MatrixXf& features,
                                           const Eigen::MatrixXf& precision_inverse,
                                           Eigen::Index classes) {
  return class_covariances(features, precision_inverse, classes);
}

Eigen::VectorXd inducing_class_evidence_gradient(const Kernel& kernel, const Eigen::MatrixXd& X,
                                                 const InducingSitePrior& prior,
                                                 const Eigen::MatrixXd& pi,
                                                 const Eigen::MatrixXd& b,
                                                 const ClassPosterior& post) {
  const InducingCoupling& coupling = std::get<InducingCoupling>(post.coupling);
  const Eigen::MatrixXd& U = prior.factor();
  const Eigen::VectorXd& D = prior.diagonal_part();
  const Eigen::Index n = U.rows(), m = U.cols(), classes = pi.cols();
  const FoldedSites f = fold(pi, D);
  const Eigen::MatrixXd& Pinv = coupling.precision_inverse;

  // d/dU = b a_bar^T - sum_ck diag(Pi^[c, k]) U P^{-1}[k, c]; the pair (c, k) and (k, c) share
  // their weights, so each unordered pair costs one product U (P^{-1}[k, c] + P^{-1}[c, k]).
  Eigen::MatrixXd dU = b * coupling.inducing_mean.transpose();
  for (Eigen::Index c = 0; c < classes; ++c)
    for (Eigen::Index k = 0; k <= c; ++k) {
      Eigen::MatrixXd block = Pinv.block(k * m, c * m, m, m);
      if (k != c) block += Pinv.block(c * m, k * m, m, m);
      dU.noalias() -= folded_precision(f, c, k).asDiagonal() * (U * block);
    }

  // d/dD_i = 1/2 (|b_i|^2 + tr(Pi_i Sigma_i Pi_i) - tr Pi_i).
  Eigen::VectorXd dD(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::VectorXd p = pi.row(i).transpose();
    const double s = p.sum();
    Eigen::MatrixXd Pi = -p * p.transpose() / s;
    Pi.diagonal() += p;
    const Eigen::MatrixXd sandwich = Pi * post.marginals.middleCols(i * classes, classes) * Pi;
    dD(i) = 0.5 * (b.row(i).squaredNorm() + sandwich.trace() - Pi.trace());
  }

  // D_i = Lambda_i + v2: the noise entries (0 in low_rank_kernel_gradient) get sum_i d/dD_i.
  return low_rank_kernel_gradient(kernel, X, prior.low_rank(), dU, dD) +
         dD.sum() * kernel.diagonal_noise_derivative();
}

}  // namespace quench::multiclass
