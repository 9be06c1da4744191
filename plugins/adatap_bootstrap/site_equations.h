// The per-site equations of the ADATAP regression bootstrap (000 eqs 63-66, 39-40), written
// once for both solvers: the dense one (G formed, adatap_solver.cpp) and the inducing-point one
// (G = diag(e) + W W^T, sparse_solver.cpp). They see G only through its diagonal and the
// products G v and (G o G) v (docs/large_n.md §3-4).
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>

#include <Eigen/Core>

#include "adatap_solver.h"
#include "quench/convergence_progress.h"

namespace quench::adatap {

// The sums over the occupation number k (eqs 60, 64 and H of eq 65) with a_k = a + k/s2: the
// pmf and the k/s2 grid are tabulated once per solve (only the k with p_k > 0), and each sum is
// one vectorized pass over k.
class KSums {
 public:
  KSums(const Occupation& occ, double s2);
  double inv(double a) const { return (p_ / (a + ks_)).sum(); }            ///< sum p_k / a_k
  double inv2(double a) const { return (p_ / (a + ks_).square()).sum(); }  ///< sum p_k / a_k^2
  /// Var_k[1/a_k] = inv2 - inv^2, summed without cancellation.
  double variance(double a) const {
    const double m = inv(a);
    return (p_ * ((a + ks_).inverse() - m).square()).sum();
  }

 private:
  Eigen::ArrayXd p_, ks_;
};

/// Eq 63: dl_c = 1/G_ii - dl, clamped below at `floor` (dl_c >= 0 because G <= diag(dl)^-1;
/// the clamp guards against round-off).
Eigen::VectorXd cavity_precision(const Eigen::VectorXd& g_diagonal, const Eigen::VectorXd& dl,
                                 double floor);

/// Eq 64: dl = 1 / sum_k p_k (dl_c + k/s2)^-1 - dl_c (>= 0).
Eigen::VectorXd site_precision(const KSums& ksum, const Eigen::VectorXd& dlc);

/// max_i |a_i - b_i| / |a_i|: the stopping rule of A.3 (SolverOptions::tolerance).
double relative_change(const Eigen::VectorXd& a, const Eigen::VectorXd& b);

/// Eq 65's system is solved by CG within this many steps (it takes ~5-30; the dense solver then
/// factorizes, the inducing-point one reports not converged).
constexpr int kEq65MaxSteps = 200;

// Solves A x = r for the symmetric positive definite A = diag(d) - W, W symmetric with diagonal
// w_diag and applied by apply(v, q): q = W v (no copy of A), by conjugate gradients with the
// Jacobi preconditioner; returns false when it has not reached the relative residual `tol`
// within `max_steps` (x then holds the last iterate, or is empty when the preconditioner is not
// positive). `res` is the residual r - A x of the returned x (as updated by the iteration);
// `steps` counts the products with W; `progress`, when given, sees the relative residual after
// each step.
template <class Apply>
bool conjugate_gradient(const Eigen::VectorXd& d, const Eigen::VectorXd& w_diag, Apply apply,
                        const Eigen::VectorXd& r, double tol, int max_steps, Eigen::VectorXd& x,
                        Eigen::VectorXd& res, int& steps, ConvergenceProgress* progress = nullptr) {
  steps = 0;
  const Eigen::VectorXd pre = (d - w_diag).cwiseInverse();
  if (!(pre.array() > 0).all()) return false;
  Eigen::VectorXd q(r.size());
  auto op = [&](const Eigen::VectorXd& v) {
    apply(v, q);
    ++steps;
    q = d.cwiseProduct(v) - q;
  };
  x = pre.cwiseProduct(r);
  op(x);
  res = r - q;
  Eigen::VectorXd z = pre.cwiseProduct(res), p = z;
  double rz = res.dot(z);
  const double target = tol * r.norm();
  for (int k = 0; k < max_steps; ++k) {
    if (progress) progress->report(res.norm() / r.norm());
    if (res.norm() <= target) return true;
    op(p);
    const double pq = p.dot(q);
    if (!(pq > 0)) return false;  // not positive definite along p
    const double alpha = rz / pq;
    x += alpha * p;
    res -= alpha * q;
    z = pre.cwiseProduct(res);
    const double rz_new = res.dot(z);
    p = z + (rz_new / rz) * p;
    rz = rz_new;
  }
  return res.norm() <= target;
}

/// Eqs 63, 65, 66 and 39-40 at s.dl from diag G (`g_diagonal`), g_times(v) = G v and
/// hadamard_square_times(v, q): q = (G o G) v. Eq 65's lambda comes from Jacobi-preconditioned
/// CG on diag(d) - G o G to the relative residual cg_tolerance; when CG fails, solve_directly(d, r,
/// x) may solve (diag(d) - G o G) x = r another way and return true; when it returns false the
/// solution is marked not converged (with the CG iterate, or lambda = 0, so that no output is NaN).
/// `fixed_point`: s.dl solves eq 64 (else eqs 65-66 are used literally: approximate ADATAP).
/// `cg_progress`, when given, follows CG's relative residual.
template <class Times, class HadamardTimes, class DirectSolve>
void finish_sites(const Eigen::VectorXd& y, const KSums& ksum, bool fixed_point,
                  const Eigen::VectorXd& g_diagonal, Times g_times,
                  HadamardTimes hadamard_square_times, double cg_tolerance,
                  DirectSolve solve_directly, Solution& s,
                  ConvergenceProgress* cg_progress = nullptr) {
  const Eigen::Index n = y.size();
  s.dlc = cavity_precision(g_diagonal, s.dl, 1e-300);  // eq 63
  s.gamma = y.cwiseProduct(s.dl);                      // eq 65
  s.m = g_times(s.gamma);                              // eq 39
  const Eigen::VectorXd gii = g_diagonal.cwiseAbs2();  // diagonal of g = G o G
  s.H.resize(n);
  Eigen::VectorXd var(n), d(n);
  const Eigen::VectorXd r = (s.m - y).cwiseAbs2();
  for (Eigen::Index i = 0; i < n; ++i) {
    s.H(i) = ksum.inv2(s.dlc(i));
    // H - g_ii: at the fixed point of eq 64 g_ii = (sum_k p_k/a_k)^2, so H - g_ii is the
    // variance of 1/a_k; summed directly it does not suffer the cancellation of H - g_ii.
    // Approximate ADATAP is not at the fixed point: there eqs 65-66 are used literally.
    var(i) = fixed_point ? std::max(ksum.variance(s.dlc(i)), 1e-300) : s.H(i) - gii(i);
    d(i) = s.H(i) * gii(i) / var(i);
  }
  // Eq 65: lambda = (g - diag d)^-1 (m - y)^2 = -x with (diag(d) - g) x = r, positive definite
  // in practice (d_i > g_ii, the off-diagonal g_ij are small).
  Eigen::VectorXd x, residual;
  const bool by_cg = conjugate_gradient(d, gii, hadamard_square_times, r, cg_tolerance,
                                        kEq65MaxSteps, x, residual, s.eq65_steps, cg_progress);
  if (by_cg || solve_directly(d, r, x)) {
    s.lam = -x;
  } else {
    s.converged = false;
    char text[160];
    std::snprintf(text, sizeof text,
                  "eq 65: conjugate gradients on diag(d) - G o G did not reach the relative "
                  "residual %.1e in %d steps",
                  cg_tolerance, kEq65MaxSteps);
    s.message = text;
    s.lam = x.size() == n && x.allFinite() ? Eigen::VectorXd(-x) : Eigen::VectorXd::Zero(n);
  }
  s.gammac = -s.gamma + s.m.cwiseProduct(s.dl + s.dlc);  // eq 66
  s.lamc = s.lam.cwiseProduct(gii).cwiseQuotient(var) + r.cwiseQuotient(gii);
  // Eq 40: -(G diag(lambda) G)_ii = -(g lambda)_i = (g x)_i = d_i x_i - r_i + residual_i after
  // CG (no further product with g; exact for CG's residual, free of the cancellation of the
  // residual-free form -(r_i + d_i lambda_i) when the variance is small against r_i).
  if (by_cg) {
    s.train_variance = d.cwiseProduct(x) - r + residual;
  } else {
    hadamard_square_times(s.lam, s.train_variance);
    s.train_variance = -s.train_variance;
  }
}

}  // namespace quench::adatap
