#include "sparse_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "quench/anderson.h"
#include "quench/cholesky.h"
#include "quench/convergence_progress.h"
#include "quench/errors.h"
#include "site_equations.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// Rows per block of the N x M products: keeps the temporaries at block x M.
constexpr Index kProductBlockRows = 2048;

// A.2 (eqs 68-69) with the spectrum of K~ approximated by eig(U^T U) padded with zeros to N,
// shifted by mean(Lambda) (docs/large_n.md §3): exact for SoR; for FITC it only moves the start
// value.
double start_value(const LowRankPrior& prior, double s2, const Occupation& occ) {
  const MatrixXd& U = prior.factor();
  const Index n = U.rows(), m = U.cols();
  MatrixXd gram = MatrixXd::Zero(m, m);  // U^T U (lower triangle, dsyrk)
  gram.selfadjointView<Eigen::Lower>().rankUpdate(U.transpose());
  const VectorXd eig = symmetric_eigenvalues(std::move(gram), "U^T U (A.2)");
  const Index kept = std::min(n, m);  // U U^T has at most N nonzero eigenvalues
  VectorXd omega = VectorXd::Constant(n, prior.diagonal_correction().mean());
  omega.head(kept) += eig.tail(kept);
  return initial_dl(omega, s2, occ);
}

}  // namespace

void check_sparse_options(const SolverOptions& o) {
  if (o.method != SolverOptions::Method::full)
    throw ConfigError({},
                      "adatap_bootstrap: method approximate is not built for the inducing-point "
                      "prior (away from the fixed point eq 65's matrix need not be positive "
                      "definite, and there is no N x N factorization to fall back on); use method "
                      "full");
  if (o.woodbury || o.approximate_steps > 0 || o.newton)
    throw ConfigError({},
                      "adatap_bootstrap: woodbury, approximate_steps and newton speed up the dense "
                      "G and do not apply to the inducing-point prior; drop them");
}

double eq65_tolerance(double tolerance) { return std::clamp(1e-3 * tolerance, 1e-12, 1e-6); }

SparseSolution solve_sparse(const LowRankPrior& prior, const VectorXd& y, double s2,
                            const Occupation& occ, const SolverOptions& o) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const Index n = prior.size();
  if (n == 0 || y.size() != n)
    throw ConfigError({}, "adatap_bootstrap: empty or mismatched data (inducing-point prior)");
  check_sparse_options(o);
  SparseSolution out;
  Solution& s = out.sites;
  const KSums ksum(occ, s2);
  s.start_dl = start_value(prior, s2, occ);
  s.dl = VectorXd::Constant(n, s.start_dl);
  auto evaluate = [&](const VectorXd& dl) {  // G at dl (eq 41, docs/large_n.md §2)
    out.G = DiagonalPlusLowRank();           // release the old W before forming the new one
    out.G = prior.posterior_covariance(dl);
    ++s.exact_g;
  };

  // Anderson acceleration in log dl, as the dense solver: only the path changes, the
  // iteration stops by the same residual at an evaluated point.
  // The bar: the fixed point to 40 %, eq 65's CG to 90 % (their shares of the time at N = 50 000,
  // docs/large_n.md), eq 57 at new inputs the rest.
  ConvergenceProgress fixed_point_bar(o.progress, o.tolerance, 0.0, 0.4);
  ConvergenceProgress cg_bar(o.progress, eq65_tolerance(o.tolerance), 0.4, 0.9);
  std::optional<AndersonAccelerator> accel;
  if (o.anderson_depth > 0) accel.emplace(AndersonOptions{o.anderson_depth});
  VectorXd dlc_prev;
  s.final_change = std::numeric_limits<double>::infinity();
  for (int t = 0; t < o.max_iterations; ++t) {
    evaluate(s.dl);
    const VectorXd dlc = cavity_precision(out.G.diagonal(), s.dl, 1e-12);  // eq 63
    const VectorXd dl_new = site_precision(ksum, dlc);                     // eq 64
    double change = relative_change(dl_new, s.dl);
    if (dlc_prev.size() == n) change = std::max(change, relative_change(dlc, dlc_prev));
    s.iterations = t + 1;
    s.final_change = change;
    fixed_point_bar.report(change);
    if (change < o.tolerance) {
      s.converged = true;  // (dl, G(dl)) is the solution
      break;
    }
    s.dl = accel ? accel->next_positive(s.dl.cwiseMax(1e-300), dl_new.cwiseMax(1e-300)) : dl_new;
    dlc_prev = dlc;
  }
  if (!s.converged) {
    s.message = "eqs 63-64 not converged after " + std::to_string(s.iterations) +
                " iterations (max relative change " + std::to_string(s.final_change) + ")";
    evaluate(s.dl);  // G at the last iterate, as the dense solver
  }
  const auto fixed_point_done = clock::now();
  fixed_point_bar.finish();

  auto times = [&](const VectorXd& v) { return out.G.times(v); };
  auto hadamard_square_times = [&](const VectorXd& v, VectorXd& q) {
    q = out.G.hadamard_square_times(v);
  };
  // No N x N factorization to fall back on: a failed CG is reported as not converged.
  auto no_direct_solve = [](const VectorXd&, const VectorXd&, VectorXd&) { return false; };
  finish_sites(y, ksum, true, out.G.diagonal(), times, hadamard_square_times,
               eq65_tolerance(o.tolerance), no_direct_solve, s, &cg_bar);
  cg_bar.finish();
  out.fixed_point_seconds = std::chrono::duration<double>(fixed_point_done - start).count();
  out.eq65_seconds = std::chrono::duration<double>(clock::now() - fixed_point_done).count();
  return out;
}

namespace {

// M x M quadratic form of x^T A x over the rows of `features`, A's lower triangle stored.
Eigen::VectorXd quadratic_forms(const MatrixXd& features, const MatrixXd& lower_form) {
  return (features * lower_form.selfadjointView<Eigen::Lower>())
      .cwiseProduct(features)
      .rowwise()
      .sum();
}

}  // namespace

SparsePredictor::SparsePredictor(const LowRankPrior& prior, const DiagonalPlusLowRank& G,
                                 const VectorXd& dl, const VectorXd& alpha, const VectorXd& lambda,
                                 bool within_sample) {
  const MatrixXd& U = prior.factor();
  const MatrixXd& W = G.factor();
  const VectorXd& e = G.diagonal_part();
  const Index n = U.rows(), m = U.cols();
  mean_weights_ = U.transpose() * alpha;  // U^T T gamma, T = I - D G
  // T^T U = U - G (D U) = diag(1 - e o dl) U - W (W^T D U), formed a row block at a time.
  MatrixXd wdu = MatrixXd::Zero(W.cols(), m);  // W^T D U
  for (Index r = 0; r < n; r += kProductBlockRows) {
    const Index b = std::min(kProductBlockRows, n - r);
    wdu.noalias() +=
        W.middleRows(r, b).transpose() * (dl.segment(r, b).asDiagonal() * U.middleRows(r, b));
  }
  if (within_sample) {  // A = U^T diag(dl o (1 - e o dl)) U - (W^T D U)^T (W^T D U)
    // dl >= 0 and 1 - e dl = 1 / (1 + Lambda dl) > 0: one dsyrk of the scaled rows.
    within_form_ =
        weighted_gram(U, dl.cwiseProduct(VectorXd::Ones(n) - e.cwiseProduct(dl)).cwiseMax(0.0));
    within_form_.selfadjointView<Eigen::Lower>().rankUpdate(wdu.transpose(), -1.0);
  }
  // C_T = sum_i lambda_i t_i t_i^T over the rows t_i of T^T U, formed a row block at a time
  // (weighted_gram: rank updates split by the sign of lambda_i).
  variance_form_ = MatrixXd::Zero(m, m);
  for (Index r = 0; r < n; r += kProductBlockRows) {
    const Index b = std::min(kProductBlockRows, n - r);
    const VectorXd keep = VectorXd::Ones(b) - e.segment(r, b).cwiseProduct(dl.segment(r, b));
    MatrixXd tu = keep.asDiagonal() * U.middleRows(r, b);
    tu.noalias() -= W.middleRows(r, b) * wdu;
    variance_form_ += weighted_gram(tu, lambda.segment(r, b));
  }
}

void SparsePredictor::predict(const MatrixXd& features, VectorXd& mean, VectorXd& variance) const {
  mean.noalias() = features * mean_weights_;  // eq 57: k~(x)^T T gamma
  variance = -quadratic_forms(features, variance_form_);
}

SparsePredictor regression_predictor(const LowRankPrior& prior, const SparseSolution& solution,
                                     const VectorXd& y) {
  const Solution& s = solution.sites;
  return SparsePredictor(prior, solution.G, s.dl, s.dl.cwiseProduct(y - s.m), s.lam);
}

VectorXd SparsePredictor::within_reduction(const MatrixXd& features) const {
  return quadratic_forms(features, within_form_);
}

}  // namespace quench::adatap
