#include "inducing_class_part.h"

#include <utility>

#include <Eigen/LU>

#include "quench/cholesky.h"
#include "quench/class_kernels.h"
#include "quench/errors.h"
#include "quench/symmetric_part.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// The CM x CM matrix of blocks delta_ce `diagonal` I + U_c^T diag(w_i[c, e]) U_e, w_i the
// C x C blocks of `weights` (C x CN, block i = point i).
MatrixXd class_products(const std::vector<const MatrixXd*>& U, const MatrixXd& weights,
                        Index classes, double diagonal) {
  const Index n = U.front()->rows();
  return inducing_class_products(
      U,
      [&](Index c, Index e) {
        VectorXd w(n);
        for (Index i = 0; i < n; ++i) w(i) = weights(c, i * classes + e);
        return w;
      },
      classes, diagonal);
}

}  // namespace

InducingClassPart::InducingClassPart(std::vector<const LowRankPrior*> priors, Index classes)
    : priors_(std::move(priors)), classes_(classes) {
  for (const LowRankPrior* p : priors_) U_.push_back(&p->factor());
  residual_.resize(priors_.front()->size(), classes);
  for (Index k = 0; k < classes; ++k)
    residual_.col(k) = of_class(priors_, k)->diagonal_correction();
}

VectorXd InducingClassPart::variance() const {
  VectorXd v = VectorXd::Zero(priors_.front()->size());
  for (const LowRankPrior* p : priors_)
    v = v.cwiseMax(p->factor().rowwise().squaredNorm() + p->diagonal_correction());
  return v;
}

void InducingClassPart::operator()(ClassSolution& s) {
  const Index n = s.gamma.rows(), c = classes_, m = priors_.front()->rank();
  const std::vector<const MatrixXd*>& U = U_;
  const MatrixXd& residual = residual_;
  // Each point's T_i and its folded site D~_i, gamma~_i and spread lambda~_i = T_i^T lambda_i T_i.
  MatrixXd T(c, c * n), Dt(c, c * n), Lt(c, c * n), gt(n, c);
  const MatrixXd I = MatrixXd::Identity(c, c);
  for (Index i = 0; i < n; ++i) {
    const auto D = s.dl.middleCols(i * c, c);
    const MatrixXd Ti = (I + residual.row(i).transpose().asDiagonal() * D).partialPivLu().solve(I);
    T.middleCols(i * c, c) = Ti;
    Dt.middleCols(i * c, c) = symmetric_part(D * Ti);
    Lt.middleCols(i * c, c) = symmetric_part(Ti.transpose() * s.lam.middleCols(i * c, c) * Ti);
    gt.row(i) = (Ti.transpose() * s.gamma.row(i).transpose()).transpose();
  }
  const Cholesky A(class_products(U, Dt, c, 1.0), JitterPolicy{0.0, 10.0, 0},
                   "A = I + U^T D~ U (multi-class bootstrap, inducing-point prior)");
  VectorXd b(c * m);
  for (Index k = 0; k < c; ++k)
    b.segment(k * m, m).noalias() = of_class(U, k)->transpose() * gt.col(k);
  weights_.mean = A.solve(b);
  weights_.within = A.inverse();
  const MatrixXd Xi = class_products(U, Lt, c, 0.0);
  weights_.spread = -weights_.within * Xi * weights_.within;
  weights_.spread = symmetric_part(weights_.spread);

  const MatrixXd S = inducing_class_covariances(U, weights_.within, c);
  const MatrixXd Y = inducing_class_covariances(U, weights_.spread, c);
  MatrixXd g(n, c);  // rows U_i mu
  for (Index k = 0; k < c; ++k)
    g.col(k).noalias() = *of_class(U, k) * weights_.mean.segment(k * m, m);
  s.m.resize(n, c);
  s.V.resize(c, c * n);
  s.C.resize(c, c * n);
  for (Index i = 0; i < n; ++i) {
    const auto Ti = T.middleCols(i * c, c);
    const VectorXd r = residual.row(i).transpose();
    s.m.row(i) =
        (Ti * (g.row(i).transpose() + r.cwiseProduct(s.gamma.row(i).transpose()))).transpose();
    const MatrixXd Ai = symmetric_part(Ti * S.middleCols(i * c, c) * Ti.transpose());
    const MatrixXd Vi = Ai + symmetric_part(Ti * r.asDiagonal());
    const MatrixXd lam = s.lam.middleCols(i * c, c);
    s.V.middleCols(i * c, c) = Vi;
    s.C.middleCols(i * c, c) = symmetric_part(Ti * Y.middleCols(i * c, c) * Ti.transpose() -
                                              Vi * lam * Vi + Ai * lam * Ai);
  }
  if (!s.m.allFinite() || !s.V.allFinite() || !s.C.allFinite())
    throw NumericalError("adatap_bootstrap",
                         "the Gaussian part on the inducing-point prior is not finite");
}

ClassPredictive inducing_class_predictive(const InducingClassWeights& w,
                                          const InducingClassFeatures& u, Index classes) {
  const std::vector<const MatrixXd*> features = u.pointers();
  const Index rows = features.front()->rows(), m = features.front()->cols();
  const Index kernels = u.residual.cols();
  ClassPredictive p;
  p.mean.resize(rows, classes);
  for (Index c = 0; c < classes; ++c)
    p.mean.col(c).noalias() = *of_class(features, c) * w.mean.segment(c * m, m);
  p.within = inducing_class_covariances(features, w.within, classes);
  for (Index x = 0; x < rows; ++x)
    for (Index c = 0; c < classes; ++c)
      p.within(c, x * classes + c) += u.residual(x, kernels == 1 ? 0 : c);
  p.spread = inducing_class_covariances(features, w.spread, classes);
  return p;
}

}  // namespace quench::adatap
