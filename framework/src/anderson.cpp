#include "quench/anderson.h"

#include <cmath>

#include <Eigen/QR>

#include "quench/errors.h"

namespace quench {

AndersonAccelerator::AndersonAccelerator(const AndersonOptions& options) : options_(options) {
  if (options_.depth < 0 || !(options_.regularization >= 0) || !(options_.damping > 0) ||
      !(options_.restart_growth > 0))
    throw ConfigError({},
                      "AndersonAccelerator: depth >= 0, regularization >= 0, damping > 0 and "
                      "restart_growth > 0 are required");
}

void AndersonAccelerator::reset() {
  dx_.clear();
  df_.clear();
  x_prev_.resize(0);
  f_prev_.resize(0);
}

Eigen::VectorXd AndersonAccelerator::next(const Eigen::VectorXd& x, const Eigen::VectorXd& g) {
  ++steps_;
  const Eigen::VectorXd f = g - x;
  const double beta = options_.damping;
  if (x_prev_.size() != x.size()) {
    reset();
  } else if (options_.depth > 0) {
    // Safeguard: the residual grew, so the extrapolation of the last steps is not trusted.
    if (f.norm() > options_.restart_growth * f_prev_.norm() && !dx_.empty()) {
      dx_.clear();
      df_.clear();
      ++restarts_;
    }
    dx_.push_back(x - x_prev_);
    df_.push_back(f - f_prev_);
    if (static_cast<int>(dx_.size()) > options_.depth) {
      dx_.pop_front();
      df_.pop_front();
    }
  }
  x_prev_ = x;
  f_prev_ = f;
  // The plain step; exactly g when undamped, so depth 0 is bitwise the plain iteration.
  const Eigen::VectorXd plain = beta == 1.0 ? g : Eigen::VectorXd(x + beta * f);
  if (dx_.empty()) return plain;

  // c = argmin |f - dF c|^2 + mu |c|^2 as the least-squares problem of [dF; sqrt(mu) I]
  // (column-pivoted Householder QR: no squared condition number of the normal equations).
  const auto n = x.size(), m = static_cast<Eigen::Index>(df_.size());
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n + m, m);
  for (Eigen::Index j = 0; j < m; ++j) A.col(j).head(n) = df_[static_cast<std::size_t>(j)];
  const double mu = options_.regularization * A.topRows(n).squaredNorm() / static_cast<double>(m);
  A.bottomRows(m).diagonal().setConstant(std::sqrt(mu));
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + m);
  rhs.head(n) = f;
  const Eigen::VectorXd c = A.colPivHouseholderQr().solve(rhs);

  Eigen::VectorXd out = plain;
  for (Eigen::Index j = 0; j < m; ++j) {
    const auto k = static_cast<std::size_t>(j);
    out -= c(j) * (dx_[k] + beta * df_[k]);
  }
  if (!out.allFinite()) {  // safeguard: plain step, history cleared
    dx_.clear();
    df_.clear();
    ++restarts_;
    return plain;
  }
  return out;
}

Eigen::VectorXd AndersonAccelerator::next_positive(const Eigen::VectorXd& x,
                                                   const Eigen::VectorXd& g) {
  if (!((x.array() > 0).all() && (g.array() > 0).all()))
    throw NumericalError("AndersonAccelerator::next_positive", "non-positive iterate");
  return next(x.array().log().matrix(), g.array().log().matrix()).array().exp().matrix();
}

}  // namespace quench
