#include "coordinate_descent.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Cholesky>

#include "quench/errors.h"

namespace quench::weighted_solvers {

ParamSchema CoordinateDescent::schema() {
  ParamSchema s;
  s.real("tolerance",
         "stop when max_j H_jj (delta beta_j)^2 < tolerance x weighted null deviance "
         "(glmnet's rule; H_jj = sum_i w_i x_ij^2)",
         1e-12, 0.0)
      .integer("max_sweeps", "limit on full passes over the coordinates", 100000, 1)
      .string("mode",
              "covariance (Gram matrix, for n > p), naive (residuals) or auto (covariance when "
              "n > p)",
              "auto", {"auto", "covariance", "naive"})
      .boolean("active_set_solve",
               "after full sweeps and every 2 active-set cycles, solve the active set's KKT "
               "equations exactly and accept the result when it satisfies every KKT condition "
               "(both forms)",
               true);
  return s;
}

CoordinateDescent::CoordinateDescent(const Params& p)
    : tolerance_(p.real("tolerance")),
      active_set_solve_(p.boolean("active_set_solve")),
      max_sweeps_(static_cast<int>(p.integer("max_sweeps"))),
      mode_(p.string("mode")) {}

bool CoordinateDescent::uses_gram(Eigen::Index n, Eigen::Index p) const {
  return mode_ == "covariance" || (mode_ == "auto" && n > p);
}

void CoordinateDescent::check(const WeightedLeastSquares& problem) const {
  const Eigen::Index n = problem.X->rows(), p = problem.X->cols();
  if (problem.y->size() != n || problem.weights.size() != n || problem.penalty.size() != p)
    throw ConfigError({}, "coordinate_descent: sizes of X (" + std::to_string(n) + " x " +
                              std::to_string(p) + "), y, weights and penalty do not match");
  if ((problem.weights.array() < 0).any() || (problem.penalty.array() < 0).any())
    throw ConfigError({}, "coordinate_descent: weights and penalties must be >= 0");
}

namespace {

// Explicit loops: at these sizes a BLAS call per coordinate costs more than the work.
double dot(const double* a, const double* b, Eigen::Index m) {
  double s = 0;
  for (Eigen::Index k = 0; k < m; ++k) s += a[k] * b[k];
  return s;
}
void axpy(double a, const double* x, double* y, Eigen::Index m) {
  for (Eigen::Index k = 0; k < m; ++k) y[k] += a * x[k];
}

// argmin_b 1/2 h b^2 - z b + lam [alpha |b| + (1 - alpha)/2 b^2] = soft(z, alpha lam) /
// (h + (1 - alpha) lam): one coordinate of the elastic net (0 for an empty column).
double coordinate_minimizer(double z, double h, double lam, double alpha) {
  const double denom = h + lam * (1 - alpha);
  return denom > 0 ? soft_threshold(z, lam * alpha) / denom : 0.0;
}

// The sweep schedule shared by both forms: full sweeps define the active set, active-set
// cycles until they converge (Friedman et al. 2010, Sec. 2.6). `update(j)` returns
// H_jj (delta beta_j)^2; `exact()` may finish the problem (> 0), fail on the signs (0) or find
// a coordinate outside the active set violating its optimality condition (< 0).
template <class Update, class Exact>
std::pair<int, bool> sweep_schedule(Eigen::Index p, const Eigen::VectorXd& beta, int max_sweeps,
                                    double threshold, Update&& update, Exact&& exact) {
  std::vector<Eigen::Index> active;
  int sweeps = 0;
  while (sweeps < max_sweeps) {
    double change = 0;
    active.clear();
    for (Eigen::Index j = 0; j < p; ++j) {
      change = std::max(change, update(j));
      if (beta(j) != 0.0) active.push_back(j);
    }
    ++sweeps;
    if (change < threshold) return {sweeps, true};
    if (exact(active) > 0) return {sweeps, true};
    for (int cycle = 1; sweeps < max_sweeps; ++cycle) {
      double c = 0;
      for (Eigen::Index j : active) c = std::max(c, update(j));
      ++sweeps;
      if (c < threshold) break;
      // Every 2 cycles the exact active-set solve again (the signs have settled by then in
      // the usual case; a failed attempt costs about as much as one cycle).
      if (cycle % 2 == 0) {
        const int e = exact(active);
        if (e > 0) return {sweeps, true};
        if (e < 0) break;  // a coordinate off the active set must enter: full sweep now
      }
    }
  }
  return {sweeps, false};
}

// Active-set solve, shared by both forms: with the active set A and signs s of the current
// iterate, the KKT equations (G_AA + diag(lambda_A (1 - alpha))) beta_A = c_A - alpha lambda_A s_A
// are linear; their solution is THE solution when sign(beta_A) = s and |g_j| <= alpha lambda_j
// off A, g = c - G beta (the elastic-net optimality conditions). Each (A, s) is tried once: the
// candidate depends only on the pair, so a pair that failed fails again.
class ActiveSetSolve {
 public:
  // gram(A, M) sets M = G_AA; gradient(trial, g) sets g = c - G trial
  // (all p entries). Returns 1 with the solution in `trial` and its gradient in `g`, 0 when the
  // pair (A, s) is not sign-consistent, -1 when a coordinate outside `candidates` violates its
  // condition (it must enter: a full sweep follows). Active sets larger than `max_size` (the
  // rank of G when it is known to be smaller than p) are not tried.
  template <class Gram, class Gradient>
  int attempt(const std::vector<Eigen::Index>& candidates, const Eigen::VectorXd& beta,
              const Eigen::VectorXd& lam, double alpha, double slack, Eigen::Index max_size,
              Gram&& gram, const Eigen::VectorXd& c, Gradient&& gradient, Eigen::VectorXd& trial,
              Eigen::VectorXd& g) {
    A_.clear();
    for (Eigen::Index j : candidates)
      if (beta(j) != 0.0) A_.push_back(j);
    const auto a = static_cast<Eigen::Index>(A_.size());
    if (a == 0 || a > max_size) return 0;
    Eigen::VectorXd s(a);
    for (Eigen::Index k = 0; k < a; ++k) s(k) = beta(A_[k]) > 0 ? 1.0 : -1.0;
    if (A_ == failed_set_ && s == failed_sign_) return failed_code_;
    failed_set_ = A_;
    failed_sign_ = s;
    failed_code_ = 0;
    Eigen::MatrixXd M(a, a);
    Eigen::VectorXd rhs(a);
    gram(A_, M);
    for (Eigen::Index k = 0; k < a; ++k) {
      M(k, k) += lam(A_[k]) * (1 - alpha);
      rhs(k) = c(A_[k]) - alpha * lam(A_[k]) * s(k);
    }
    const Eigen::LLT<Eigen::MatrixXd> llt(M);
    if (llt.info() != Eigen::Success) return 0;
    const Eigen::VectorXd bA = llt.solve(rhs);
    for (Eigen::Index k = 0; k < a; ++k)
      if (!(bA(k) * s(k) > 0)) return 0;
    trial.setZero(beta.size());
    for (Eigen::Index k = 0; k < a; ++k) trial(A_[k]) = bA(k);
    gradient(trial, g);
    // Off the active set the subgradient condition, with a relative slack for rounding.
    for (Eigen::Index j = 0; j < trial.size(); ++j)
      if (trial(j) == 0.0 && std::abs(g(j)) > alpha * lam(j) + slack) {
        // An excluded member of A only means a sign problem; an outsider must enter.
        if (std::find(A_.begin(), A_.end(), j) == A_.end() &&
            std::find(candidates.begin(), candidates.end(), j) == candidates.end())
          return failed_code_ = -1;
        return 0;
      }
    failed_set_.clear();
    return 1;
  }

 private:
  std::vector<Eigen::Index> A_, failed_set_;
  Eigen::VectorXd failed_sign_;
  int failed_code_ = 0;
};

}  // namespace

OptimizerReport CoordinateDescent::solve(const WeightedLeastSquares& problem,
                                         PenalizedSolution& solution) const {
  check(problem);
  const Eigen::MatrixXd& X = *problem.X;
  const Eigen::Index n = X.rows(), p = X.cols();
  if (uses_gram(n, p))
    return solve(problem, weighted_gram(X, *problem.y, problem.weights), solution);

  // Naive form (Friedman et al. 2010, Sec. 2.2): keeps the weighted residual, O(n) per
  // coordinate. With an intercept the problem is solved on weighted-centred data (the
  // intercept then decouples: b = ybar_w - xbar_w^T beta).
  const Eigen::VectorXd& y = *problem.y;
  const Eigen::VectorXd& w = problem.weights;
  const Eigen::VectorXd& lam = problem.penalty;
  const double alpha = problem.l1_ratio;
  const double sw = w.sum();
  if (!(sw > 0)) throw NumericalError("coordinate_descent", "all weights are zero");
  Eigen::RowVectorXd xbar = Eigen::RowVectorXd::Zero(p);
  double ybar = 0;
  if (problem.intercept) {
    xbar = (w.transpose() * X) / sw;
    ybar = w.dot(y) / sw;
  }
  Eigen::VectorXd& beta = solution.beta;
  if (beta.size() != p) beta = Eigen::VectorXd::Zero(p);
  const Eigen::MatrixXd Xc = X.rowwise() - xbar;
  const Eigen::MatrixXd WX = w.asDiagonal() * Xc;
  const Eigen::VectorXd H = (WX.cwiseProduct(Xc)).colwise().sum().transpose();
  const Eigen::VectorXd yc = y.array() - ybar;
  const double null_deviance = std::max(w.dot(yc.cwiseAbs2()), 1e-300);
  Eigen::VectorXd wr = w.cwiseProduct(yc - Xc * beta);
  auto update = [&](Eigen::Index j) {
    const double z = dot(Xc.col(j).data(), wr.data(), n) + H(j) * beta(j);
    const double next = coordinate_minimizer(z, H(j), lam(j), alpha);
    const double delta = next - beta(j);
    if (delta != 0.0) {
      beta(j) = next;
      axpy(-delta, WX.col(j).data(), wr.data(), n);
    }
    return H(j) * delta * delta;
  };
  // The active-set solve with G_AA = X_A^T W X_A formed by one product (O(n a^2)) and the
  // gradient X^T W (y - X beta) from the trial's residual (O(n p)); c = X^T W y is formed at the
  // first attempt. With alpha = 1, G_AA (centred) has rank <= (rows of positive weight) - 1.
  ActiveSetSolve active_set;
  Eigen::VectorXd c, trial, g, wr_trial;
  double slack = 0;
  const Eigen::Index max_size =
      alpha < 1 ? p : (w.array() > 0).count() - (problem.intercept ? 1 : 0);
  auto exact = [&](const std::vector<Eigen::Index>& candidates) {
    if (!active_set_solve_) return 0;
    if (c.size() == 0) {
      c.noalias() = WX.transpose() * yc;
      slack = 1e-9 * (c.cwiseAbs().maxCoeff() + 1e-300);
    }
    const int code = active_set.attempt(
        candidates, beta, lam, alpha, slack, max_size,
        [&](const std::vector<Eigen::Index>& A, Eigen::MatrixXd& M) {
          M.noalias() = Xc(Eigen::all, A).transpose() * WX(Eigen::all, A);
        },
        c,
        [&](const Eigen::VectorXd& b, Eigen::VectorXd& grad) {
          wr_trial = yc;
          for (Eigen::Index j = 0; j < p; ++j)
            if (b(j) != 0.0) axpy(-b(j), Xc.col(j).data(), wr_trial.data(), n);
          wr_trial.array() *= w.array();
          grad.noalias() = Xc.transpose() * wr_trial;
        },
        trial, g);
    if (code > 0) {
      beta = trial;
      wr.swap(wr_trial);
    }
    return code;
  };
  OptimizerReport report;
  const auto [sweeps, converged] =
      sweep_schedule(p, beta, max_sweeps_, tolerance_ * null_deviance, update, exact);
  if (!beta.allFinite()) throw NumericalError("coordinate_descent", "non-finite coefficients");
  solution.intercept = problem.intercept ? ybar - xbar.dot(beta) : 0.0;
  report.converged = converged;
  report.iterations = sweeps;
  const Eigen::VectorXd r = (y - X * beta).array() - (ybar - xbar.dot(beta));
  report.final_value =
      0.5 * w.dot(r.cwiseAbs2()) +
      (lam.array() * (alpha * beta.array().abs() + 0.5 * (1 - alpha) * beta.array().square()))
          .sum();
  report.message = converged ? "converged" : "sweep limit reached";
  return report;
}

OptimizerReport CoordinateDescent::solve(const WeightedLeastSquares& problem, const WeightedGram& S,
                                         PenalizedSolution& solution) const {
  check(problem);
  const Eigen::Index p = problem.X->cols();
  const Eigen::VectorXd& lam = problem.penalty;
  const double alpha = problem.l1_ratio;
  if (S.xx.rows() != p || S.xy.size() != p || S.sx.size() != p)
    throw ConfigError({}, "coordinate_descent: weighted statistics of the wrong size");
  if (!(S.sw > 0)) throw NumericalError("coordinate_descent", "all weights are zero");

  // Covariance form (Friedman et al. 2010, Sec. 2.2) on weighted-centred data: the Gram
  // matrix G = X^T W X - sw xbar xbar^T and c = X^T W y - sw ybar xbar; the gradient
  // g = c - G beta is updated in O(p) per coordinate.
  Eigen::VectorXd xbar = Eigen::VectorXd::Zero(p);
  double ybar = 0;
  if (problem.intercept) {
    xbar = S.sx / S.sw;
    ybar = S.sy / S.sw;
  }
  Eigen::MatrixXd G = S.xx;
  G.noalias() -= S.sw * xbar * xbar.transpose();
  const Eigen::VectorXd c = S.xy - S.sw * ybar * xbar;
  const Eigen::VectorXd H = G.diagonal();
  const double null_deviance = std::max(S.yy - S.sw * ybar * ybar, 1e-300);
  Eigen::VectorXd& beta = solution.beta;
  if (beta.size() != p) beta = Eigen::VectorXd::Zero(p);
  Eigen::VectorXd g = c;
  g.noalias() -= G * beta;

  auto update = [&](Eigen::Index j) {
    const double next = coordinate_minimizer(g(j) + H(j) * beta(j), H(j), lam(j), alpha);
    const double delta = next - beta(j);
    if (delta != 0.0) {
      beta(j) = next;
      axpy(-delta, G.col(j).data(), g.data(), p);
    }
    return H(j) * delta * delta;
  };
  // The active-set solve (after every full sweep and every 2 active-set cycles, O(a^3 + p^2)).
  ActiveSetSolve active_set;
  Eigen::VectorXd trial, gt;
  // Rounding in the gradient is of order eps |c|.
  const double slack = 1e-9 * (c.cwiseAbs().maxCoeff() + 1e-300);
  auto exact = [&](const std::vector<Eigen::Index>& candidates) {
    if (!active_set_solve_) return 0;
    const int code = active_set.attempt(
        candidates, beta, lam, alpha, slack, p,
        [&](const std::vector<Eigen::Index>& A, Eigen::MatrixXd& M) { M = G(A, A); }, c,
        [&](const Eigen::VectorXd& b, Eigen::VectorXd& grad) {
          grad = c;
          grad.noalias() -= G * b;
        },
        trial, gt);
    if (code > 0) {
      beta = trial;
      g = gt;
    }
    return code;
  };
  OptimizerReport report;
  const auto [sweeps, converged] =
      sweep_schedule(p, beta, max_sweeps_, tolerance_ * null_deviance, update, exact);
  if (!beta.allFinite()) throw NumericalError("coordinate_descent", "non-finite coefficients");
  solution.intercept = problem.intercept ? ybar - xbar.dot(beta) : 0.0;
  report.converged = converged;
  report.iterations = sweeps;
  // 1/2 r^T W r from the statistics: null deviance - 2 beta^T c + beta^T G beta, = ... with
  // g = c - G beta: 1/2 (null - beta^T (c + g)).
  report.final_value =
      0.5 * std::max(null_deviance - beta.dot(c + g), 0.0) +
      (lam.array() * (alpha * beta.array().abs() + 0.5 * (1 - alpha) * beta.array().square()))
          .sum();
  report.message = converged ? "converged" : "sweep limit reached";
  return report;
}

}  // namespace quench::weighted_solvers
