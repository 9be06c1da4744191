// The inducing-point ADATAP bootstrap (plugins/adatap_bootstrap/sparse_solver.h,
// docs/large_n.md) at large N: the diamonds data (examples/data/diamonds.csv, 53 940 rows, 9
// inputs, target y; inputs and target standardized on the training rows), a gaussian ARD
// kernel with fixed hyperparameters, Poisson bootstrap S/N = 1, M inducing inputs chosen by
// greedy conditional variance, eq 57 at held-out rows. Prints the time of each stage, the
// iterations of eqs 63-64 and the CG steps of eq 65, the peak RSS, the dgemm rate measured in
// the same run and the total time as a multiple of the flop floor 2 N M^2 / rate.
//
//   quench_bench_sparse_adatap [--n N] [--m M] [--test T] [--length-scale L] [--noise S2]
//                              [--form fitc|sor] [--tolerance TOL] [--seed S]
//                              [--check-dense N_SMALL]
//
// --n: training rows (0, the default: every row not held out; else a seeded subset);
// --check-dense N_SMALL: instead, the sparse solver against the dense ADATAP on the same prior
// K~ formed explicitly, and against exact ADATAP on K, at N = N_SMALL (M clamped to N_SMALL / 4).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "adatap_bootstrap.h"
#include "adatap_solver.h"
#include "bench_timing.h"
#include "bootstrap_resamplers.h"
#include "kernels.h"
#include "quench/errors.h"
#include "quench/inducing_points.h"
#include "quench/low_rank_prior.h"
#include "quench/tool_main.h"
#include "sparse_solver.h"

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

double peak_rss_gb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0 / 1e9;  // ru_maxrss is in KiB on Linux
}

// The rows of a numeric CSV with a header line: inputs = every column but the last.
void read_csv(const std::string& path, MatrixXd& X, VectorXd& y) {
  std::ifstream in(path);
  if (!in) throw quench::DataError(path, 0, "", "cannot open");
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<double> row;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) row.push_back(std::stod(cell));
    rows.push_back(std::move(row));
  }
  const auto n = static_cast<Index>(rows.size()), d = static_cast<Index>(rows.at(0).size()) - 1;
  X.resize(n, d);
  y.resize(n);
  for (Index i = 0; i < n; ++i) {
    if (static_cast<Index>(rows[i].size()) != d + 1)
      throw quench::DataError(path, static_cast<int>(i) + 2, "", "wrong number of columns");
    for (Index j = 0; j < d; ++j) X(i, j) = rows[i][j];
    y(i) = rows[i][d];
  }
}

struct Split {
  MatrixXd X_train, X_test;
  VectorXd y_train, y_test;
};

// Seeded permutation: the first `test` rows held out, the next n (0: all the rest) for
// training; standardized with the training rows' means and standard deviations.
Split split(const MatrixXd& X, const VectorXd& y, Index n, Index test, std::uint64_t seed) {
  if (test >= X.rows())
    throw quench::ConfigError({}, "--test " + std::to_string(test) +
                                      " leaves no training rows of " + std::to_string(X.rows()));
  std::vector<Index> order(static_cast<std::size_t>(X.rows()));
  std::iota(order.begin(), order.end(), Index{0});
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  const Index available = X.rows() - test;
  if (n <= 0 || n > available) n = available;
  Split s;
  s.X_train.resize(n, X.cols());
  s.y_train.resize(n);
  s.X_test.resize(test, X.cols());
  s.y_test.resize(test);
  for (Index i = 0; i < test; ++i) s.X_test.row(i) = X.row(order[i]), s.y_test(i) = y(order[i]);
  for (Index i = 0; i < n; ++i)
    s.X_train.row(i) = X.row(order[test + i]), s.y_train(i) = y(order[test + i]);
  const Eigen::RowVectorXd mean = s.X_train.colwise().mean();
  const Eigen::RowVectorXd sd =
      ((s.X_train.rowwise() - mean).colwise().squaredNorm() / static_cast<double>(n)).cwiseSqrt();
  for (MatrixXd* A : {&s.X_train, &s.X_test})
    *A = (A->rowwise() - mean).array().rowwise() / sd.array();
  const double ym = s.y_train.mean();
  const double ys = std::sqrt((s.y_train.array() - ym).square().mean());
  s.y_train = (s.y_train.array() - ym) / ys;
  s.y_test = (s.y_test.array() - ym) / ys;
  return s;
}

// Flops per second of one 2000 x 1000 by 1000 x 1000 dgemm (best of 3).
double dgemm_rate() {
  const MatrixXd A = MatrixXd::Random(2000, 1000), B = MatrixXd::Random(1000, 1000);
  MatrixXd C(2000, 1000);
  const double t = quench::bench::best_of(3, [&] { C.noalias() = A * B; });
  return 2.0 * 2000 * 1000 * 1000 / t;
}

double max_relative(const VectorXd& a, const VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

struct Options {
  Index n = 0, m = 1000, test = 1000, check_dense = 0;
  double length_scale = 1.5, noise = 0.02, tolerance = 1e-3;
  quench::LowRankForm form = quench::LowRankForm::fitc;
  std::uint64_t seed = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    if (a + 1 >= argc) throw quench::ConfigError({}, "missing value after " + flag);
    const std::string value = argv[++a];
    try {
      if (flag == "--n")
        o.n = std::stol(value);
      else if (flag == "--m")
        o.m = std::stol(value);
      else if (flag == "--test")
        o.test = std::stol(value);
      else if (flag == "--check-dense")
        o.check_dense = std::stol(value);
      else if (flag == "--length-scale")
        o.length_scale = std::stod(value);
      else if (flag == "--noise")
        o.noise = std::stod(value);
      else if (flag == "--tolerance")
        o.tolerance = std::stod(value);
      else if (flag == "--seed")
        o.seed = std::stoull(value);
      else if (flag == "--form" && (value == "fitc" || value == "sor"))
        o.form = value == "fitc" ? quench::LowRankForm::fitc : quench::LowRankForm::sor;
      else
        throw quench::ConfigError({}, "unknown option or value: " + flag + " " + value);
    } catch (const std::logic_error&) {  // std::stol / std::stod: not a number
      throw quench::ConfigError({}, "not a number: " + flag + " " + value);
    }
  }
  if (o.m < 1 || o.test < 1 || o.n < 0 || o.check_dense < 0 || !(o.noise > 0) ||
      !(o.length_scale > 0) || !(o.tolerance > 0))
    throw quench::ConfigError({},
                              "--m and --test must be >= 1, --n and --check-dense >= 0, "
                              "--noise, --length-scale and --tolerance > 0");
  return o;
}

std::unique_ptr<quench::Kernel> ard_gaussian(const Options& o, const MatrixXd& X_train) {
  using namespace quench;
  auto kernel = kernels::make_gaussian(
      Params(kernels::gaussian_schema(),
             {{"length_scales",
               std::vector<double>(static_cast<std::size_t>(X_train.cols()), o.length_scale)}}));
  kernel->prepare(X_train);
  return kernel;
}

quench::adatap::Occupation poisson_occupation(Index n) {
  using namespace quench;
  resamplers::PoissonBootstrap resampler(
      Params(resamplers::PoissonBootstrap::schema(), {{"ratio", 1.0}}));
  resampler.prepare(n);
  return adatap::occupation_of(resampler, 1e-12);
}

// Sparse against dense ADATAP on K~ (the same equations: agreement to the solver tolerance)
// and against exact ADATAP on K (the error of K ~ K~).
int check_dense(const Options& o, const MatrixXd& X, const VectorXd& y) {
  using namespace quench;
  const Split s = split(X, y, o.check_dense, o.test, o.seed);
  const Index n = s.X_train.rows(), m = std::min(o.m, n / 4);
  const auto kernel = ard_gaussian(o, s.X_train);
  InducingSpec spec;
  spec.count = m;
  spec.form = o.form;
  const LowRankPrior prior(*kernel, s.X_train,
                           select_inducing_inputs(*kernel, s.X_train, spec, o.seed));
  const auto occ = poisson_occupation(n);
  adatap::SolverOptions so;
  so.tolerance = 1e-10;  // both iterations end within ~1e-10 of the common fixed point
  so.max_iterations = 1000;
  so.anderson_depth = 3;
  const auto t0 = clock_type::now();
  const adatap::SparseSolution sparse = adatap::solve_sparse(prior, s.y_train, o.noise, occ, so);
  const double t_sparse = since(t0);
  const auto t1 = clock_type::now();
  const adatap::Solution dense = adatap::solve(prior.dense(), s.y_train, o.noise, occ, so);
  const double t_dense = since(t1);
  const adatap::Solution exact =
      adatap::solve(kernel->cross(s.X_train, s.X_train), s.y_train, o.noise, occ, so);

  const MatrixXd features = prior.features(s.X_test);
  VectorXd mean, variance;
  adatap::regression_predictor(prior, sparse, s.y_train).predict(features, mean, variance);
  const MatrixXd kx = prior.factor() * features.transpose();  // Q_nx formed explicitly
  const MatrixXd V = kx - dense.G * (dense.dl.asDiagonal() * kx);
  const VectorXd mean_ref = V.transpose() * dense.gamma;
  const VectorXd variance_ref = -(V.cwiseAbs2().transpose() * dense.lam);

  const double eps_sparse = adatap::test_error_square(sparse.sites, s.y_train);
  const double eps_dense = adatap::test_error_square(dense, s.y_train);
  const double eps_exact = adatap::test_error_square(exact, s.y_train);
  std::printf("check-dense: N = %ld, M = %ld (%s), tolerance 1e-10; converged sparse %d dense %d\n",
              static_cast<long>(n), static_cast<long>(m), to_string(o.form).c_str(),
              sparse.sites.converged, dense.converged);
  std::printf(
      "  time: sparse %.3f s (%d iterations, %d CG steps), dense on K~ %.3f s (%d "
      "iterations)\n",
      t_sparse, sparse.sites.iterations, sparse.sites.eq65_steps, t_dense, dense.iterations);
  std::printf(
      "  sparse vs dense on K~ (max |diff| / max |dense|): dl %.2e  m %.2e  train var "
      "%.2e  lambda_c %.2e  test mean %.2e  test var %.2e  eps(S) %.2e\n",
      max_relative(sparse.sites.dl, dense.dl), max_relative(sparse.sites.m, dense.m),
      max_relative(sparse.sites.train_variance, dense.train_variance),
      max_relative(sparse.sites.lamc, dense.lamc), max_relative(mean, mean_ref),
      max_relative(variance, variance_ref), std::abs(eps_sparse - eps_dense) / eps_dense);
  std::printf(
      "  eps(S) eq 53: sparse %.6f, dense on K~ %.6f, exact ADATAP on K %.6f; train "
      "mean sparse vs exact %.2e\n",
      eps_sparse, eps_dense, eps_exact, max_relative(sparse.sites.m, exact.m));
  return sparse.sites.converged && dense.converged ? 0 : 3;
}

int run(const Options& o, const MatrixXd& X, const VectorXd& y) {
  using namespace quench;
  const double rate = dgemm_rate();
  const Split s = split(X, y, o.n, o.test, o.seed);
  const Index n = s.X_train.rows();
  const auto kernel = ard_gaussian(o, s.X_train);
  const auto occ = poisson_occupation(n);

  const auto t0 = clock_type::now();
  InducingSpec spec;
  spec.count = o.m;
  spec.form = o.form;
  const InducingInputs inducing = select_inducing_inputs(*kernel, s.X_train, spec, o.seed);
  const double t_select = since(t0);
  const auto t1 = clock_type::now();
  const LowRankPrior prior(*kernel, s.X_train, inducing);
  const double t_prior = since(t1);
  adatap::SolverOptions so;  // the engine's defaults: Anderson(3), tolerance 1e-3
  so.anderson_depth = 3;
  so.tolerance = o.tolerance;
  const adatap::SparseSolution sol = adatap::solve_sparse(prior, s.y_train, o.noise, occ, so);
  const auto t2 = clock_type::now();
  VectorXd mean, variance;
  adatap::regression_predictor(prior, sol, s.y_train)
      .predict(prior.features(s.X_test), mean, variance);
  const double t_predict = since(t2);
  const double total = since(t0);
  const double rate_after = dgemm_rate();  // the machine may be shared: the rate on both sides

  const Index m = prior.rank();
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(m * m);
  const double rmse = std::sqrt((mean - s.y_test).squaredNorm() / static_cast<double>(o.test));
  std::printf(
      "sparse ADATAP, diamonds: N = %ld, M = %ld (%s, greedy variance), %ld test rows, "
      "length scale %.3g, noise %.3g, Poisson S/N = 1, tolerance %.1e\n",
      static_cast<long>(n), static_cast<long>(m), to_string(o.form).c_str(),
      static_cast<long>(o.test), o.length_scale, o.noise, o.tolerance);
  std::printf("  inducing selection %8.2f s\n", t_select);
  std::printf("  prior build        %8.2f s\n", t_prior);
  std::printf("  fixed point        %8.2f s  (%d iterations, %s)\n", sol.fixed_point_seconds,
              sol.sites.iterations, sol.sites.converged ? "converged" : sol.sites.message.c_str());
  std::printf("  eq 65 CG           %8.2f s  (%d steps)\n", sol.eq65_seconds, sol.sites.eq65_steps);
  std::printf("  test predictions   %8.2f s\n", t_predict);
  std::printf("  total              %8.2f s\n", total);
  std::printf(
      "  peak RSS %.2f GB; dgemm %.1f GFlop/s before, %.1f after; flop floor 2 N M^2 / "
      "rate = %.2f s / %.2f s; total = %.1f / %.1f x floor\n",
      peak_rss_gb(), rate / 1e9, rate_after / 1e9, flops / rate, flops / rate_after,
      total * rate / flops, total * rate_after / flops);
  std::printf(
      "  eps(S) eq 53 %.4f; held-out RMSE of the bootstrap mean %.4f (standardized); "
      "mean bootstrap variance at test rows %.3g\n",
      adatap::test_error_square(sol.sites, s.y_train), rmse, variance.mean());
  return sol.sites.converged ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  return quench::tool_main(
      argc, argv,
      "[--n N] [--m M] [--test T] [--length-scale L] [--noise S2] [--form fitc|sor] "
      "[--tolerance TOL] [--seed S] [--check-dense N_SMALL]\nThe inducing-point ADATAP "
      "bootstrap on examples/data/diamonds.csv: stage times, peak RSS, flop-floor ratio.",
      [&] {
        const Options o = parse(argc, argv);
        MatrixXd X;
        VectorXd y;
        read_csv(std::string(QUENCH_EXAMPLE_DATA) + "/diamonds.csv", X, y);
        return o.check_dense > 0 ? check_dense(o, X, y) : run(o, X, y);
      });
}
