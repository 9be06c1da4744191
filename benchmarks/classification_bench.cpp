// TAP and EP GP classification cost in units of one N x N Cholesky (quench::Cholesky)
// measured in the same run (issue target: TAP <= 40 Choleskys at N = 2000).
//
//   quench_bench_classification [path/to/letter.csv] [--quick] [--paper] [--no-ep] [--n N]
//   quench_bench_classification --svm-loo path/to/crabs_spread.csv
//
// TAP is solved by the Newton solver (MeanFieldSolver::newton, the engine default); --paper
// also times the paper's damped iteration (slow: minutes at N = 500).
//
// Data: binary letter (classes 0-12 vs 13-25), the first N rows, inputs standardized over
// those rows; Gaussian covariance v0 = 1, w_l = 1/(sigma^2 d) with sigma^2 = 1, step likelihood.
// Timing on a shared machine: the Cholesky unit is the fastest of 5 factorizations before and
// 3 after the solvers, TAP the faster of 2 solves (EP one solve), so a load change during the
// run inflates the ratios rather than hiding cost. The columns `alpha` and `joint` count the
// O(N^3) operations of TAP: alpha-Newton steps (one factorization of I + S C S each) and eq-28
// refreshes (the start at alpha = 0, one per joint step and the confirming one; dpotrf +
// triangular inverse + dlauum, in single precision far from the fixed point, without the
// dlauum for the start and the confirmation).
//
// --svm-loo: eq 38 against the exact LOO of the SVM limit on a data set with a 0/1 `train`
// column and target `y` (inputs standardized over the training rows, Gaussian covariance,
// sigma^2 in {0.25, ..., 4}): per width the eq-38 errors, the errors of a retrain on the fixed
// support set S \ {i} (which eq 38 computes in closed form), the exact LOO errors, and on how
// many support-vector removals the exact retrain changes the support set.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <Eigen/LU>

#include "ep.h"
#include "letter_task.h"
#include "mean_field.h"
#include "probit_likelihood.h"
#include "quench/cholesky.h"
#include "quench/dataset.h"
#include "quench/tool_main.h"
#include "svm_limit.h"

namespace {
using quench::bench::gaussian_gram;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Restriction of C and t to the index set `keep`; `cross` = C(keep, i).
struct Subset {
  Eigen::MatrixXd C;
  Eigen::VectorXd t, cross;
};
Subset subset(const Eigen::MatrixXd& C, const Eigen::VectorXd& t,
              const std::vector<Eigen::Index>& keep, Eigen::Index i) {
  const auto k = static_cast<Eigen::Index>(keep.size());
  Subset s{Eigen::MatrixXd(k, k), Eigen::VectorXd(k), Eigen::VectorXd(k)};
  for (Eigen::Index a = 0; a < k; ++a) {
    s.t(a) = t(keep[static_cast<std::size_t>(a)]);
    s.cross(a) = C(keep[static_cast<std::size_t>(a)], i);
    for (Eigen::Index b = 0; b < k; ++b)
      s.C(a, b) = C(keep[static_cast<std::size_t>(a)], keep[static_cast<std::size_t>(b)]);
  }
  return s;
}

int svm_loo_analysis(const std::string& path) {
  using namespace quench::latent_gp;
  quench::DataSpec spec;
  spec.train_file = path;
  spec.split = quench::SplitRule::column;
  spec.standardize_inputs = true;
  const quench::Dataset d = quench::load_dataset(spec);
  const Eigen::VectorXd t = class_labels(d, quench::DataPart::train, "svm_limit");
  const Eigen::Index n = t.size();
  std::printf("%7s %5s %6s %11s %6s %12s %14s %10s\n", "sigma^2", "SVs", "eq38", "fixed-set",
              "exact", "set-changed", "eq38!=exact", "|eq38-fs|");
  for (double s2 : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    const Eigen::MatrixXd C = gaussian_gram(d.X_train, s2);
    const SvmFit fit = solve_svm(C, t, 1e-10, 200000);
    int sv = 0, e38 = 0, fixed = 0, exact = 0, changed = 0, disagree = 0;
    double diff = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      std::vector<Eigen::Index> rest, rest_sv;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (j == i) continue;
        rest.push_back(j);
        if (fit.alpha(j) > 0) rest_sv.push_back(j);
      }
      const Subset r = subset(C, t, rest, i);
      const SvmFit loo = solve_svm(r.C, r.t, 1e-10, 200000);
      const bool err_exact = t(i) * r.cross.dot(r.t.cwiseProduct(loo.alpha)) <= 0;
      exact += err_exact;
      if (fit.alpha(i) <= 0) continue;  // removing a non-SV leaves the solution unchanged
      ++sv;
      bool same = true;
      for (std::size_t a = 0; a < rest.size(); ++a)
        same = same && (loo.alpha(static_cast<Eigen::Index>(a)) > 0) == (fit.alpha(rest[a]) > 0);
      changed += !same;
      // Retrain with the support set held fixed: C_{S\i} u = t_{S\i} (eq 37 on S \ {i}).
      const Subset f = subset(C, t, rest_sv, i);
      const double h_fixed = f.cross.dot(Eigen::PartialPivLU<Eigen::MatrixXd>(f.C).solve(f.t));
      const double m38 = t(i) * fit.loo_mean(i);
      diff = std::max(diff, std::fabs(m38 - t(i) * h_fixed));
      e38 += m38 <= 0;
      fixed += t(i) * h_fixed <= 0;
      disagree += (m38 <= 0) != err_exact;
    }
    std::printf("%7.2f %5d %6d %11d %6d %7d of %2d %14d %10.1e\n", s2, sv, e38, fixed, exact,
                changed, sv, disagree, diff);
  }
  return 0;
}
}  // namespace

static int main_body(int argc, char** argv) {
  std::string path = "examples/data/letter.csv";
  bool quick = false, paper = false, ep_too = true;
  int only = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--paper") == 0)
      paper = true;
    else if (std::strcmp(argv[i], "--no-ep") == 0)
      ep_too = false;
    else if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      only = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--svm-loo") == 0 && i + 1 < argc)
      return svm_loo_analysis(argv[++i]);
    else
      path = argv[i];
  }
  std::printf("%6s %9s %7s %7s %6s %6s %8s %10s %10s %9s\n", "N", "chol[s]", "TAP", "EP", "alpha",
              "joint", "EPsweeps", "max|da|", "max|dp|", "TAPpaper");
  for (int n : {500, 1000, 2000}) {
    if ((quick && n > 500) || (only > 0 && n != only)) continue;
    const quench::bench::LetterRows letter = quench::bench::first_letter_rows(path, n);
    const Eigen::VectorXd& t = letter.label;
    const Eigen::MatrixXd C = gaussian_gram(letter.X, 1.0);
    double chol = 1e300;
    auto time_cholesky = [&](int reps) {
      for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        const quench::Cholesky L(C);
        chol = std::min(chol, since(t0));
      }
    };
    time_cholesky(5);
    const quench::likelihoods::ProbitLikelihood lik(0.0, 0.0);
    double t_tap = 1e300;
    quench::latent_gp::MeanFieldFit tap;
    for (int r = 0; r < 2; ++r) {
      const auto t0 = Clock::now();
      tap = quench::latent_gp::solve_mean_field(C, t, lik, {});
      t_tap = std::min(t_tap, since(t0));
    }
    quench::latent_gp::MeanFieldFit ep = tap;
    double t_ep = 0.0;
    if (ep_too) {
      const auto t0 = Clock::now();
      ep = quench::latent_gp::solve_ep(C, t, lik, {});
      t_ep = since(t0);
    }
    double t_paper = 0.0;
    if (paper) {
      quench::latent_gp::MeanFieldOptions o;
      o.solver = quench::latent_gp::MeanFieldSolver::paper;
      const auto t0 = Clock::now();
      const auto p = quench::latent_gp::solve_mean_field(C, t, lik, o);
      t_paper = since(t0);
      if (p.status.code != quench::RunStatus::ok) t_paper = -t_paper;
    }
    time_cholesky(3);
    if (tap.status.code != quench::RunStatus::ok || ep.status.code != quench::RunStatus::ok)
      std::printf("status: tap '%s' ep '%s'\n", tap.status.message.c_str(),
                  ep.status.message.c_str());
    // Predictive probabilities at the training inputs, Phi(<h_i> / sqrt(Sigma_ii)) (eq 12 with
    // lambda(x_i) = Sigma_ii): TAP against EP.
    auto probabilities = [&](const quench::latent_gp::MeanFieldFit& f) {
      const Eigen::VectorXd s = quench::posterior_covariance(C, f.tau).sigma.diagonal();
      Eigen::VectorXd p(n);
      for (int i = 0; i < n; ++i)
        p(i) = std::exp(lik.tilted_moments({1.0}, f.mean_field(i), s(i)).log_z);
      return p;
    };
    const double dp = ep_too ? (probabilities(tap) - probabilities(ep)).cwiseAbs().maxCoeff() : 0;
    std::printf("%6d %9.4f %7.1f %7.1f %6d %6d %8d %10.2e %10.2e %9.1f\n", n, chol, t_tap / chol,
                t_ep / chol, tap.status.iterations - tap.lambda_refreshes, tap.lambda_refreshes,
                ep_too ? ep.status.iterations : 0, (tap.slope - ep.slope).cwiseAbs().maxCoeff(), dp,
                t_paper / chol);
    std::fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[--quick] [--paper] [--no-ep] [--n N] [--svm-loo FILE] "
                           "[letter.csv]\nTAP / EP GP classification cost in Cholesky units.",
                           [&] { return main_body(argc, argv); });
}
