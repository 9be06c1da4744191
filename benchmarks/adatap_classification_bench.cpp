// The analytical (ADATAP) bootstrap of a GP classifier against its references, measured in one
// run (issue 13 targets: at N = 1000, S = N, ADATAP <= the time of 10 EP retrains of the
// Monte-Carlo inner model and <= 20 N x N Cholesky-equivalents; at N = 200 under 1 s on one
// core).
//
//   quench_bench_adatap_classification [path/to/letter.csv] [--n N]   (N alone; default 200, 1000)
//
// Data: binary letter (classes 0-12 vs 13-25), the first N rows, inputs standardized over those
// rows; Gaussian covariance w_l = 1/(sigma^2 d), sigma^2 = 1, no kernel noise; probit noise 1 on
// the likelihood; Poisson bootstrap S = N (occupation pmf truncated below 1e-12). One thread for
// everything (BLAS included). Units: the fastest of 5 Choleskys of K; one EP retrain = EP with
// k-fold sites on the points of one Poisson sample (the mc_bootstrap inner model), the faster of
// 2. "it(crs)": iterations, of them with the coarse site rule. "fine" and "crs": one evaluation
// of every averaged site at the final cavities with the uniform 20-node u-rule (N k_max n_u
// k-fold tilted moments) and with the coarse rule of the first stage; "G": the O(N^3) algebra
// of one iteration (G = (K^-1 + diag Delta lambda)^-1) in Choleskys of K.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "ep.h"
#include "general_solver.h"
#include "letter_task.h"
#include "probit_likelihood.h"
#include "quench/cholesky.h"
#include "quench/dataset.h"
#include "quench/parallel.h"
#include "quench/tool_main.h"

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

quench::adatap::Occupation poisson(double nu, double tail) {
  std::vector<double> p{std::exp(-nu)};
  double mass = p[0];
  while (1.0 - mass > tail || static_cast<double>(p.size()) < nu) {
    p.push_back(p.back() * nu / static_cast<double>(p.size()));
    mass += p.back();
  }
  quench::adatap::Occupation o;
  o.pmf = Eigen::Map<const VectorXd>(p.data(), static_cast<Index>(p.size())) / mass;
  return o;
}

}  // namespace

static int main_body(int argc, char** argv) {
  std::string path = "examples/data/letter.csv";
  int only = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      only = std::atoi(argv[++i]);
    else
      path = argv[i];
  }
  const quench::ScopedBlasThreads one_blas_thread(1);
  const quench::likelihoods::ProbitLikelihood probit(1.0, 0.0);
  const quench::adatap::Occupation occ = poisson(1.0, 1e-12);
  std::printf("%5s %8s %9s %9s %8s %7s %7s %7s %8s %11s %12s\n", "N", "chol[s]", "EP[s]",
              "ADATAP[s]", "it(crs)", "fine[s]", "crs[s]", "G[chol]", "x EP", "x Cholesky",
              "(targets)");
  const std::vector<int> sizes = only > 0 ? std::vector<int>{only} : std::vector<int>{200, 1000};
  for (int n : sizes) {
    const quench::bench::LetterRows letter = quench::bench::first_letter_rows(path, n);
    const VectorXd& t = letter.label;
    const MatrixXd K = quench::bench::gaussian_gram(letter.X, 1.0);
    const double chol = quench::bench::best_of(5, [&] { const quench::Cholesky L(K); });

    // One EP retrain on a Poisson sample (S = N): the drawn points with their counts.
    std::mt19937 gen(7);
    std::poisson_distribution<int> draw(1.0);
    std::vector<Index> kept;
    std::vector<int> counts;
    for (int i = 0; i < n; ++i)
      if (const int k = draw(gen); k > 0) {
        kept.push_back(i);
        counts.push_back(k);
      }
    const auto m = static_cast<Index>(kept.size());
    MatrixXd KA(m, m);
    VectorXd tA(m);
    Eigen::VectorXi kA(m);
    for (Index a = 0; a < m; ++a) {
      tA(a) = t(kept[static_cast<std::size_t>(a)]);
      kA(a) = counts[static_cast<std::size_t>(a)];
      for (Index b = 0; b < m; ++b)
        KA(a, b) = K(kept[static_cast<std::size_t>(a)], kept[static_cast<std::size_t>(b)]);
    }
    const quench::latent_gp::EpOptions ep_options;
    const double ep = quench::bench::best_of(
        2, [&] { quench::latent_gp::solve_ep(KA, tA, kA, probit, ep_options); });

    quench::adatap::GeneralOptions o;
    o.threads = 1;
    quench::adatap::GeneralSolution sol;
    const double adatap = quench::bench::best_of(
        1, [&] { sol = quench::adatap::solve_general(K, t, probit, occ, o); });
    auto sites = [&](const quench::adatap::SiteQuadrature& q) {
      return quench::bench::best_of(1, [&] {
        for (Index i = 0; i < n; ++i)
          quench::adatap::averaged_site(probit, {t(i)}, sol.dlc(i), sol.gammac(i), sol.lamc(i), q);
      });
    };
    const double fine = sites(quench::adatap::uniform_site_quadrature(occ.pmf, o.hermite_nodes));
    const double coarse = sites(quench::adatap::coarse_site_quadrature(occ.pmf));
    const double g = quench::bench::best_of(3, [&] { quench::adatap::g_full(K, sol.dl); });
    std::printf("%5d %8.4f %9.4f %9.3f %4d(%2d) %7.3f %7.3f %7.1f %8.1f %11.1f   %s%s\n", n, chol,
                ep, adatap, sol.iterations, sol.coarse_iterations, fine, coarse, g / chol,
                adatap / ep, adatap / chol,
                n == 1000 ? "<= 10 EP, <= 20 chol" : (n == 200 ? "< 1 s" : ""),
                sol.converged ? "" : "  (NOT CONVERGED)");
  }
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[letter.csv] [--n N]\nADATAP GP classification cost against EP "
                           "retrains and Choleskys (issue 13 targets).",
                           [&] { return main_body(argc, argv); });
}
