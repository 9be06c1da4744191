// TAP and EP GP classification cost in units of one N x N Cholesky (quench::Cholesky)
// measured in the same run (issue target: TAP <= 40 Choleskys at N = 2000).
//
//   quench_bench_classification [path/to/letter.csv] [--quick] [--paper] [--no-ep] [--n N]
//
// TAP is solved by the Newton solver (MeanFieldSolver::newton, the engine default); --paper
// also times the paper's damped iteration (slow: minutes at N = 500).
//
// Data: binary letter (classes 0-12 vs 13-25), the first N rows, inputs standardized over
// those rows; Gaussian covariance v0 = 1, w_l = 1/(sigma^2 d) with sigma^2 = 1, step likelihood.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../plugins/gp_classification/ep.h"
#include "../plugins/gp_classification/mean_field.h"
#include "../plugins/likelihoods/probit_likelihood.h"
#include "quench/cholesky.h"
#include "quench/dataset.h"

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  std::string path = "examples/data/letter.csv";
  bool quick = false, paper = false, ep_too = true;
  int only = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--no-ep") == 0)
      ep_too = false;
    else if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      only = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--paper") == 0)
      paper = true;
    else
      path = argv[i];
  }
  const quench::CsvTable table = quench::read_csv(path);
  const Eigen::Index ycol = table.column_index("y");
  std::printf("%6s %10s %8s %8s %8s %8s %8s %10s %10s\n", "N", "chol[s]", "TAP", "EP", "Newton",
              "lambda", "EPiter", "max|da|", "TAPpaper");
  for (int n : {500, 1000, 2000}) {
    if ((quick && n > 500) || (only > 0 && n != only)) continue;
    Eigen::MatrixXd X(n, 16);
    Eigen::VectorXd t(n);
    int c = 0;
    for (Eigen::Index j = 0; j < table.values.cols(); ++j) {
      if (j == ycol || table.columns[static_cast<std::size_t>(j)] == "train") continue;
      if (c < 16) X.col(c++) = table.values.col(j).head(n);
    }
    for (int i = 0; i < n; ++i) t(i) = table.values(i, ycol) <= 12 ? 1.0 : -1.0;
    const Eigen::RowVectorXd mean = X.colwise().mean();
    X.rowwise() -= mean;
    const Eigen::RowVectorXd sd = (X.colwise().squaredNorm() / (n - 1)).cwiseSqrt();
    X = X.array().rowwise() / sd.array();
    const double w = 1.0 / (1.0 * 16);
    Eigen::MatrixXd C(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        C(i, j) = std::exp(-0.5 * w * (X.row(i) - X.row(j)).squaredNorm());
    double chol = 1e300;
    for (int r = 0; r < 3; ++r) {
      const auto t0 = Clock::now();
      const quench::Cholesky L(C);
      chol = std::min(chol, since(t0));
    }
    const quench::likelihoods::ProbitLikelihood lik(0.0, 0.0);
    auto t0 = Clock::now();
    const auto tap = quench::gp_classification::solve_mean_field(C, t, lik, {});
    const double t_tap = since(t0);
    t0 = Clock::now();
    quench::gp_classification::MeanFieldFit ep = tap;
    if (ep_too) ep = quench::gp_classification::solve_ep(C, t, lik, {});
    const double t_ep = ep_too ? since(t0) : 0.0;
    double t_paper = 0.0;
    if (paper) {
      quench::gp_classification::MeanFieldOptions o;
      o.solver = quench::gp_classification::MeanFieldSolver::paper;
      t0 = Clock::now();
      const auto p = quench::gp_classification::solve_mean_field(C, t, lik, o);
      t_paper = since(t0) / chol;
      if (p.status.code != quench::RunStatus::ok) t_paper = -t_paper;
    }
    if (tap.status.code != quench::RunStatus::ok || ep.status.code != quench::RunStatus::ok)
      std::printf("status: tap '%s' ep '%s'\n", tap.status.message.c_str(),
                  ep.status.message.c_str());
    std::printf("%6d %10.4f %8.1f %8.1f %8d %8d %8d %10.2e %10.1f\n", n, chol, t_tap / chol,
                t_ep / chol, tap.status.iterations, tap.lambda_refreshes, ep.status.iterations,
                (tap.alpha - ep.alpha).cwiseAbs().maxCoeff(), t_paper);
    std::fflush(stdout);
  }
  return 0;
}
