// ADATAP analytical bootstrap cost at S = N (000 Sec. 5: "the time of <= 25 Monte-Carlo
// retrainings for N <= 2500, <= 15 for N <= 500"), in units measured in the same run:
// (a) one N x N LAPACK Cholesky, (b) one Monte-Carlo retrain (the GP on the ~0.632 N distinct
// points of one Poisson(1) resample, noise sigma^2 / s_i, predictions at all N inputs).
// Also prints the number of exact G computations and iterations of eqs 63-64.
//
//   quench_bench_adatap [--quick]
//
// Data as quench_bench_gp: x ~ N(0, I_8), y = sin(x_1) + cos(x_2) + 0.1 e, Gaussian kernel
// l^2 = 8, sigma^2 = 0.01.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../plugins/adatap_bootstrap/adatap_solver.h"
#include "bench_timing.h"
#include "quench/cholesky.h"
#include "quench/rng.h"

namespace {

using quench::bench::best_of;

}  // namespace

int main(int argc, char** argv) {
  using namespace quench;
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const std::vector<int> sizes =
      quick ? std::vector<int>{500, 1000} : std::vector<int>{500, 1000, 2000, 2500};
  const double s2 = 0.01;
  // Poisson(1) occupation pmf (000 eq 15), truncated at 1e-12.
  adatap::Occupation occ;
  occ.pmf.resize(18);
  for (int k = 0; k < 18; ++k) occ.pmf(k) = std::exp(-1.0 - std::lgamma(k + 1.0));

  std::printf("%6s %-26s %9s %9s %9s %6s %6s %6s %6s\n", "N", "path", "seconds", "/chol",
              "/retrain", "iters", "exactG", "wood", "approx");
  for (const int n : sizes) {
    RngStream rng(17, static_cast<std::uint64_t>(n));
    Eigen::MatrixXd X(n, 8);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < 8; ++j) X(i, j) = rng.normal();
      y(i) = std::sin(X(i, 0)) + std::cos(X(i, 1)) + 0.1 * rng.normal();
    }
    Eigen::MatrixXd K(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) K(i, j) = std::exp(-(X.row(i) - X.row(j)).squaredNorm() / 8.0);

    const double t_chol = best_of(3, [&] {
      Eigen::MatrixXd A = K;
      A.diagonal().array() += s2;
      const Cholesky c(std::move(A));
    });
    // One Monte-Carlo retrain (as gp_regression's ResampledGp): distinct points of a Poisson(1)
    // resample, GP with noise s2 / s_i, predictions at all N training inputs.
    std::vector<int> idx;
    std::vector<double> cnt;
    for (int i = 0; i < n; ++i) {
      double u = rng.uniform(), p = std::exp(-1.0), c = p;
      int k = 0;
      while (u > c) c += (p /= ++k);
      if (k > 0) idx.push_back(i), cnt.push_back(k);
    }
    const auto m = static_cast<Eigen::Index>(idx.size());
    const double t_retrain = best_of(3, [&] {
      Eigen::MatrixXd A(m, m), Kx(n, m);
      Eigen::VectorXd ys(m);
      for (Eigen::Index a = 0; a < m; ++a) {
        ys(a) = y(idx[a]);
        Kx.col(a) = K.col(idx[a]);
        for (Eigen::Index b = 0; b < m; ++b) A(a, b) = K(idx[a], idx[b]);
        A(a, a) += s2 / cnt[static_cast<std::size_t>(a)];
      }
      const Cholesky c(std::move(A));
      volatile double sink = (Kx * c.solve(ys)).sum();
      (void)sink;
    });
    std::printf("%6d %-26s %9.4f %9s %9s   (retrain %.4f s on %ld distinct points)\n", n,
                "cholesky N x N", t_chol, "1", "", t_retrain, static_cast<long>(m));

    struct Path {
      const char* name;
      adatap::SolverOptions o;
    };
    std::vector<Path> paths;
    adatap::SolverOptions o;
    o.init = adatap::SolverOptions::Init::constant;
    paths.push_back({"plain (constant start)", o});
    o.init = adatap::SolverOptions::Init::eigen;
    paths.push_back({"A.2 eigen", o});
    o.init = adatap::SolverOptions::Init::subset;
    paths.push_back({"A.2 subset P=4", o});
    o.woodbury = true;
    paths.push_back({"subset + A.3", o});
    o.approximate_steps = 3;
    paths.push_back({"subset + A.3 + A.4(3)", o});
    o.woodbury = false;
    paths.push_back({"subset + A.4(3)", o});
    o = adatap::SolverOptions{};
    o.method = adatap::SolverOptions::Method::approximate;
    o.init = adatap::SolverOptions::Init::subset;
    paths.push_back({"approximate ADATAP", o});
    for (const auto& p : paths) {
      adatap::Solution s;
      const double t = best_of(quick ? 1 : 2, [&] { s = adatap::solve(K, y, s2, occ, p.o); });
      std::printf("%6d %-26s %9.4f %9.2f %9.2f %6d %6d %6d %6d%s\n", n, p.name, t, t / t_chol,
                  t / t_retrain, s.iterations, s.exact_g, s.woodbury_updates, s.approximate_updates,
                  s.converged ? "" : "  NOT CONVERGED");
    }
  }
  return 0;
}
