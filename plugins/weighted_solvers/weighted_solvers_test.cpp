// The weighted solvers against independent computations: the soft-threshold closed form
// (004 Sec. 3.1), Ceres L-BFGS on a smooth weighted ridge problem, brute-force enumeration of
// sign patterns on a tiny LASSO, and for trend filtering a dual coordinate-descent reference
// and the KKT conditions at the paper's size (n = 500, k = 3, lambda = 1000).
#include <cmath>

#include <gtest/gtest.h>
#include <Eigen/Cholesky>

#include "coordinate_descent.h"
#include "lbfgs_optimizer.h"
#include "quench/draw_summary.h"
#include "quench/rng.h"
#include "trend_filter_admm.h"

namespace quench::weighted_solvers {
namespace {

CoordinateDescent make_cd(double tol = 1e-14, const std::string& mode = "auto") {
  return CoordinateDescent(
      Params(CoordinateDescent::schema(), {{"tolerance", tol}, {"mode", mode}}));
}

WeightedLeastSquares problem(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, Eigen::VectorXd w,
                             Eigen::VectorXd pen, double alpha, bool icpt) {
  WeightedLeastSquares p;
  p.X = &X;
  p.y = &y;
  p.weights = std::move(w);
  p.penalty = std::move(pen);
  p.l1_ratio = alpha;
  p.intercept = icpt;
  return p;
}

double objective(const WeightedLeastSquares& p, const Eigen::VectorXd& b, double b0) {
  const Eigen::VectorXd r = (*p.y - *p.X * b).array() - b0;
  return 0.5 * p.weights.dot(r.cwiseProduct(r)) +
         (p.penalty.array() *
          (p.l1_ratio * b.array().abs() + 0.5 * (1 - p.l1_ratio) * b.array().square()))
             .sum();
}

TEST(CoordinateDescent, NormalMeansEqualsSoftThreshold) {
  // theta_w = argmin w1/2 (y - theta)^2 + lambda w0 |theta| = soft(y, lambda w0 / w1).
  const auto cd = make_cd();
  RngStream rng(1, 0);
  for (int trial = 0; trial < 200; ++trial) {
    Eigen::MatrixXd X = Eigen::MatrixXd::Ones(1, 1);
    Eigen::VectorXd y = Eigen::VectorXd::Constant(1, 6 * rng.uniform() - 3);
    const Eigen::VectorXd w = exponential_draws(rng, 2);
    const double lambda = 2 * rng.uniform();
    PenalizedSolution s;
    cd.solve(problem(X, y, w.head(1), Eigen::VectorXd::Constant(1, lambda * w(1)), 1.0, false), s);
    EXPECT_NEAR(s.beta(0), soft_threshold(y(0), lambda * w(1) / w(0)), 1e-12);
  }
}

class RidgeObjective final : public SmoothObjective {
 public:
  explicit RidgeObjective(const WeightedLeastSquares& p) : p_(p) {}
  Eigen::Index dimension() const override { return p_.X->cols() + 1; }
  bool evaluate(const Eigen::VectorXd& x, double* value, Eigen::VectorXd* g) const override {
    const Eigen::Index d = p_.X->cols();
    const Eigen::VectorXd b = x.head(d);
    const Eigen::VectorXd r = (*p_.y - *p_.X * b).array() - x(d);
    *value = objective(p_, b, x(d));
    if (g) {
      const Eigen::VectorXd wr = p_.weights.cwiseProduct(r);
      g->head(d) = -p_.X->transpose() * wr + p_.penalty.cwiseProduct(b);
      (*g)(d) = -wr.sum();
    }
    return true;
  }

 private:
  const WeightedLeastSquares& p_;
};

TEST(CoordinateDescent, WeightedRidgeEqualsCeresLbfgs) {
  RngStream rng(2, 0);
  const int n = 40, d = 6;
  Eigen::MatrixXd X(n, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) X(i, j) = rng.normal() + 0.5;
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) y(i) = X.row(i).sum() + rng.normal() + 3;
  const auto p =
      problem(X, y, exponential_draws(rng, n), 2.0 * exponential_draws(rng, d), 0.0, true);
  PenalizedSolution s;
  ASSERT_TRUE(make_cd().solve(p, s).converged);
  optimizers::LbfgsOptimizer lbfgs(Params(optimizers::LbfgsOptimizer::schema(), {}));
  Eigen::VectorXd x = Eigen::VectorXd::Zero(d + 1);
  lbfgs.minimize(RidgeObjective(p), x);
  // Both minimize a strongly convex quadratic; L-BFGS stops at gradient 1e-10 (scaled).
  for (int j = 0; j < d; ++j) EXPECT_NEAR(s.beta(j), x(j), 1e-6);
  EXPECT_NEAR(s.intercept, x(d), 1e-6);
}

TEST(CoordinateDescent, TinyLassoEqualsBruteForce) {
  // Enumerate every sign pattern s in {-1, 0, +1}^3: on the support the optimum solves the
  // linear KKT system; keep sign-consistent solutions and the smallest objective.
  RngStream rng(3, 0);
  for (int trial = 0; trial < 20; ++trial) {
    // Both update forms (Gram matrix and residuals) on alternate trials.
    const auto cd = make_cd(1e-14, trial % 2 ? "naive" : "covariance");
    const int n = 12, d = 3;
    Eigen::MatrixXd X(n, d);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < d; ++j) X(i, j) = rng.normal();
      y(i) = 1.5 * X(i, 0) - 0.7 * X(i, 1) + rng.normal();
    }
    const auto p =
        problem(X, y, exponential_draws(rng, n), 3.0 * exponential_draws(rng, d), 1.0, false);
    double best = 1e300;
    Eigen::VectorXd best_b;
    for (int code = 0; code < 27; ++code) {
      int s[3] = {code % 3 - 1, (code / 3) % 3 - 1, (code / 9) - 1};
      std::vector<int> on;
      for (int j = 0; j < d; ++j)
        if (s[j] != 0) on.push_back(j);
      Eigen::VectorXd b = Eigen::VectorXd::Zero(d);
      if (!on.empty()) {
        const auto m = static_cast<Eigen::Index>(on.size());
        Eigen::MatrixXd A(m, m);
        Eigen::VectorXd rhs(m);
        for (Eigen::Index a = 0; a < m; ++a) {
          rhs(a) = X.col(on[a]).dot(p.weights.cwiseProduct(y)) - p.penalty(on[a]) * s[on[a]];
          for (Eigen::Index c = 0; c < m; ++c)
            A(a, c) = X.col(on[a]).dot(p.weights.cwiseProduct(X.col(on[c])));
        }
        const Eigen::VectorXd sol = A.ldlt().solve(rhs);
        bool ok = true;
        for (Eigen::Index a = 0; a < m; ++a) {
          ok = ok && sol(a) * s[on[a]] > 0;
          b(on[a]) = sol(a);
        }
        if (!ok) continue;
      }
      const double f = objective(p, b, 0);
      if (f < best) best = f, best_b = b;
    }
    PenalizedSolution sol;
    ASSERT_TRUE(cd.solve(p, sol).converged);
    EXPECT_NEAR(objective(p, sol.beta, 0), best, 1e-10 * best);
    // The sweep rule stops at H_jj dbeta^2 < 1e-14 x deviance, i.e. steps of ~1e-7 relative;
    // the error can exceed the last step by the conditioning of X^T W X.
    EXPECT_LT((sol.beta - best_b).cwiseAbs().maxCoeff(), 1e-5);
  }
}

// Reference for weighted trend filtering: coordinate descent on the box-constrained dual
// min_z 1/2 z^T D W^-1 D^T z - z^T D y, |z| <= lambda, beta = y - W^-1 D^T z.
Eigen::VectorXd dual_reference(const TrendFilteringProblem& p, int sweeps) {
  const int m = p.order + 1;
  const Eigen::Index n = p.y->size(), rows = n - m;
  Eigen::MatrixXd D(rows, n);
  for (Eigen::Index i = 0; i < n; ++i) D.col(i) = difference(Eigen::VectorXd::Unit(n, i), m);
  const Eigen::MatrixXd Q = D * p.weights.cwiseInverse().asDiagonal() * D.transpose();
  const Eigen::VectorXd c = D * *p.y;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(rows), Qz = Eigen::VectorXd::Zero(rows);
  for (int s = 0; s < sweeps; ++s)
    for (Eigen::Index j = 0; j < rows; ++j) {
      const double next = std::clamp(z(j) - (Qz(j) - c(j)) / Q(j, j), -p.lambda, p.lambda);
      Qz += (next - z(j)) * Q.col(j);
      z(j) = next;
    }
  return *p.y - p.weights.cwiseInverse().cwiseProduct(D.transpose() * z);
}

TrendFilterAdmm make_admm(double tol) {
  return TrendFilterAdmm(Params(TrendFilterAdmm::schema(), {{"tolerance", tol}}));
}

// The batched statistics (one product Z^T W with Z = vech(a_i a_i^T)) against the direct
// X^T W X etc. of each column; and the active-set KKT solve against plain coordinate descent
// run to a much tighter tolerance, on correlated inputs (n = 60, p = 8).
TEST(CoordinateDescent, BatchedGramAndActiveSetSolveMatchDirectComputation) {
  RngStream rng(5, 1);
  const Eigen::Index n = 60, p = 8;
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double common = rng.normal();
    for (Eigen::Index j = 0; j < p; ++j) X(i, j) = common + 0.3 * rng.normal();
    y(i) = X(i, 0) - 2 * X(i, 1) + X(i, 2) + rng.normal();
  }
  Eigen::MatrixXd W(n, 3);
  for (Eigen::Index b = 0; b < 3; ++b) W.col(b) = exponential_draws(rng, n);
  const BatchedWeightedGram batched(X, y);
  const Eigen::MatrixXd S = batched.products(W);
  const CoordinateDescent fast(Params(CoordinateDescent::schema(), {}));
  const CoordinateDescent tight(
      Params(CoordinateDescent::schema(), {{"active_set_solve", false}, {"tolerance", 1e-24}}));
  for (Eigen::Index b = 0; b < 3; ++b) {
    const WeightedGram g = batched.unpack(S, b), d = weighted_gram(X, y, W.col(b));
    const double scale = d.xx.cwiseAbs().maxCoeff() + d.yy;
    EXPECT_NEAR(g.sw, d.sw, 1e-12 * scale);
    EXPECT_NEAR(g.sy, d.sy, 1e-12 * scale);
    EXPECT_NEAR(g.yy, d.yy, 1e-12 * scale);
    EXPECT_LT((g.sx - d.sx).cwiseAbs().maxCoeff(), 1e-12 * scale);
    EXPECT_LT((g.xy - d.xy).cwiseAbs().maxCoeff(), 1e-12 * scale);
    EXPECT_LT((g.xx - d.xx).cwiseAbs().maxCoeff(), 1e-12 * scale);
    for (double lambda : {1.0, 5.0, 20.0}) {
      WeightedLeastSquares q{&X, &y, W.col(b), lambda * exponential_draws(rng, p), 1.0, true};
      PenalizedSolution a, c;
      const auto ra = fast.solve(q, g, a);
      const auto rc = tight.solve(q, c);
      ASSERT_TRUE(ra.converged && rc.converged);
      // Tolerance: the tight run's stopping rule leaves |delta beta| ~ 1e-12 x scale.
      EXPECT_LT((a.beta - c.beta).cwiseAbs().maxCoeff(), 1e-7) << lambda;
      EXPECT_NEAR(a.intercept, c.intercept, 1e-7);
      EXPECT_LE(ra.final_value, rc.final_value * (1 + 1e-12));
    }
  }
}

// The residual (naive) form with its active-set solve on a wide problem (p = 2n, correlated
// columns): against plain naive coordinate descent to a much tighter tolerance, and the KKT
// conditions of the elastic net checked directly from X, y and the weights.
TEST(CoordinateDescent, NaiveActiveSetSolveMatchesPlainDescentWhenPExceedsN) {
  RngStream rng(6, 2);
  const Eigen::Index n = 30, p = 60;
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    X(i, 0) = rng.normal();
    for (Eigen::Index j = 1; j < p; ++j) X(i, j) = 0.8 * X(i, j - 1) + 0.6 * rng.normal();
    y(i) = X(i, 0) + X(i, 5) - X(i, 20) + rng.normal();
  }
  const CoordinateDescent fast(
      Params(CoordinateDescent::schema(), {{"mode", std::string("naive")}}));
  const CoordinateDescent tight(
      Params(CoordinateDescent::schema(),
             {{"mode", std::string("naive")}, {"active_set_solve", false}, {"tolerance", 1e-24}}));
  int exact_finishes = 0;
  for (double alpha : {1.0, 0.5})
    for (double lambda : {0.5, 2.0, 8.0}) {
      WeightedLeastSquares q{
          &X, &y, exponential_draws(rng, n), lambda * exponential_draws(rng, p), alpha, true};
      PenalizedSolution a, c;
      const auto ra = fast.solve(q, a);
      const auto rc = tight.solve(q, c);
      ASSERT_TRUE(ra.converged && rc.converged);
      exact_finishes += ra.iterations < rc.iterations;
      // Tolerance: the tight run leaves |delta beta| ~ 1e-12 relative.
      EXPECT_LT((a.beta - c.beta).cwiseAbs().maxCoeff(), 1e-6) << alpha << " " << lambda;
      EXPECT_LE(ra.final_value, rc.final_value * (1 + 1e-12));
      // KKT: x_j^T W r = lambda_j (alpha s_j + (1 - alpha) beta_j) on the support, |.| <=
      // alpha lambda_j off it.
      const Eigen::VectorXd r = (y - X * a.beta).array() - a.intercept;
      const Eigen::VectorXd g = X.transpose() * q.weights.cwiseProduct(r);
      EXPECT_NEAR(q.weights.dot(r), 0.0, 1e-8 * y.cwiseAbs().sum());
      for (Eigen::Index j = 0; j < p; ++j) {
        const double scale = 1e-7 * (1 + q.penalty(j));
        if (a.beta(j) != 0.0)
          EXPECT_NEAR(g(j),
                      q.penalty(j) * (alpha * (a.beta(j) > 0 ? 1 : -1) + (1 - alpha) * a.beta(j)),
                      scale);
        else
          EXPECT_LE(std::abs(g(j)), alpha * q.penalty(j) + scale);
      }
    }
  // The active-set solve must actually finish most problems early.
  EXPECT_GE(exact_finishes, 4);
}

TEST(TrendFilter, FusedLassoDynamicProgrammeEqualsDualReference) {
  RngStream rng(4, 0);
  Eigen::VectorXd y(30);
  for (int i = 0; i < 30; ++i) y(i) = (i < 12 ? 1.0 : i < 20 ? -2.0 : 0.5) + 0.5 * rng.normal();
  for (double lambda : {0.05, 0.5, 2.0, 50.0}) {
    TrendFilteringProblem p;
    p.y = &y;
    p.weights = Eigen::VectorXd::Ones(30);
    p.lambda = lambda;
    p.order = 0;
    EXPECT_LT((fused_lasso_1d(y, lambda) - dual_reference(p, 20000)).cwiseAbs().maxCoeff(), 1e-8)
        << "lambda " << lambda;
  }
}

TEST(TrendFilter, WeightedAdmmEqualsDualReference) {
  RngStream rng(5, 0);
  const int n = 25;
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) y(i) = std::sin(i / 4.0) * 3 + rng.normal();
  for (int order : {1, 2}) {
    TrendFilteringProblem p;
    p.y = &y;
    p.weights = exponential_draws(rng, n);
    p.lambda = 2.0;
    p.order = order;
    PenalizedSolution s;
    ASSERT_TRUE(make_admm(1e-12).solve(p, s).converged);
    EXPECT_LT((s.beta - dual_reference(p, 400000)).cwiseAbs().maxCoeff(), 1e-4)
        << "order " << order;
  }
}

TEST(TrendFilter, CubicKktConditionsAtPaperSize) {
  // 004 Fig. 4: y_i = sin(4 pi i / 500) exp(3 i / 500) + N(0, 2^2), k = 3, lambda = 1000,
  // here with Exp(1) weights as in one WBB draw.
  RngStream rng(6, 0);
  const int n = 500;
  Eigen::VectorXd y(n);
  for (int i = 1; i <= n; ++i)
    y(i - 1) = std::sin(4 * M_PI * i / n) * std::exp(3.0 * i / n) + 2 * rng.normal();
  TrendFilteringProblem p;
  p.y = &y;
  p.weights = exponential_draws(rng, n);
  p.lambda = 1000;
  p.order = 3;
  PenalizedSolution s;
  const auto report = make_admm(1e-10).solve(p, s);
  ASSERT_TRUE(report.converged) << report.message;
  // KKT: W (y - beta) = lambda D^T s with s in the subdifferential of ||.||_1 at D beta.
  const Eigen::VectorXd& z = s.dual;
  const double gap = trend_filter_duality_gap(p, s.beta, z);
  const double f = trend_filter_objective(p, s.beta);
  EXPECT_LE(gap, 1e-10 * f);
  const Eigen::VectorXd stationarity =
      difference_transpose(z, 4) - p.weights.cwiseProduct(y - s.beta);
  EXPECT_LT(stationarity.cwiseAbs().maxCoeff(),
            1e-3 * p.weights.cwiseProduct(y - s.beta).cwiseAbs().maxCoeff());
  const Eigen::VectorXd Db = difference(s.beta, 4);
  const double scale = Db.cwiseAbs().maxCoeff();
  int active = 0;
  for (Eigen::Index j = 0; j < Db.size(); ++j) {
    EXPECT_LE(std::abs(z(j)), p.lambda * (1 + 1e-12));
    if (std::abs(Db(j)) > 1e-3 * scale) {
      ++active;
      EXPECT_NEAR(z(j), p.lambda * (Db(j) > 0 ? 1 : -1), 1e-3 * p.lambda) << "row " << j;
    }
  }
  EXPECT_GT(active, 0);
  EXPECT_LT(active, Db.size() / 2);  // sparse fourth differences: a piecewise cubic
}

}  // namespace
}  // namespace quench::weighted_solvers
