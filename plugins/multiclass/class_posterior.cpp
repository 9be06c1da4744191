#include "class_posterior.h"

#include <cmath>
#include <functional>

#include "quench/cholesky.h"
#include "quench/class_kernels.h"
#include "quench/parallel.h"

namespace quench::multiclass {

namespace {

// task(c) for every class c: on `threads` workers, or in turn without them.
void for_each_class(Eigen::Index classes, std::optional<int> threads,
                    const std::function<void(std::size_t)>& task) {
  if (threads) {
    parallel_for(static_cast<std::size_t>(classes), *threads, task);
    return;
  }
  for (std::size_t c = 0; c < static_cast<std::size_t>(classes); ++c) task(c);
}

}  // namespace

ClassPosterior class_posterior(const ClassGrams& K, const Eigen::MatrixXd& pi,
                               const Eigen::MatrixXd& h, Precision precision,
                               std::optional<int> threads) {
  const Eigen::Index n = K.rows(), classes = pi.cols();
  ClassPosterior post;
  ClassCoupling coupling;
  const auto count = static_cast<std::size_t>(classes);
  std::vector<Eigen::MatrixXd> a(count);
  std::vector<double> log_det_b(count);
  coupling.e.resize(count);
  for_each_class(classes, threads, [&](std::size_t c) {
    // A_c with B_c^{-1} read off its entries: B^{-1}_ii = b_i, and off the diagonal
    // A_ij = -B^{-1}_ij / (s_i s_j), so E_c = S B^{-1} S is -D A D there and D_i b_i on the
    // diagonal (no cancellation for strongly constrained sites).
    const auto column = static_cast<Eigen::Index>(c);
    PosteriorCovariance p = posterior_covariance(K.of(column), pi.col(column), precision);
    log_det_b[c] = p.log_det_b;
    const Eigen::VectorXd d = pi.col(column);
    Eigen::MatrixXd& e = coupling.e[c];
    e = -(d.asDiagonal() * p.sigma * d.asDiagonal());
    e.diagonal() = d.cwiseProduct(p.b);
    a[c] = std::move(p.sigma);
  });
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (std::size_t c = 0; c < count; ++c) {  // in class order: the same sums for any threads
    post.log_det += log_det_b[c];
    M += coupling.e[c];
  }
  const Cholesky chol_m(M, JitterPolicy{0.0, 10.0, 0}, "M = sum_c E_c (multi-class coupling)");
  post.log_det += chol_m.log_determinant() - pi.rowwise().sum().array().log().sum();
  const Eigen::MatrixXd& L = chol_m.lower();

  // mu_c = A_c h_c + A_c D_c M^{-1} r,  r = sum_c D_c A_c h_c.
  Eigen::MatrixXd ah(n, classes);
  for (Eigen::Index c = 0; c < classes; ++c)
    ah.col(c).noalias() = a[static_cast<std::size_t>(c)] * h.col(c);
  const Eigen::VectorXd w = chol_m.solve(Eigen::VectorXd(pi.cwiseProduct(ah).rowwise().sum()));
  post.mean.resize(n, classes);
  for (Eigen::Index c = 0; c < classes; ++c)
    post.mean.col(c) = ah.col(c) + a[static_cast<std::size_t>(c)] * pi.col(c).cwiseProduct(w);

  // Sigma_i from diag A_c and the columns of G_c = L^{-1} D_c A_c (A_c overwritten by G_c).
  post.marginals = Eigen::MatrixXd::Zero(classes, classes * n);
  const Eigen::MatrixXf L_single =
      precision == Precision::single ? Eigen::MatrixXf(L.cast<float>()) : Eigen::MatrixXf();
  for_each_class(classes, threads, [&](std::size_t index) {
    const auto c = static_cast<Eigen::Index>(index);
    Eigen::MatrixXd& g = a[index];
    for (Eigen::Index i = 0; i < n; ++i) post.marginals(c, i * classes + c) = g(i, i);
    g = pi.col(c).asDiagonal() * g;
    if (precision == Precision::single) {
      Eigen::MatrixXf gs = g.cast<float>();
      L_single.triangularView<Eigen::Lower>().solveInPlace(gs);
      g = gs.cast<double>();
    } else {
      L.triangularView<Eigen::Lower>().solveInPlace(g);
    }
  });
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index c = 0; c < classes; ++c)
      for (Eigen::Index k = 0; k <= c; ++k) {
        const double v =
            a[static_cast<std::size_t>(c)].col(i).dot(a[static_cast<std::size_t>(k)].col(i));
        post.marginals(c, i * classes + k) += v;
        if (k != c) post.marginals(k, i * classes + c) += v;
      }
  coupling.m_lower = L;
  post.coupling = std::move(coupling);
  return post;
}

ClassPosterior DenseClassPrior::posterior(const Eigen::MatrixXd& pi, const Eigen::MatrixXd& h,
                                          Precision precision) const {
  return class_posterior(K_, pi, h, precision, threads_);
}

std::vector<Eigen::MatrixXd> coupling_diagonal_blocks(const ClassCoupling& coupling,
                                                      bool per_class) {
  const Eigen::Index n = coupling.m_lower.rows();
  std::vector<Eigen::MatrixXd> blocks;
  for (const Eigen::MatrixXd& e : coupling.e) {
    if (per_class || blocks.empty()) blocks.push_back(Eigen::MatrixXd::Zero(n, n));
    Eigen::MatrixXd z = e;
    coupling.m_lower.triangularView<Eigen::Lower>().solveInPlace(z);
    Eigen::MatrixXd& r = blocks.back();
    r.selfadjointView<Eigen::Lower>().rankUpdate(z.transpose(), -1.0);
    r.triangularView<Eigen::Lower>() += e;
  }
  for (Eigen::MatrixXd& r : blocks) r = r.selfadjointView<Eigen::Lower>();
  return blocks;
}

}  // namespace quench::multiclass
