#include "adatap_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

#include <lapacke.h>
#include <Eigen/LU>

#include "quench/cholesky.h"
#include "quench/errors.h"

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

// Sum over the occupation number (eqs 60, 64 and H of eq 65): sum_k p_k (a + k/s2)^-power.
double occupation_sum(const Occupation& occ, double a, double s2, int power) {
  double s = 0;
  for (Index k = 0; k < occ.pmf.size(); ++k) {
    const double ak = a + static_cast<double>(k) / s2;
    s += occ.pmf(k) * (power == 1 ? 1.0 / ak : 1.0 / (ak * ak));
  }
  return s;
}

// Var_k[(a + k/s2)^-1] = H - (sum_k p_k / a_k)^2, summed without cancellation.
double occupation_variance(const Occupation& occ, double a, double s2) {
  const double s1 = occupation_sum(occ, a, s2, 1);
  double v = 0;
  for (Index k = 0; k < occ.pmf.size(); ++k) {
    const double d = 1.0 / (a + static_cast<double>(k) / s2) - s1;
    v += occ.pmf(k) * d * d;
  }
  return v;
}

// B = I + D^1/2 K D^1/2 (the symmetric form of eq 70), D = diag(dl).
Cholesky factor_b(const MatrixXd& K, const VectorXd& sq) {
  MatrixXd B = sq.asDiagonal() * K * sq.asDiagonal();
  B.diagonal().array() += 1.0;
  return Cholesky(std::move(B), JitterPolicy{}, "I + D^1/2 K D^1/2");
}

std::vector<Index> small_sites(const MatrixXd& K, const VectorXd& dl) {
  std::vector<Index> s;
  for (Index i = 0; i < dl.size(); ++i)
    if (dl(i) * K(i, i) <= kSmallSite) s.push_back(i);
  return s;
}

// diag G, G = (K^-1 + diag dl)^-1 = D^-1/2 (I - B^-1) D^-1/2 (eqs 41, 70): needs only
// diag(B^-1), i.e. one Cholesky and one triangular inverse, never K^-1.
VectorXd g_diagonal(const MatrixXd& K, const VectorXd& dl, std::optional<Cholesky>& factor) {
  const VectorXd sq = dl.cwiseMax(0.0).cwiseSqrt();
  factor.emplace(factor_b(K, sq));
  const Cholesky& c = *factor;
  const VectorXd binv = c.inverse_diagonal();
  VectorXd d(dl.size());
  for (Index i = 0; i < dl.size(); ++i) d(i) = (1.0 - binv(i)) / dl(i);
  const auto small = small_sites(K, dl);
  if (!small.empty()) {
    MatrixXd R(K.rows(), static_cast<Index>(small.size()));
    for (std::size_t j = 0; j < small.size(); ++j)
      R.col(static_cast<Index>(j)) = sq.cwiseProduct(K.col(small[j]));
    const MatrixXd W = c.solve_lower(R);  // G_ii = K_ii - |L^-1 D^1/2 K e_i|^2
    for (std::size_t j = 0; j < small.size(); ++j)
      d(small[j]) = K(small[j], small[j]) - W.col(static_cast<Index>(j)).squaredNorm();
  }
  return d;
}

// The full G (same algebra; dpotri for B^-1) from the factor c of B at dl.
MatrixXd g_full(const MatrixXd& K, const VectorXd& dl, const Cholesky& c) {
  const VectorXd sq = dl.cwiseMax(0.0).cwiseSqrt();
  MatrixXd G = -c.inverse();
  G.diagonal().array() += 1.0;
  const auto small = small_sites(K, dl);
  const VectorXd inv = dl.unaryExpr([](double v) { return v > 0 ? 1.0 / std::sqrt(v) : 0.0; });
  G = inv.asDiagonal() * G * inv.asDiagonal();
  if (!small.empty()) {
    MatrixXd R(K.rows(), static_cast<Index>(small.size()));
    for (std::size_t j = 0; j < small.size(); ++j)
      R.col(static_cast<Index>(j)) = sq.cwiseProduct(K.col(small[j]));
    const MatrixXd X = c.solve(R);                 // B^-1 D^1/2 K e_j
    const MatrixXd C = K * (sq.asDiagonal() * X);  // K D^1/2 B^-1 D^1/2 K e_j
    for (std::size_t j = 0; j < small.size(); ++j) {
      const VectorXd col = K.col(small[j]) - C.col(static_cast<Index>(j));
      G.col(small[j]) = col;
      G.row(small[j]) = col.transpose();
    }
  }
  return G;
}

MatrixXd g_full(const MatrixXd& K, const VectorXd& dl) {
  return g_full(K, dl, factor_b(K, dl.cwiseMax(0.0).cwiseSqrt()));
}

// Eigenvalues of a symmetric matrix (LAPACK dsyevd).
VectorXd eigenvalues(MatrixXd A) {
  const auto n = static_cast<lapack_int>(A.rows());
  VectorXd w(A.rows());
  if (LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', n, A.data(), n, w.data()) != 0)
    throw NumericalError("adatap_bootstrap", "eigenvalues of K did not converge");
  return w;
}

}  // namespace

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
      return initial_dl(eigenvalues(std::move(Ks)), s2, occ);
    }
    case SolverOptions::Init::eigen:
    default:
      return initial_dl(eigenvalues(K), s2, occ);
  }
}

// Eqs 63, 65, 66 and 39-40 from dl and the full G.
void finish(const VectorXd& y, double s2, const Occupation& occ, bool fixed_point, Solution& s) {
  const Index n = y.size();
  s.dlc = (s.G.diagonal().cwiseInverse() - s.dl).cwiseMax(1e-300);  // eq 63
  s.gamma = y.cwiseProduct(s.dl);                                   // eq 65
  s.m = s.G * s.gamma;                                              // eq 39
  const MatrixXd gsq = s.G.cwiseAbs2();
  s.H.resize(n);
  VectorXd var(n), d(n);
  const VectorXd r = (s.m - y).cwiseAbs2();
  for (Index i = 0; i < n; ++i) {
    s.H(i) = occupation_sum(occ, s.dlc(i), s2, 2);
    // H - g_ii: at the fixed point of eq 64 g_ii = (sum_k p_k/a_k)^2, so H - g_ii is the
    // variance of 1/a_k; summed directly it does not suffer the cancellation of H - g_ii.
    // Approximate ADATAP is not at the fixed point: there eq 65-66 are used literally.
    var(i) =
        fixed_point ? std::max(occupation_variance(occ, s.dlc(i), s2), 1e-300) : s.H(i) - gsq(i, i);
    d(i) = s.H(i) * gsq(i, i) / var(i);
  }
  // Eq 65: lambda = (g - diag d)^-1 (m - y)^2. diag(d) - g is positive definite in practice
  // (d_i > g_ii, the off-diagonal g_ij are small); fall back to LU otherwise.
  MatrixXd A = -gsq;
  A.diagonal() += d;
  try {
    const Cholesky c(A, JitterPolicy{1e-10, 10.0, 0}, "diag(d) - g");
    s.lam = -c.solve(r);
  } catch (const NumericalError&) {
    s.lam = -Eigen::PartialPivLU<MatrixXd>(A).solve(r);
  }
  s.gammac = -s.gamma + s.m.cwiseProduct(s.dl + s.dlc);  // eq 66
  s.lamc.resize(n);
  for (Index i = 0; i < n; ++i) s.lamc(i) = s.lam(i) * gsq(i, i) / var(i) + r(i) / gsq(i, i);
  s.train_variance = -(gsq * s.lam);  // eq 40
}

}  // namespace

Solution solve(const MatrixXd& K, const VectorXd& y, double s2, const Occupation& occ,
               const SolverOptions& o) {
  const Index n = K.rows();
  if (n == 0 || y.size() != n) throw ConfigError({}, "adatap_bootstrap: empty or mismatched data");
  Solution s;
  s.start_dl = start_value(K, s2, occ, o);
  s.dl = VectorXd::Constant(n, s.start_dl);

  if (o.method == SolverOptions::Method::approximate) {
    // Sec. 5, dot-dashed curve of Fig. 1: A.2 start, one G, eq 63, then eqs 65-66.
    s.G = g_full(K, s.dl);
    s.exact_g = 1;
    s.converged = true;
    s.message = "approximate ADATAP (no iteration of eqs 63-64)";
    finish(y, s2, occ, false, s);
    return s;
  }

  auto update_dl = [&](const VectorXd& dlc) {  // eq 64
    VectorXd out(n);
    for (Index i = 0; i < n; ++i)
      out(i) = std::max(0.0, 1.0 / occupation_sum(occ, dlc(i), s2, 1) - dlc(i));
    return out;
  };
  auto rel_change = [](const VectorXd& a, const VectorXd& b) {
    double c = 0;
    for (Index i = 0; i < a.size(); ++i) {
      const double scale = std::max(std::abs(a(i)), 1e-300);
      c = std::max(c, std::abs(a(i) - b(i)) / scale);
    }
    return c;
  };

  const bool keep_full = o.woodbury || o.approximate_steps > 0;
  MatrixXd G, gsq;          // last exact G (kept only with A.3 / A.4)
  VectorXd dl_e, Gd_e, Gd;  // dl of the last exact G and its diagonal
  VectorXd dlc_prev;
  std::optional<Cholesky> factor;  // of B at dl_e (plain path)
  int approx_done = 0;
  bool force_exact = false;
  auto exact = [&]() {
    if (keep_full) {
      G = g_full(K, s.dl);
      Gd_e = G.diagonal();
      if (o.approximate_steps > 0) gsq = G.cwiseAbs2();
    } else {
      Gd_e = g_diagonal(K, s.dl, factor);
    }
    dl_e = s.dl;
    ++s.exact_g;
  };

  s.final_change = std::numeric_limits<double>::infinity();
  for (int t = 0; t < o.max_iterations; ++t) {
    bool is_exact = true;
    if (t == 0 || !keep_full) {
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
        std::vector<Index> J;
        for (Index i = 0; i < n; ++i)
          if (std::abs(delta(i)) > o.active_threshold * std::max(std::abs(s.dl(i)), 1e-12))
            J.push_back(i);
        const auto A = static_cast<Index>(J.size());
        if (o.woodbury && A <= n / 4) {
          // A.3, eq 72: G' = G - G_J (I + diag(delta_J) G_JJ)^-1 diag(delta_J) G_J^T.
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
    const VectorXd dlc = (Gd.cwiseInverse() - s.dl).cwiseMax(1e-12);
    const VectorXd dl_new = update_dl(dlc);  // eq 64
    double change = rel_change(dl_new, s.dl);
    change = dlc_prev.size() == n ? std::max(change, rel_change(dlc, dlc_prev)) : change;
    s.dl = dl_new;
    dlc_prev = dlc;
    s.iterations = t + 1;
    s.final_change = change;
    if (change < o.tolerance) {
      if (is_exact) {
        s.converged = true;
        break;
      }
      force_exact = true;  // confirm with an exact G before stopping
    }
  }
  if (!s.converged)
    s.message = "eqs 63-64 not converged after " + std::to_string(s.iterations) +
                " iterations (max relative change " + std::to_string(s.final_change) + ")";
  if (s.converged) {
    // The last G was exact (possibly by eq 72) at dl_e, and dl moved by less than the
    // tolerance since: (dl_e, G(dl_e)) is the solution; its factor or G is reused.
    s.dl = dl_e;
    s.G = keep_full ? std::move(G) : g_full(K, dl_e, *factor);  // full G only at the end
  } else {
    s.G = g_full(K, s.dl);
  }
  finish(y, s2, occ, true, s);
  return s;
}

void predict(const MatrixXd& K, const Solution& sol, const MatrixXd& Kx, VectorXd& mean,
             VectorXd& variance) {
  // Eq 57 with T = (I + D K)^-1: mean = k(x)^T T gamma, var = -k(x)^T T diag(lambda) T^T k(x).
  // T^T k = (I + K D)^-1 k = k - K D^1/2 B^-1 D^1/2 k (Woodbury), B = I + D^1/2 K D^1/2.
  const VectorXd sq = sol.dl.cwiseMax(0.0).cwiseSqrt();
  const Cholesky c = factor_b(K, sq);
  const MatrixXd V = Kx - K * (sq.asDiagonal() * c.solve(MatrixXd(sq.asDiagonal() * Kx)));
  mean = V.transpose() * sol.gamma;
  variance = -(V.cwiseAbs2().transpose() * sol.lam);
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
