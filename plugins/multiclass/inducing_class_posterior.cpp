#include "inducing_class_posterior.h"

#include <cmath>
#include <utility>
#include <variant>

#include "quench/cholesky.h"
#include "quench/class_kernels.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/hyperparameter.h"
#include "quench/inducing_class_features.h"
#include "quench/low_rank_evidence.h"

namespace quench::multiclass {

namespace {

// The residual variances d_ic of every point and class (N x C): column c is class c's D.
Eigen::MatrixXd residual_variances(const std::vector<const InducingSitePrior*>& priors,
                                   Eigen::Index classes) {
  const Eigen::Index n = priors.front()->diagonal_part().size();
  Eigen::MatrixXd d(n, classes);
  for (Eigen::Index c = 0; c < classes; ++c) d.col(c) = of_class(priors, c)->diagonal_part();
  return d;
}

// Point i's folded site (header): g = pi / (1 + d o pi), sigma = 1^T g.
struct FoldedSites {
  Eigen::MatrixXd g;      // N x C
  Eigen::VectorXd sigma;  // N
};

FoldedSites fold(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& d) {
  FoldedSites f;
  f.g = pi.array() / (1.0 + d.cwiseProduct(pi).array());
  f.sigma = f.g.rowwise().sum();
  return f;
}

// R_i v = v / (1 + d_i o pi) + (d_i o g) (g^T v) / sigma for the rows v of V (N x C), or
// R_i^T v = v / (1 + d_i o pi) + g ((d_i o g)^T v) / sigma with `transposed`.
Eigen::MatrixXd apply_r(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& d, const FoldedSites& f,
                        const Eigen::MatrixXd& V, bool transposed = false) {
  const Eigen::MatrixXd dg = d.cwiseProduct(f.g);
  const Eigen::VectorXd shift =
      (transposed ? dg : f.g).cwiseProduct(V).rowwise().sum().cwiseQuotient(f.sigma);
  return (V.array() / (1.0 + d.cwiseProduct(pi).array())).matrix() +
         shift.asDiagonal() * (transposed ? f.g : dg);
}

// The C x C matrix R_i.
Eigen::MatrixXd r_matrix(const Eigen::VectorXd& pi, const Eigen::VectorXd& d,
                         const Eigen::VectorXd& g, double sigma) {
  Eigen::MatrixXd R = d.cwiseProduct(g) * g.transpose() / sigma;
  R.diagonal().array() += 1.0 / (1.0 + d.cwiseProduct(pi).array());
  return R;
}

// The weights of P[c, k]'s product: Pi^[c, k] over the points.
Eigen::VectorXd folded_precision(const FoldedSites& f, Eigen::Index c, Eigen::Index k) {
  Eigen::VectorXd w = -f.g.col(c).cwiseProduct(f.g.col(k)).cwiseQuotient(f.sigma);
  if (c == k) w += f.g.col(c);
  return w;
}

}  // namespace

InducingClassPrior::InducingClassPrior(const InducingSitePrior& shared)
    : InducingClassPrior(std::vector<const InducingSitePrior*>{&shared}) {}

InducingClassPrior::InducingClassPrior(std::vector<const InducingSitePrior*> per_class)
    : priors_(std::move(per_class)) {
  for (const InducingSitePrior* p : priors_) U_single_.push_back(p->factor().cast<float>());
}

Eigen::VectorXd InducingClassPrior::variance() const {
  Eigen::VectorXd v = priors_.front()->variance();
  for (const InducingSitePrior* p : priors_) v = v.cwiseMax(p->variance());
  return v;
}

ClassPosterior InducingClassPrior::posterior(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& h,
                                             Precision precision) const {
  const Eigen::Index n = size(), m = priors_.front()->factor().cols(), classes = pi.cols();
  std::vector<const Eigen::MatrixXd*> U;
  std::vector<const Eigen::MatrixXf*> U_single;
  for (std::size_t c = 0; c < priors_.size(); ++c) {
    U.push_back(&priors_[c]->factor());
    U_single.push_back(&U_single_[c]);
  }
  const Eigen::MatrixXd d = residual_variances(priors_, classes);
  const FoldedSites f = fold(pi, d);

  // Far from the fixed point (Precision::single) the N M^2 products run in single precision
  // (ssyrk, sgemm: twice as fast), P, its factor and inverse in double.
  const bool single = precision == Precision::single;
  const auto precision_weights = [&](Eigen::Index c, Eigen::Index k) {
    return folded_precision(f, c, k);
  };
  Eigen::MatrixXd P = single ? inducing_class_products(U_single, precision_weights, classes, 1.0)
                             : inducing_class_products(U, precision_weights, classes, 1.0);
  const Cholesky chol_p(std::move(P), JitterPolicy{0.0, 10.0, 0},
                        "P = I + U^T Pi^ U (multi-class, inducing-point prior)");

  InducingCoupling coupling;
  const Eigen::MatrixXd h_folded = apply_r(pi, d, f, h, /*transposed=*/true);
  Eigen::MatrixXd r(m, classes);  // column c = U_c^T h^_c
  for (Eigen::Index c = 0; c < classes; ++c)
    r.col(c).noalias() = of_class(U, c)->transpose() * h_folded.col(c);
  coupling.inducing_mean = Eigen::Map<const Eigen::MatrixXd>(
      chol_p.solve(Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(r.data(), r.size()))).data(),
      m, classes);

  ClassPosterior post;
  Eigen::MatrixXd shifted = d.cwiseProduct(h);  // t_i + d_i o h_i
  for (Eigen::Index c = 0; c < classes; ++c)
    shifted.col(c).noalias() += *of_class(U, c) * coupling.inducing_mean.col(c);
  post.mean = apply_r(pi, d, f, shifted);

  coupling.precision_inverse = chol_p.inverse();
  const Eigen::MatrixXd S =
      single ? Eigen::MatrixXd(
                   inducing_class_covariances(
                       U_single, Eigen::MatrixXf(coupling.precision_inverse.cast<float>()), classes)
                       .cast<double>())
             : inducing_class_covariances(U, coupling.precision_inverse, classes);
  post.marginals.resize(classes, classes * n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::VectorXd di = d.row(i).transpose();
    const Eigen::MatrixXd R =
        r_matrix(pi.row(i).transpose(), di, f.g.row(i).transpose(), f.sigma(i));
    post.marginals.middleCols(i * classes, classes) =
        R * di.asDiagonal() + R * S.middleCols(i * classes, classes) * R.transpose();
  }
  post.log_det = chol_p.log_determinant() + (1.0 + d.cwiseProduct(pi).array()).log().sum() +
                 f.sigma.array().log().sum() - pi.rowwise().sum().array().log().sum();
  post.coupling = std::move(coupling);
  return post;
}

Eigen::VectorXd inducing_class_evidence_gradient(
    const Kernel& kernel, const Eigen::MatrixXd& X,
    const std::vector<const InducingSitePrior*>& priors, const Eigen::MatrixXd& pi,
    const Eigen::MatrixXd& b, const ClassPosterior& post) {
  const InducingCoupling& coupling = std::get<InducingCoupling>(post.coupling);
  const Eigen::Index n = pi.rows(), m = coupling.inducing_mean.rows(), classes = pi.cols();
  const bool shared = priors.size() == 1;
  const Eigen::MatrixXd d = residual_variances(priors, classes);
  const FoldedSites f = fold(pi, d);
  const Eigen::MatrixXd& Pinv = coupling.precision_inverse;
  const auto U = [&](Eigen::Index c) -> const Eigen::MatrixXd& {
    return of_class(priors, c)->factor();
  };

  // d/dU_c = b_c a_bar_c^T - sum_k diag(Pi^[c, k]) U_k P^{-1}[k, c], one per prior (with one
  // prior, the sum over c: each unordered pair (c, k) then costs one product
  // U (P^{-1}[k, c] + P^{-1}[c, k]), the two sharing their weights).
  std::vector<Eigen::MatrixXd> dU(priors.size(), Eigen::MatrixXd::Zero(n, m));
  for (Eigen::Index c = 0; c < classes; ++c) {
    dU[shared ? 0 : static_cast<std::size_t>(c)].noalias() +=
        b.col(c) * coupling.inducing_mean.col(c).transpose();
    for (Eigen::Index k = 0; k <= c; ++k) {
      const Eigen::VectorXd w = folded_precision(f, c, k);
      if (shared) {
        Eigen::MatrixXd block = Pinv.block(k * m, c * m, m, m);
        if (k != c) block += Pinv.block(c * m, k * m, m, m);
        dU[0].noalias() -= w.asDiagonal() * (U(0) * block);
        continue;
      }
      dU[static_cast<std::size_t>(c)].noalias() -=
          w.asDiagonal() * (U(k) * Pinv.block(k * m, c * m, m, m));
      if (k != c)
        dU[static_cast<std::size_t>(k)].noalias() -=
            w.asDiagonal() * (U(c) * Pinv.block(c * m, k * m, m, m));
    }
  }

  // d/dd_ic = 1/2 (b_ic^2 + (Pi_i Sigma_i Pi_i)[c, c] - Pi_i[c, c]).
  Eigen::MatrixXd dd(n, classes);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::VectorXd p = pi.row(i).transpose();
    const double s = p.sum();
    Eigen::MatrixXd Pi = -p * p.transpose() / s;
    Pi.diagonal() += p;
    const Eigen::MatrixXd sandwich = Pi * post.marginals.middleCols(i * classes, classes) * Pi;
    dd.row(i) = 0.5 * (b.row(i).cwiseAbs2().transpose() + sandwich.diagonal() - Pi.diagonal());
  }

  // D_c = Lambda_c + v2_c: each kernel's noise entries (0 in low_rank_kernel_gradient) get
  // the sum of its d/dd_ic.
  const auto gradient = [&](const Kernel& k, std::size_t prior, const Eigen::VectorXd& dD) {
    return Eigen::VectorXd(
        low_rank_kernel_gradient(k, X, priors[prior]->low_rank(), dU[prior], dD) +
        dD.sum() * k.diagonal_noise_derivative());
  };
  return class_kernels_gradient(kernel, [&](const Kernel& of, Eigen::Index c) {
    return c < 0 ? gradient(of, 0, dd.rowwise().sum())
                 : gradient(of, static_cast<std::size_t>(c), dd.col(c));
  });
}

}  // namespace quench::multiclass
