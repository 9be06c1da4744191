#include "quench/low_rank_prior.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <Eigen/Cholesky>

#include "quench/errors.h"
#include "quench/memory_budget.h"

namespace quench {

namespace {

constexpr Eigen::Index kPriorBlockRows = 2048;

}  // namespace

// K_mm + jitter I with the jitter relative to its mean diagonal; raised tenfold on failure up
// to 1e-2 (Cholesky's policy) and reported.
Cholesky LowRankPrior::factor_inducing(const Kernel& kernel, const Eigen::MatrixXd& Z,
                                       double relative, double& jitter) {
  Eigen::MatrixXd Kmm = kernel.cross(Z, Z);
  const double mean = Kmm.diagonal().mean();
  if (!(mean > 0) || !std::isfinite(mean))
    throw NumericalError("inducing inputs", "their kernel matrix K_mm has a mean variance of " +
                                                std::to_string(mean) +
                                                ": the kernel is not a covariance");
  const double base = relative * mean;
  Kmm.diagonal().array() += base;
  JitterPolicy policy;
  policy.initial_relative = std::max(10 * relative, 1e-10);
  policy.max_tries =
      std::max(1, static_cast<int>(std::ceil(std::log10(1e-2 / policy.initial_relative))) + 1);
  Cholesky chol(std::move(Kmm), policy, "the inducing inputs' kernel matrix K_mm");
  jitter = base + chol.jitter();
  return chol;
}

double LowRankPrior::bytes(Eigen::Index n, Eigen::Index m) {
  return 3.0 * 8.0 * static_cast<double>(n) * static_cast<double>(m);
}

Eigen::Index LowRankPrior::largest_count(Eigen::Index n, double available) {
  return static_cast<Eigen::Index>(available /
                                   (3.0 * 8.0 * static_cast<double>(std::max<Eigen::Index>(n, 1))));
}

void LowRankPrior::check_memory(Eigen::Index n, Eigen::Index m) {
  const double need = bytes(n, m), total = physical_memory_bytes();
  if (need <= 0.8 * total) return;
  char text[256];
  std::snprintf(text, sizeof text,
                "the inducing-point prior with N = %ld rows and M = %ld inducing inputs "
                "needs %.3g GB (3 N x M arrays), more than 80%% of this machine's "
                "%.3g GB; M = %ld fits",
                static_cast<long>(n), static_cast<long>(m), need / 1e9, total / 1e9,
                static_cast<long>(largest_count(n, 0.8 * total)));
  throw ConfigError({}, text);
}

LowRankPrior::LowRankPrior(const Kernel& kernel, const Eigen::MatrixXd& X,
                           const InducingInputs& inducing)
    : kernel_(&kernel),
      Z_(inducing.Z),
      Kmm_([&] {
        check_memory(X.rows(), inducing.Z.rows());
        return factor_inducing(kernel, inducing.Z, inducing.jitter, jitter_);
      }()),
      form_(inducing.form) {
  U_ = features(X);
  residual_ = (kernel.diagonal(X) - U_.rowwise().squaredNorm()).cwiseMax(0.0);
  Lambda_ = form_ == LowRankForm::fitc ? residual_ : Eigen::VectorXd::Zero(X.rows());
}

Eigen::MatrixXd LowRankPrior::features(const Eigen::MatrixXd& Xnew) const {
  return features(*kernel_, Z_, Kmm_.lower(), Xnew);
}

Eigen::MatrixXd LowRankPrior::features(const Kernel& kernel, const Eigen::MatrixXd& Z,
                                       const Eigen::MatrixXd& lower, const Eigen::MatrixXd& Xnew) {
  const Eigen::Index n = Xnew.rows();
  Eigen::MatrixXd out(n, Z.rows());
  const auto Lt = lower.triangularView<Eigen::Lower>().transpose();
  for (Eigen::Index r = 0; r < n; r += kPriorBlockRows) {
    const Eigen::Index b = std::min(kPriorBlockRows, n - r);
    Eigen::MatrixXd block = kernel.cross(Xnew.middleRows(r, b), Z);  // b x M
    Lt.solveInPlace<Eigen::OnTheRight>(block);                       // K(Xnew, Z) L^-T
    out.middleRows(r, b) = block;
  }
  return out;
}

DiagonalPlusLowRank LowRankPrior::posterior_covariance(const Eigen::VectorXd& d,
                                                       double extra_diagonal,
                                                       Eigen::MatrixXd* b_lower) const {
  return DiagonalPlusLowRank::posterior((Lambda_.array() + extra_diagonal).matrix(), U_, d,
                                        b_lower);
}

Eigen::MatrixXd LowRankPrior::dense() const {
  Eigen::MatrixXd K = U_ * U_.transpose();
  K.diagonal() += Lambda_;
  return K;
}

}  // namespace quench
