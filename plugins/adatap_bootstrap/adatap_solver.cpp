#include "adatap_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

#include <Eigen/LU>

#include "quench/anderson.h"
#include "quench/cholesky.h"
#include "quench/errors.h"
#include "site_equations.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

double Occupation::mean() const {
  double m = 0;
  for (Index k = 0; k < pmf.size(); ++k) m += static_cast<double>(k) * pmf(k);
  return m;
}

namespace {

// Sites whose dl_i K_ii is below this get G e_i from K e_i - K D^1/2 B^-1 D^1/2 K e_i instead of
// (1 - [B^-1]_ii) / dl_i, which loses ~eps / (dl_i K_ii) relative accuracy to cancellation.
constexpr double kSmallSite = 1e-6;

// B = I + D^1/2 K D^1/2 (the symmetric form of eq 70), D = diag(dl), sq = dl^1/2, written into
// the buffer B (resized only when its size differs: the iteration reuses one buffer); only the
// lower triangle is formed (the factorization reads no more), in one pass over K (of the same
// scalar type as B, so that the single-precision evaluations run in float throughout).
template <class S>
void form_b(const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& K,
            const Eigen::Matrix<S, Eigen::Dynamic, 1>& sq,
            Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& B) {
  const Index n = K.rows();
  B.resize(n, n);
  for (Index j = 0; j < n; ++j) {
    B.col(j).tail(n - j) = (sq(j) * sq.tail(n - j)).cwiseProduct(K.col(j).tail(n - j));
    B(j, j) += S(1);
  }
}

std::vector<Index> small_sites(const MatrixXd& K, const VectorXd& dl) {
  std::vector<Index> s;
  for (Index i = 0; i < dl.size(); ++i)
    if (dl(i) * K(i, i) <= kSmallSite) s.push_back(i);
  return s;
}

// D^1/2 K e_j for the given sites (columns).
MatrixXd scaled_columns(const MatrixXd& K, const VectorXd& sq, const std::vector<Index>& sites) {
  MatrixXd R(K.rows(), static_cast<Index>(sites.size()));
  for (std::size_t j = 0; j < sites.size(); ++j)
    R.col(static_cast<Index>(j)) = sq.cwiseProduct(K.col(sites[j]));
  return R;
}

// One exact evaluation of G = (K^-1 + diag dl)^-1 = D^-1/2 (I - B^-1) D^-1/2 (eqs 41, 70),
// never through K^-1: one Cholesky of B (n^3/3 flops) and L^-1 (n^3/3, level-3 BLAS), whose
// squared column norms are diag(B^-1); both in the storage of B (quench::inverse_lower_double).
// L^-1 is kept so that the full G costs only one more dlauum (n^3/3) when it is needed (A.3,
// A.4, and once at the end).
struct ExactG {
  VectorXd dl, sq;
  MatrixXd inv_l;
  VectorXd diag;  ///< diag G

  void compute(const MatrixXd& K, const VectorXd& dl_in) {
    dl = dl_in;
    sq = dl.cwiseMax(0.0).cwiseSqrt();
    form_b(K, sq, inv_l);  // B in the storage of the previous L^-1, inverted in place
    inv_l = inverse_lower_double(std::move(inv_l), "I + D^1/2 K D^1/2");
    const Index n = dl.size();
    diag.resize(n);
    for (Index i = 0; i < n; ++i) diag(i) = (1.0 - inv_l.col(i).tail(n - i).squaredNorm()) / dl(i);
    // Sites with dl_i K_ii tiny: G_ii = K_ii - |L^-1 D^1/2 K e_i|^2 (no cancellation).
    const auto small = small_sites(K, dl);
    if (!small.empty()) {
      const MatrixXd W = inv_l.triangularView<Eigen::Lower>() * scaled_columns(K, sq, small);
      for (std::size_t j = 0; j < small.size(); ++j)
        diag(small[j]) = K(small[j], small[j]) - W.col(static_cast<Index>(j)).squaredNorm();
    }
  }

  // The full G at dl (dlauum on L^-1; consumes L^-1 when `consume`).
  MatrixXd full(const MatrixXd& K, bool consume) {
    const auto small = small_sites(K, dl);
    MatrixXd C;  // K D^1/2 B^-1 D^1/2 K e_j for the small sites, B^-1 = L^-T L^-1
    if (!small.empty()) {
      const MatrixXd Y = inv_l.triangularView<Eigen::Lower>() * scaled_columns(K, sq, small);
      const MatrixXd X = inv_l.transpose().triangularView<Eigen::Upper>() * Y;
      C = K * (sq.asDiagonal() * X);
    }
    MatrixXd G = Cholesky::inverse_from_lower_inverse(consume ? std::move(inv_l) : inv_l);
    const Index n = dl.size();
    const VectorXd inv = dl.unaryExpr([](double v) { return v > 0 ? 1.0 / std::sqrt(v) : 0.0; });
    for (Index j = 0; j < n; ++j) {
      G.col(j) = -(inv(j) * inv).cwiseProduct(G.col(j));
      G(j, j) += inv(j) * inv(j);
    }
    for (std::size_t j = 0; j < small.size(); ++j) {
      const VectorXd col = K.col(small[j]) - C.col(static_cast<Index>(j));
      G.col(small[j]) = col;
      G.row(small[j]) = col.transpose();
    }
    return G;
  }
};

// diag G as ExactG::compute, from a single-precision L^-1 (about 2x cheaper): an intermediate
// evaluation only; the fixed point is always confirmed by an ExactG evaluation in double. K is
// converted to float once; B and L^-1 share one buffer across the iterations.
struct SingleG {
  Eigen::MatrixXf Kf, work;

  VectorXd compute(const MatrixXd& K, const VectorXd& dl) {
    const Index n = K.rows();
    if (Kf.rows() != n) Kf = K.cast<float>();
    const VectorXd sq = dl.cwiseMax(0.0).cwiseSqrt();
    form_b<float>(Kf, sq.cast<float>(), work);
    work = inverse_lower_single(std::move(work), "I + D^1/2 K D^1/2 (single)");
    VectorXd d(n);
    for (Index i = 0; i < n; ++i)
      d(i) = (1.0 - work.col(i).tail(n - i).cast<double>().squaredNorm()) / dl(i);
    const auto small = small_sites(K, dl);
    if (!small.empty()) {
      const Eigen::MatrixXf W =
          work.triangularView<Eigen::Lower>() * scaled_columns(K, sq, small).cast<float>();
      for (std::size_t j = 0; j < small.size(); ++j)
        d(small[j]) =
            K(small[j], small[j]) - W.col(static_cast<Index>(j)).cast<double>().squaredNorm();
    }
    return d;
  }
};

// Newton step for the fixed point dl = F(dl) of eqs 63-64 (an added speed-up, not in 000: it
// changes only the path, the stopping rule is unchanged). With a_k = dl_c + k/s2, S = sum_k p_k /
// a_k and v = Var_k[1/a_k] / S^2 = dF_i / d dl_c,i (eq 64), and d dl_c,i / d dl_j = G_ij^2 /
// G_ii^2 - delta_ij (eq 63; dG / d dl_j = -G e_j e_j^T G), the Jacobian of F is
// J = diag(v) (diag(G_ii^-2) g - I), g = G o G. Scaled by diag(G_ii^2 / v), the Newton system
// (I - J) delta = F(dl) - dl reads (diag(G_ii^2 (1 + v) / v) - g) delta = diag(G_ii^2 / v)
// (F(dl) - dl): the symmetric matrix of eq 65 (equal to it at the fixed point), solved by the same
// CG to 1e-3 (inexact Newton). `work` holds L^-1 of the evaluation at x (float or double) and is
// consumed: ?lauum turns it into B^-1 and then into g (lower triangle). Sites with tiny dl_i K_ii
// keep no coupling (their G_ij from B^-1 would cancel). Returns false (the caller takes the plain
// step) when CG fails or the step leaves (0.1 x, inf).
template <class S>
bool newton_step(Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>& work, const VectorXd& x,
                 const VectorXd& Gd, const VectorXd& dlc, const VectorXd& dl_new, const KSums& ksum,
                 const std::vector<Index>& small, VectorXd& out) {
  const Index n = x.size();
  if (work.rows() != n) return false;
  inverse_from_lower_inverse_in_place(work);  // lower triangle of B^-1
  const Eigen::Matrix<S, Eigen::Dynamic, 1> inv =
      x.unaryExpr([](double v) { return v > 0 ? 1.0 / v : 0.0; }).template cast<S>();
  for (Index j = 0; j < n; ++j) {  // g_ij = [B^-1]_ij^2 / (dl_i dl_j), g_jj = G_jj^2
    work.col(j).tail(n - j) =
        work.col(j).tail(n - j).cwiseAbs2().cwiseProduct(inv.tail(n - j)) * inv(j);
    work(j, j) = static_cast<S>(Gd(j) * Gd(j));
  }
  for (const Index i : small) {
    work.row(i).head(i).setZero();
    work.col(i).tail(n - i - 1).setZero();
  }
  VectorXd d(n), rhs(n);
  for (Index i = 0; i < n; ++i) {
    const double s1 = ksum.inv(dlc(i));
    const double v = std::max(ksum.variance(dlc(i)) / (s1 * s1), 1e-300);
    const double gii = Gd(i) * Gd(i);
    d(i) = gii * (1 + v) / v;
    rhs(i) = gii / v * (dl_new(i) - x(i));
  }
  const VectorXd w_diag = work.diagonal().template cast<double>();
  auto apply = [&](const VectorXd& v, VectorXd& q) {
    q = (work.template selfadjointView<Eigen::Lower>() * v.cast<S>()).template cast<double>();
  };
  VectorXd delta, residual;
  int steps = 0;
  if (!conjugate_gradient(d, w_diag, apply, rhs, 1e-3, 50, delta, residual, steps)) return false;
  out = x + delta;
  return out.allFinite() && (out.array() > 0.1 * x.array()).all();
}

}  // namespace

MatrixXd g_full(const MatrixXd& K, const VectorXd& dl) {
  ExactG e;
  e.compute(K, dl);
  return e.full(K, true);
}

// A.2: G(x) = mean_k omega_k / (1 + omega_k x) (eq 68) and
// f(x) = sum_k p_k / (1 - G(x)(x - k/s2)) - 1 = 0 (eq 69), bisection on [0, E[k]/s2]
// (Jensen: the solution of eq 64 never exceeds E[k]/s2).
double initial_dl(const Eigen::VectorXd& omega, double s2, const Occupation& occ) {
  const VectorXd w = omega.cwiseMax(0.0);
  auto g = [&](double x) { return (w.array() / (1.0 + w.array() * x)).mean(); };
  auto f = [&](double x) {
    const double G = g(x);
    double s = 0;
    for (Index k = 0; k < occ.pmf.size(); ++k)
      s += occ.pmf(k) / (1.0 - G * (x - static_cast<double>(k) / s2));
    return s - 1.0;
  };
  double lo = 0, hi = occ.mean() / s2;
  if (hi <= 0 || f(hi) <= 0) return hi;
  for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

namespace {

double start_value(const MatrixXd& K, double s2, const Occupation& occ, const SolverOptions& o) {
  const Index n = K.rows();
  switch (o.init) {
    case SolverOptions::Init::constant:
      return 0.5 * occ.mean() / s2;
    case SolverOptions::Init::subset: {
      const Index m = std::max<Index>(1, n / std::max(1, o.subset_factor));
      std::vector<Index> idx(static_cast<std::size_t>(n));
      std::iota(idx.begin(), idx.end(), Index{0});
      std::mt19937_64 gen(o.seed);
      std::shuffle(idx.begin(), idx.end(), gen);
      MatrixXd Ks(m, m);
      for (Index a = 0; a < m; ++a)
        for (Index b = 0; b < m; ++b) Ks(a, b) = K(idx[a], idx[b]);
      return initial_dl(symmetric_eigenvalues(std::move(Ks), "subset of K (A.2)"), s2, occ);
    }
    case SolverOptions::Init::eigen:
    default:
      return initial_dl(symmetric_eigenvalues(K, "K (A.2)"), s2, occ);
  }
}

// Eqs 63, 65, 66 and 39-40 from dl and the full G; eq 65 falls back to a factorization when
// CG does not reach its tolerance.
void finish(const VectorXd& y, const KSums& ksum, bool fixed_point, Solution& s) {
  const MatrixXd gsq = s.G.cwiseAbs2();
  auto times = [&](const VectorXd& v) -> VectorXd { return s.G * v; };
  auto hadamard_square_times = [&](const VectorXd& v, VectorXd& q) { q.noalias() = gsq * v; };
  auto solve_directly = [&](const VectorXd& d, const VectorXd& r, VectorXd& x) {
    MatrixXd A = -gsq;
    A.diagonal() += d;
    try {
      const Cholesky c(A, JitterPolicy{1e-10, 10.0, 0}, "diag(d) - g");
      x = c.solve(r);
    } catch (const NumericalError&) {
      x = Eigen::PartialPivLU<MatrixXd>(A).solve(r);
    }
    return true;
  };
  finish_sites(y, ksum, fixed_point, VectorXd(s.G.diagonal()), times, hadamard_square_times, 1e-12,
               solve_directly, s);
}

}  // namespace

Solution solve(const MatrixXd& K, const VectorXd& y, double s2, const Occupation& occ,
               const SolverOptions& o) {
  const Index n = K.rows();
  if (n == 0 || y.size() != n) throw ConfigError({}, "adatap_bootstrap: empty or mismatched data");
  Solution s;
  const KSums ksum(occ, s2);
  s.start_dl = start_value(K, s2, occ, o);
  s.dl = VectorXd::Constant(n, s.start_dl);

  if (o.method == SolverOptions::Method::approximate) {
    // Sec. 5, dot-dashed curve of Fig. 1: A.2 start, one G, eq 63, then eqs 65-66.
    s.G = g_full(K, s.dl);
    s.exact_g = 1;
    s.converged = true;
    s.message = "approximate ADATAP (no iteration of eqs 63-64)";
    finish(y, ksum, false, s);
    return s;
  }

  const bool keep_full = o.woodbury || o.approximate_steps > 0;
  if (o.newton && (keep_full || o.anderson_depth > 0))
    throw ConfigError({},
                      "adatap_bootstrap: newton excludes woodbury, approximate_steps and "
                      "anderson_depth");
  ExactG ex;                // the last exact evaluation (its L^-1)
  SingleG single_g;         // the last single-precision evaluation (its L^-1)
  MatrixXd G, gsq;          // full G at dl_e (kept only with A.3 / A.4)
  VectorXd dl_e, Gd_e, Gd;  // dl of the last exact G and its diagonal
  VectorXd dlc_prev;
  // Anderson acceleration (not in 000) of the map dl -> eq 64(eq 63(G(dl))) in log dl, so that
  // the iterate stays positive and the residual is relative like the stopping rule of A.3. It
  // changes only the path, never the fixed point: the iteration stops by the same residual at
  // an exactly evaluated point.
  std::optional<AndersonAccelerator> accel;
  if (o.anderson_depth > 0) accel.emplace(AndersonOptions{o.anderson_depth});
  // The next iterate from the evaluation at x (is_exact: ExactG, else SingleG): Newton, Anderson
  // or the plain step dl_new = F(x).
  auto next_dl = [&](const VectorXd& x, const VectorXd& dlc, const VectorXd& dl_new,
                     bool is_exact) {
    if (o.newton) {
      VectorXd step;
      const auto small = small_sites(K, x);
      const bool ok = is_exact ? newton_step(ex.inv_l, x, Gd, dlc, dl_new, ksum, small, step)
                               : newton_step(single_g.work, x, Gd, dlc, dl_new, ksum, small, step);
      if (ok) return step;
      ++s.newton_rejected;
      return dl_new;
    }
    if (!accel) return dl_new;
    return accel->next_positive(x.cwiseMax(1e-300), dl_new.cwiseMax(1e-300));
  };
  int approx_done = 0;
  bool force_exact = false;
  auto exact = [&]() {
    ex.compute(K, s.dl);
    Gd_e = ex.diag;
    if (keep_full) {
      G = ex.full(K, true);
      if (o.approximate_steps > 0) gsq = G.cwiseAbs2();
    }
    dl_e = s.dl;
    ++s.exact_g;
  };

  // Mixed precision (an added speed-up): single-precision evaluations of diag G until their
  // residual is below the tolerance or stops falling, then double precision to the end.
  bool single = o.mixed_precision;
  double single_prev = std::numeric_limits<double>::infinity();
  s.final_change = std::numeric_limits<double>::infinity();
  for (int t = 0; t < o.max_iterations; ++t) {
    bool is_exact = true;
    if (single) {
      try {
        Gd = single_g.compute(K, s.dl);
        ++s.single_evaluations;
        is_exact = false;
      } catch (const NumericalError&) {
        single = false;  // not positive definite in single precision: continue in double
      }
    }
    if (!is_exact) {
      // single-precision evaluation done
    } else if (s.exact_g == 0 || !keep_full) {
      exact();
      Gd = Gd_e;
      approx_done = 0;
    } else {
      const VectorXd delta = s.dl - dl_e;  // eq 71, relative to the last exact G
      const double gbar = Gd_e.mean();
      if (!force_exact && approx_done < o.approximate_steps &&
          delta.cwiseAbs().maxCoeff() * gbar < 0.1) {
        // A.4, eq 74: O(N^2) approximate diagonal update from the last exact G.
        const VectorXd v = delta - delta.cwiseAbs2().cwiseProduct(Gd_e) +
                           delta.array().cube().matrix().cwiseProduct(gsq.diagonal());
        Gd = Gd_e - gsq * v;
        ++approx_done;
        ++s.approximate_updates;
        is_exact = false;
      } else {
        // A.3 active set: sites whose dl moved by more than active_threshold relative since
        // their last exact G; the others keep dl_e. With active_threshold < tolerance a site
        // that has not converged is always active, so the iteration cannot stall.
        std::vector<Index> J;
        for (Index i = 0; i < n; ++i)
          if (std::abs(delta(i)) > o.active_threshold * dl_e(i)) J.push_back(i);
        const auto A = static_cast<Index>(J.size());
        if (o.woodbury && A <= n / 4) {
          // A.3, eq 72: G' = G - G_J (I + diag(delta_J) G_JJ)^-1 diag(delta_J) G_J^T
          // (2 N^2 A flops against N^3 for an exact full G).
          if (A > 0) {
            MatrixXd GJ(n, A), M(A, A);
            for (Index a = 0; a < A; ++a) GJ.col(a) = G.col(J[a]);
            for (Index a = 0; a < A; ++a)
              for (Index b = 0; b < A; ++b)
                M(a, b) = (a == b ? 1.0 : 0.0) + delta(J[a]) * G(J[a], J[b]);
            MatrixXd R = GJ.transpose();
            for (Index a = 0; a < A; ++a) R.row(a) *= delta(J[a]);
            const MatrixXd Y = Eigen::PartialPivLU<MatrixXd>(M).solve(R);
            G.noalias() -= GJ * Y;
            for (Index a = 0; a < A; ++a) dl_e(J[a]) = s.dl(J[a]);
          }
          Gd_e = G.diagonal();
          if (o.approximate_steps > 0) gsq = G.cwiseAbs2();
          ++s.woodbury_updates;
        } else {
          exact();
        }
        Gd = Gd_e;
        approx_done = 0;
      }
    }
    force_exact = false;
    // Eq 63 (dl_c >= 0 because G <= diag(dl)^-1; clamp against round-off in eq 74).
    // The point at which G was evaluated: after eq 72 the inactive sites keep dl_e, so eqs 63-64
    // are applied at dl_e (consistent with G) rather than at the iterate.
    const VectorXd& x = is_exact ? dl_e : s.dl;
    const VectorXd dlc = cavity_precision(Gd, x, 1e-12);
    const VectorXd dl_new = site_precision(ksum, dlc);  // eq 64
    double change = relative_change(dl_new, x);
    change = dlc_prev.size() == n ? std::max(change, relative_change(dlc, dlc_prev)) : change;
    s.iterations = t + 1;
    s.final_change = change;
    // Switch to double precision when the single-precision iteration has converged, stopped
    // improving (its noise floor), or converges fast enough (rate from the last two steps) that
    // the next step is predicted below half the tolerance: the next, exact evaluation then
    // confirms convergence instead of costing one more single-precision evaluation.
    const double rate = std::isfinite(single_prev) ? change / single_prev
                                                   : std::numeric_limits<double>::quiet_NaN();
    if (single && !is_exact &&
        (change < o.tolerance || rate > 0.7 || (rate < 0.5 && change * rate < 0.5 * o.tolerance))) {
      single = false;
      single_prev = change;
      s.dl = next_dl(x, dlc, dl_new, is_exact);
      dlc_prev = dlc;
      continue;
    }
    if (single) single_prev = change;
    if (change < o.tolerance && is_exact) {
      s.converged = true;  // (dl_e, G(dl_e)) is the solution; dl_new - dl_e < tolerance
      break;
    }
    if (change < o.tolerance) force_exact = true;  // confirm with an exact G before stopping
    s.dl = next_dl(x, dlc, dl_new, is_exact);
    dlc_prev = dlc;
  }
  if (s.converged) {
    // The last G was exact (directly or by eq 72) at dl_e: reuse it, or its L^-1 (dlauum).
    s.dl = dl_e;
    s.G = keep_full ? std::move(G) : ex.full(K, true);  // full G only at the end
  } else {
    s.message = "eqs 63-64 not converged after " + std::to_string(s.iterations) +
                " iterations (max relative change " + std::to_string(s.final_change) + ")";
    s.G = g_full(K, s.dl);
  }
  finish(y, ksum, true, s);
  return s;
}

double test_error_square(const Solution& sol, const VectorXd& y) {
  // Eq 53.
  const VectorXd num = (sol.gammac - y.cwiseProduct(sol.dlc)).cwiseAbs2() - sol.lamc;
  return (num.array() / sol.dlc.array().square()).mean();
}

void mixture(const Solution& sol, const VectorXd& y, double s2, const Occupation& occ,
             MatrixXd& means, MatrixXd& variances) {
  const Index n = y.size(), K = occ.pmf.size();
  means.resize(n, K);
  variances.resize(n, K);
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < K; ++k) {  // eq 67
      const double a = sol.dlc(i) + static_cast<double>(k) / s2;
      means(i, k) = (sol.gammac(i) + y(i) * static_cast<double>(k) / s2) / a;
      variances(i, k) = std::max(0.0, -sol.lamc(i)) / (a * a);
    }
}

MatrixXd binned_density(const MatrixXd& means, const MatrixXd& variances, const Occupation& occ,
                        const VectorXd& edges) {
  const Index n = means.rows(), B = edges.size() - 1;
  MatrixXd P = MatrixXd::Zero(n, B);
  auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < means.cols(); ++k) {
      const double w = occ.pmf(k), mu = means(i, k), sd = std::sqrt(variances(i, k));
      if (w < 1e-300) continue;
      for (Index b = 0; b < B; ++b) {
        double mass;
        if (sd == 0)
          mass = (mu >= edges(b) && mu < edges(b + 1)) ? 1.0 : 0.0;
        else
          mass = cdf((edges(b + 1) - mu) / sd) - cdf((edges(b) - mu) / sd);
        P(i, b) += w * mass;
      }
    }
  return P;
}

}  // namespace quench::adatap
