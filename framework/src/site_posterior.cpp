#include "quench/site_posterior.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "quench/errors.h"

namespace quench {
namespace {
// B = I + S C S in double or single precision.
template <class Scalar = double>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> scaled(const Eigen::MatrixXd& C,
                                                             const Eigen::VectorXd& s) {
  Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> B =
      (s.asDiagonal() * C * s.asDiagonal()).template cast<Scalar>();
  B.diagonal().array() += Scalar(1);
  return B;
}
}  // namespace

SiteSystem::SiteSystem(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau, Precision precision)
    : C_(C), tau_(tau), s_(tau.cwiseMax(0.0).cwiseSqrt()) {
  if (tau.size() == 0 || tau.minCoeff() >= 0.0) {
    if (precision == Precision::single)
      inv_lower_single_.emplace(inverse_lower_single(scaled<float>(C, s_), "I + S C S"));
    else
      chol_.emplace(scaled(C, s_), JitterPolicy{}, "I + S C S");
  } else {
    Eigen::MatrixXd M = C * tau.asDiagonal();
    M.diagonal().array() += 1.0;
    lu_.emplace(M);
  }
}

Eigen::VectorXd SiteSystem::solve_b(const Eigen::VectorXd& w) const {
  if (chol_) return chol_->solve(w);
  const Eigen::MatrixXf& inv = *inv_lower_single_;  // B^{-1} = L^{-T} L^{-1}
  const Eigen::VectorXf v = inv.triangularView<Eigen::Lower>() * w.cast<float>();
  return (inv.transpose().triangularView<Eigen::Upper>() * v).cast<double>();
}

Eigen::VectorXd SiteSystem::solve_newton(const Eigen::VectorXd& r) const {
  const Eigen::VectorXd cr = C_.selfadjointView<Eigen::Lower>() * r;
  if (lu_) return r - tau_.cwiseProduct(lu_->solve(cr));
  return r - s_.cwiseProduct(solve_b(s_.cwiseProduct(cr)));
}

double SiteSystem::log_det() const {
  if (chol_) return chol_->log_determinant();
  if (inv_lower_single_)
    return -2.0 * inv_lower_single_->diagonal().cast<double>().array().log().sum();
  const Eigen::MatrixXd& lu = lu_->matrixLU();
  double log_det = 0.0, sign = lu_->permutationP().determinant();
  for (Eigen::Index i = 0; i < lu.rows(); ++i) {
    if (lu(i, i) < 0) sign = -sign;
    log_det += std::log(std::fabs(lu(i, i)));
  }
  return sign > 0 ? log_det : std::numeric_limits<double>::quiet_NaN();
}

Eigen::VectorXd SiteSystem::sigma_times(const Eigen::VectorXd& v) const {
  const Eigen::VectorXd cv = C_ * v;
  if (lu_) return lu_->solve(cv);
  return cv - C_ * s_.cwiseProduct(solve_b(s_.cwiseProduct(cv)));
}

Eigen::MatrixXd SiteSystem::inverse_omega_plus_c() const {
  if (lu_) return tau_.asDiagonal() * lu_->inverse();
  if (!chol_) throw std::logic_error("(Omega + C)^{-1} is formed in double precision only");
  Eigen::MatrixXd inverse = chol_->inverse();  // B^{-1}, scaled in place
  inverse.array().colwise() *= s_.array();
  inverse.array().rowwise() *= s_.transpose().array();
  return inverse;
}

namespace {
// Below this q_i = 1 - b_i, Sigma_ii comes from the column i of B^{-1} (no cancellation).
constexpr double kWeakSite = 1e-3;

// Sigma_ii = (1/s_i) sum_k [B^{-1}]_ik s_k C_ki from the column i of B^{-1}.
double weak_site_variance(const Eigen::MatrixXd& C, const Eigen::VectorXd& s, Eigen::Index i,
                          const Eigen::VectorXd& b_inverse_column) {
  return b_inverse_column.cwiseProduct(C.col(i)).cwiseProduct(s).sum() / s(i);
}

}  // namespace

void cavities_from_marginals(const Eigen::VectorXd& prior_variance, Eigen::VectorXd& diag,
                             PosteriorCovariance& p) {
  p.lambda.resize(diag.size());
  for (Eigen::Index i = 0; i < diag.size(); ++i) {
    diag(i) = std::max(diag(i), 0.0);
    // Floor against total cancellation in Sigma_ii for a nearly singular C (noise-free Gaussian
    // kernel): a zero cavity variance would make the tilted variance 0 and tau infinite.
    // 1e-12 C_ii is far below any variance that changes a result.
    p.lambda(i) = std::max(diag(i) / std::max(p.b(i), 1e-300), 1e-12 * prior_variance(i));
  }
}

PosteriorCovariance posterior_covariance(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau,
                                         Precision precision) {
  const Eigen::Index n = tau.size();
  PosteriorCovariance p;
  p.b.resize(n);
  p.lambda.resize(n);
  Eigen::VectorXd diag(n);
  if (n == 0 || tau.minCoeff() >= 0.0) {
    const Eigen::VectorXd s = tau.cwiseMax(1e-200).cwiseSqrt();
    // log det B = -2 sum_i log [L^{-1}]_ii, read before L^{-1} becomes B^{-1}.
    if (precision == Precision::single) {
      Eigen::MatrixXf inv = inverse_lower_single(scaled<float>(C, s), "I + S C S");
      p.log_det_b = -2.0 * inv.diagonal().cast<double>().array().log().sum();
      inverse_from_lower_inverse_in_place(inv);
      p.sigma = inv.cast<double>();
    } else {
      p.sigma = inverse_lower_double(scaled(C, s), "I + S C S");
      p.log_det_b = -2.0 * p.sigma.diagonal().array().log().sum();
      inverse_from_lower_inverse_in_place(p.sigma);
    }
    p.sigma.triangularView<Eigen::StrictlyUpper>() = p.sigma.transpose();  // B^{-1}
    for (Eigen::Index i = 0; i < n; ++i) {
      const double b = p.sigma(i, i), q = 1.0 - b;
      p.b(i) = b;
      diag(i) = q >= kWeakSite ? q / (s(i) * s(i)) : weak_site_variance(C, s, i, p.sigma.col(i));
    }
    const Eigen::VectorXd r = s.cwiseInverse();
    p.sigma = -(r.asDiagonal() * p.sigma * r.asDiagonal());
  } else {
    Eigen::MatrixXd M = C * tau.asDiagonal();
    M.diagonal().array() += 1.0;
    p.sigma = Eigen::PartialPivLU<Eigen::MatrixXd>(M).solve(C);
    p.sigma = 0.5 * (p.sigma + p.sigma.transpose()).eval();
    diag = p.sigma.diagonal();
    p.b = (1.0 - tau.array() * diag.array()).matrix();
  }
  cavities_from_marginals(C.diagonal(), diag, p);
  p.sigma.diagonal() = diag;
  return p;
}

PosteriorCovariance cavity_variances(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau,
                                     Precision precision, const Eigen::VectorXd* nu) {
  const Eigen::Index n = tau.size();
  if (n > 0 && tau.minCoeff() < 0.0) {
    PosteriorCovariance p = posterior_covariance(C, tau);
    if (nu) p.mean = p.sigma.selfadjointView<Eigen::Lower>() * *nu;
    p.sigma.resize(0, 0);
    return p;
  }
  const Eigen::VectorXd s = tau.cwiseMax(1e-200).cwiseSqrt();
  // L^{-1} with B = L L^T, so [B^{-1}]_ii = |L^{-1} e_i|^2 and B^{-1} e_i = L^{-T} L^{-1} e_i.
  const Eigen::MatrixXd inv =
      precision == Precision::single
          ? Eigen::MatrixXd(inverse_lower_single(scaled<float>(C, s), "I + S C S").cast<double>())
          : inverse_lower_double(scaled(C, s), "I + S C S");
  PosteriorCovariance p;
  p.b.resize(n);
  p.lambda.resize(n);
  Eigen::VectorXd diag(n);
  std::vector<Eigen::Index> weak;
  for (Eigen::Index i = 0; i < n; ++i) {
    p.b(i) = inv.col(i).tail(n - i).squaredNorm();
    const double q = 1.0 - p.b(i);
    if (q >= kWeakSite)
      diag(i) = q / (s(i) * s(i));
    else
      weak.push_back(i);
  }
  if (!weak.empty()) {
    Eigen::MatrixXd columns(n, static_cast<Eigen::Index>(weak.size()));
    for (std::size_t j = 0; j < weak.size(); ++j)
      columns.col(static_cast<Eigen::Index>(j)) = inv.col(weak[j]);
    const Eigen::MatrixXd b_inverse = inv.transpose().triangularView<Eigen::Upper>() * columns;
    for (std::size_t j = 0; j < weak.size(); ++j)
      diag(weak[j]) =
          weak_site_variance(C, s, weak[j], b_inverse.col(static_cast<Eigen::Index>(j)));
  }
  cavities_from_marginals(C.diagonal(), diag, p);
  if (nu) {
    // Sigma nu = C nu - C S B^{-1} S C nu with B^{-1} = L^{-T} L^{-1}.
    const Eigen::VectorXd c_nu = C.selfadjointView<Eigen::Lower>() * *nu;
    const Eigen::VectorXd w = inv.triangularView<Eigen::Lower>() * s.cwiseProduct(c_nu);
    const Eigen::VectorXd b_inverse_w = inv.transpose().triangularView<Eigen::Upper>() * w;
    p.mean = c_nu - C.selfadjointView<Eigen::Lower>() * s.cwiseProduct(b_inverse_w);
  }
  return p;
}

}  // namespace quench
