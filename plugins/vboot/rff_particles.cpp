#include "rff_particles.h"

#include <algorithm>
#include <map>
#include <vector>

#include "quench/parallel.h"

namespace quench::vboot {

namespace {

// The most frequent precision (the Dirichlet transform has two values per class).
double common_value(const Eigen::VectorXd& p) {
  std::map<double, Eigen::Index> counts;
  for (Eigen::Index i = 0; i < p.size(); ++i) ++counts[p(i)];
  return std::max_element(counts.begin(), counts.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

Eigen::MatrixXd form_matrix(const Eigen::MatrixXd& Phi, const Eigen::VectorXd& p, double alpha2,
                            const Eigen::MatrixXd* G) {
  const Eigen::Index D = Phi.cols();
  Eigen::MatrixXd A;
  if (G) {
    const double p0 = common_value(p);
    std::vector<Eigen::Index> rows;
    for (Eigen::Index i = 0; i < p.size(); ++i)
      if (p(i) != p0) rows.push_back(i);
    Eigen::MatrixXd S(static_cast<Eigen::Index>(rows.size()), D);
    Eigen::VectorXd d(S.rows());
    for (Eigen::Index r = 0; r < S.rows(); ++r) {
      S.row(r) = Phi.row(rows[std::size_t(r)]);
      d(r) = p(rows[std::size_t(r)]) - p0;
    }
    A = p0 * *G;
    A.noalias() += S.transpose() * (d.asDiagonal() * S);
  } else {
    A.noalias() = Phi.transpose() * (p.asDiagonal() * Phi);
  }
  A.diagonal().array() += 1.0 / alpha2;
  return A;
}

}  // namespace

Eigen::MatrixXd feature_gram(const Eigen::MatrixXd& Phi, int threads) {
  const Eigen::Index D = Phi.cols(), block = 256;
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(D, D);
  const auto blocks = static_cast<std::size_t>((D + block - 1) / block);
  parallel_for(blocks, threads, [&](std::size_t b) {
    const Eigen::Index j = static_cast<Eigen::Index>(b) * block, w = std::min(block, D - j);
    G.block(j, j, D - j, w).noalias() = Phi.rightCols(D - j).transpose() * Phi.middleCols(j, w);
  });
  return G;
}

LinearGaussianPosterior::LinearGaussianPosterior(const Eigen::MatrixXd& Phi,
                                                 const Eigen::VectorXd& precision,
                                                 double prior_variance, const Eigen::MatrixXd* G)
    : Phi_(Phi),
      precision_(precision),
      prior_variance_(prior_variance),
      A_(form_matrix(Phi, precision, prior_variance, G)),
      chol_(A_, JitterPolicy{1e-10, 10.0, 0}, "vboot A = Phi^T P Phi + I/alpha^2 (002 eq 8)") {}

Eigen::MatrixXd LinearGaussianPosterior::particles(const Eigen::MatrixXd& Yt,
                                                   const Eigen::MatrixXd& Wt) const {
  Eigen::MatrixXd B = Wt / prior_variance_;
  B.noalias() += Phi_.transpose() * (precision_.asDiagonal() * Yt);
  return chol_.solve(B);
}

Eigen::MatrixXd LinearGaussianPosterior::particles_refactorizing(const Eigen::MatrixXd& Yt,
                                                                 const Eigen::MatrixXd& Wt) const {
  Eigen::MatrixXd W(Wt.rows(), Wt.cols());
  for (Eigen::Index k = 0; k < Wt.cols(); ++k) {
    const Cholesky fresh(A_, JitterPolicy{1e-10, 10.0, 0}, "vboot A (002 eq 8)");
    Eigen::VectorXd b = Wt.col(k) / prior_variance_;
    b.noalias() += Phi_.transpose() * (precision_.asDiagonal() * Yt.col(k));
    W.col(k) = fresh.solve(b);
  }
  return W;
}

Eigen::VectorXd LinearGaussianPosterior::mean(const Eigen::VectorXd& y) const {
  return chol_.solve(Eigen::VectorXd(Phi_.transpose() * (precision_.asDiagonal() * y)));
}

}  // namespace quench::vboot
