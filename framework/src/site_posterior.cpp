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

// The sites with tau_i < 0, in order.
std::vector<Eigen::Index> negative_sites(const Eigen::VectorXd& tau) {
  std::vector<Eigen::Index> index;
  for (Eigen::Index i = 0; i < tau.size(); ++i)
    if (tau(i) < 0.0) index.push_back(i);
  return index;
}

// The columns `index` of C.
Eigen::MatrixXd columns(const Eigen::MatrixXd& C, const std::vector<Eigen::Index>& index) {
  Eigen::MatrixXd out(C.rows(), static_cast<Eigen::Index>(index.size()));
  for (std::size_t j = 0; j < index.size(); ++j)
    out.col(static_cast<Eigen::Index>(j)) = C.col(index[j]);
  return out;
}

}  // namespace

NegativeSiteCorrection::NegativeSiteCorrection(const Eigen::VectorXd& tau,
                                               std::vector<Eigen::Index> index,
                                               Eigen::MatrixXd sigma_columns)
    : index_(std::move(index)), g_(std::move(sigma_columns)) {
  const auto r = static_cast<Eigen::Index>(index_.size());
  Eigen::MatrixXd H(r, r);
  tau_.resize(r);
  for (Eigen::Index a = 0; a < r; ++a) {
    tau_(a) = tau(index_[static_cast<std::size_t>(a)]);
    for (Eigen::Index b = 0; b < r; ++b) H(a, b) = -g_(index_[static_cast<std::size_t>(a)], b);
    H(a, a) -= 1.0 / tau_(a);  // N^{-1} = -1 / tau_J
  }
  h_.compute(H);
  w_ = h_.solve(g_.transpose());
}

Eigen::VectorXd NegativeSiteCorrection::diagonal() const {
  return (g_.array() * w_.transpose().array()).rowwise().sum().matrix();
}

Eigen::VectorXd NegativeSiteCorrection::times(const Eigen::VectorXd& v) const {
  return g_ * (w_ * v);
}

double NegativeSiteCorrection::log_det() const {
  const Eigen::MatrixXd& lu = h_.matrixLU();
  double log_det = 0.0, sign = h_.permutationP().determinant();
  for (Eigen::Index i = 0; i < lu.rows(); ++i) {
    if (lu(i, i) < 0) sign = -sign;
    log_det += std::log(std::fabs(lu(i, i)));
  }
  return sign > 0 ? log_det + (-tau_.array()).log().sum()
                  : std::numeric_limits<double>::quiet_NaN();
}

SiteSystem::SiteSystem(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau, Precision precision)
    : C_(C), tau_(tau), s_(tau.cwiseMax(0.0).cwiseSqrt()) {
  std::vector<Eigen::Index> negative = negative_sites(tau);
  if (precision == Precision::single && negative.empty()) {
    inv_lower_single_.emplace(inverse_lower_single(scaled<float>(C, s_), "I + S C S"));
    return;
  }
  chol_.emplace(scaled(C, s_), JitterPolicy{}, "I + S C S");
  if (negative.empty()) return;
  // Sigma_+ U = C U - C S B^{-1} S C U (s_i = 0 at the negative sites).
  const Eigen::MatrixXd cu = columns(C, negative);
  const Eigen::MatrixXd scaled_solve =
      s_.asDiagonal() * chol_->solve(Eigen::MatrixXd(s_.asDiagonal() * cu));
  negative_.emplace(tau, std::move(negative),
                    cu - C.selfadjointView<Eigen::Lower>() * scaled_solve);
}

Eigen::VectorXd SiteSystem::positive_sigma_times(const Eigen::VectorXd& cv) const {
  return cv - C_ * s_.cwiseProduct(solve_b(s_.cwiseProduct(cv)));
}

Eigen::VectorXd SiteSystem::solve_b(const Eigen::VectorXd& w) const {
  if (chol_) return chol_->solve(w);
  const Eigen::MatrixXf& inv = *inv_lower_single_;  // B^{-1} = L^{-T} L^{-1}
  const Eigen::VectorXf v = inv.triangularView<Eigen::Lower>() * w.cast<float>();
  return (inv.transpose().triangularView<Eigen::Upper>() * v).cast<double>();
}

Eigen::VectorXd SiteSystem::solve_newton(const Eigen::VectorXd& r) const {
  const Eigen::VectorXd cr = C_.selfadjointView<Eigen::Lower>() * r;
  Eigen::VectorXd out = r - s_.cwiseProduct(solve_b(s_.cwiseProduct(cr)));  // r - T_+ Sigma_+ r
  if (!negative_) return out;
  // - T Sigma r = - T_+ Sigma_+ r - (T - T_+) Sigma_+ r - T G H^{-1} G^T r, with (Sigma_+ r)_J
  // = G^T r.
  const Eigen::VectorXd g = negative_->sigma_columns().transpose() * r;
  for (std::size_t a = 0; a < negative_->index().size(); ++a) {
    const Eigen::Index i = negative_->index()[a];
    out(i) -= tau_(i) * g(static_cast<Eigen::Index>(a));
  }
  return out - tau_.cwiseProduct(negative_->times(r));
}

double SiteSystem::log_det() const {
  if (inv_lower_single_)
    return -2.0 * inv_lower_single_->diagonal().cast<double>().array().log().sum();
  // det(I + C T) = det B_+ prod_J (-tau_j) det H (NegativeSiteCorrection).
  return chol_->log_determinant() + (negative_ ? negative_->log_det() : 0.0);
}

Eigen::VectorXd SiteSystem::sigma_times(const Eigen::VectorXd& v) const {
  const Eigen::VectorXd sigma_v = positive_sigma_times(C_ * v);
  return negative_ ? Eigen::VectorXd(sigma_v + negative_->times(v)) : sigma_v;
}

Eigen::MatrixXd SiteSystem::inverse_omega_plus_c() const {
  if (!chol_) throw std::logic_error("(Omega + C)^{-1} is formed in double precision only");
  Eigen::MatrixXd inverse = chol_->inverse();  // B^{-1}, scaled in place
  inverse.array().colwise() *= s_.array();
  inverse.array().rowwise() *= s_.transpose().array();
  if (!negative_) return inverse;
  // T - T Sigma T with T = T_+ + D (D = tau_J on J) and Sigma = Sigma_+ + G H^{-1} G^T:
  //   S B^{-1} S  (= T_+ - T_+ Sigma_+ T_+, no cancellation at strong sites)
  //   + D - (T G) D U^T - U D (T_+ G)^T - (T G) H^{-1} (T G)^T,
  // from Sigma_+ D = G D U^T.
  const std::vector<Eigen::Index>& index = negative_->index();
  const Eigen::MatrixXd tg = tau_.asDiagonal() * negative_->sigma_columns();
  for (std::size_t a = 0; a < index.size(); ++a) {
    const Eigen::Index j = index[a], col = static_cast<Eigen::Index>(a);
    const Eigen::VectorXd positive_part =
        s_.cwiseAbs2().cwiseProduct(negative_->sigma_columns().col(col));  // (T_+ G) e_a
    inverse.col(j) -= tau_(j) * tg.col(col);
    inverse.row(j) -= tau_(j) * positive_part.transpose();
    inverse(j, j) += tau_(j);
  }
  inverse.noalias() -= tg * (negative_->weights() * tau_.asDiagonal());
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

// Sites of either sign from the posterior of the sites with tau_i >= 0 (Sigma_+, its diagonal
// diag and p.b = 1 - tau_+ diag, tau_+ = max(tau, 0)): Sigma_ii += delta_i (the correction's
// diagonal), b_i = b_+i - (tau_i - tau_+i) Sigma_+ii - tau_i delta_i (no cancellation where
// tau_i Sigma_ii ~ 1).
void correct_for_negative_sites(const NegativeSiteCorrection& negative, const Eigen::VectorXd& tau,
                                Eigen::VectorXd& diag, PosteriorCovariance& p) {
  const Eigen::VectorXd delta = negative.diagonal();
  for (const Eigen::Index i : negative.index()) p.b(i) -= tau(i) * diag(i);
  p.b -= tau.cwiseProduct(delta);
  diag += delta;
}

PosteriorCovariance posterior_covariance(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau,
                                         Precision precision) {
  const Eigen::Index n = tau.size();
  PosteriorCovariance p;
  p.b.resize(n);
  p.lambda.resize(n);
  Eigen::VectorXd diag(n);
  std::vector<Eigen::Index> negative = negative_sites(tau);
  if (!negative.empty()) precision = Precision::full;
  {
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
  }
  if (!negative.empty()) {
    p.sigma.diagonal() = diag;  // Sigma_+
    p.log_det_b = std::numeric_limits<double>::quiet_NaN();
    const NegativeSiteCorrection correction(tau, negative, columns(p.sigma, negative));
    p.sigma.noalias() += correction.sigma_columns() * correction.weights();
    p.sigma = 0.5 * (p.sigma + p.sigma.transpose()).eval();
    correct_for_negative_sites(correction, tau, diag, p);
  }
  cavities_from_marginals(C.diagonal(), diag, p);
  p.sigma.diagonal() = diag;
  return p;
}

PosteriorCovariance cavity_variances(const Eigen::MatrixXd& C, const Eigen::VectorXd& tau,
                                     Precision precision, const Eigen::VectorXd* nu) {
  const Eigen::Index n = tau.size();
  std::vector<Eigen::Index> negative = negative_sites(tau);
  if (!negative.empty()) precision = Precision::full;
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
  std::optional<NegativeSiteCorrection> correction;
  if (!negative.empty()) {
    // Sigma_+ U = C U - C S L^{-T} L^{-1} S C U.
    const Eigen::MatrixXd cu = columns(C, negative);
    const Eigen::MatrixXd w = inv.triangularView<Eigen::Lower>() * (s.asDiagonal() * cu);
    const Eigen::MatrixXd b_inverse_w = inv.transpose().triangularView<Eigen::Upper>() * w;
    correction.emplace(tau, std::move(negative),
                       cu - C.selfadjointView<Eigen::Lower>() * (s.asDiagonal() * b_inverse_w));
    correct_for_negative_sites(*correction, tau, diag, p);
  }
  cavities_from_marginals(C.diagonal(), diag, p);
  if (nu) {
    // Sigma nu = C nu - C S B^{-1} S C nu with B^{-1} = L^{-T} L^{-1}.
    const Eigen::VectorXd c_nu = C.selfadjointView<Eigen::Lower>() * *nu;
    const Eigen::VectorXd w = inv.triangularView<Eigen::Lower>() * s.cwiseProduct(c_nu);
    const Eigen::VectorXd b_inverse_w = inv.transpose().triangularView<Eigen::Upper>() * w;
    p.mean = c_nu - C.selfadjointView<Eigen::Lower>() * s.cwiseProduct(b_inverse_w);
    if (correction) p.mean += correction->times(*nu);
  }
  return p;
}

}  // namespace quench
