// WBB cost (004, issue 5): diabetes (n = 442, p = 10), lambda by 10-fold CV, 1000 draws with
// separate penalty weights. Units: one "cold fit" = the weighted problem solved the way a path
// solver (glmnet) fits it, 100 lambdas from lambda_max down to lambda starting at zero; also a
// single-lambda solve from zero. Then trend filtering (n = 500, k = 3, lambda = 1000) per draw.
#include <cstdio>
#include <string>

#include "bench_timing.h"
#include "quench/dataset.h"
#include "quench/draw_summary.h"
#include "quench/parallel.h"
#include "quench/rng.h"
#include "resamplers/exponential_weights.h"
#include "wbb/wbb_linear.h"
#include "weighted_solvers/coordinate_descent.h"
#include "weighted_solvers/trend_filter_admm.h"

using namespace quench;

int main() {
  DataSpec spec;
  spec.train_file = std::string(QUENCH_EXAMPLE_DATA) + "/diabetes.csv";
  spec.standardize_inputs = true;
  const Dataset data = load_dataset(spec);
  const Eigen::Index n = data.X_train.rows(), p = data.X_train.cols();
  const weighted_solvers::CoordinateDescent cd(
      Params(weighted_solvers::CoordinateDescent::schema(), {}));
  resamplers::ExponentialWeights r(Params(resamplers::ExponentialWeights::schema(), {}));
  r.prepare(n);
  wbb::LinearSpec ls{&data.X_train, &data.y_train, 1.0, true};
  const auto cv = wbb::cross_validate(cd, ls, 10, 100, 1e-4, 2018, 1);
  const double lambda = cv.lambda_min;
  WeightedLeastSquares base{
      &data.X_train, &data.y_train, Eigen::VectorXd::Ones(n), Eigen::VectorXd::Constant(p, lambda),
      1.0,           true};
  PenalizedSolution mode;
  cd.solve(base, mode);

  // A typical weighted problem: draw 0's weights.
  RngStream rng(2018, 0);
  WeightedLeastSquares q = base;
  q.weights = r.sample(rng);
  const Eigen::VectorXd factors = exponential_draws(rng, p);
  q.penalty = lambda * factors;
  int path_sweeps = 0, single_sweeps = 0;
  const double cold_path =
      bench::best_of(20, [&] { wbb::cold_path_fit(cd, q, factors, 100, &path_sweeps); });
  const double cold_single = bench::best_of(20, [&] {
    PenalizedSolution s;
    single_sweeps = cd.solve(q, s).iterations;
  });
  const Eigen::Index T = 1000;
  wbb::LinearDraws warm1, cold1;
  const double t_warm1 = bench::best_of(3, [&] {
    warm1 =
        wbb::linear_draws(cd, ls, lambda, r, wbb::PenaltyWeights::separate, mode, true, T, 2018, 1);
  });
  const double t_cold1 = bench::best_of(3, [&] {
    cold1 = wbb::linear_draws(cd, ls, lambda, r, wbb::PenaltyWeights::separate, mode, false, T,
                              2018, 1);
  });
  const int threads = resolve_threads(0);
  const double t_warmN = bench::best_of(3, [&] {
    wbb::linear_draws(cd, ls, lambda, r, wbb::PenaltyWeights::separate, mode, true, T, 2018,
                      threads);
  });
  std::printf(
      "WBB diabetes: n = %ld, p = %ld, lambda (CV min) = %.4g, T = %ld draws, separate "
      "weights\n",
      static_cast<long>(n), static_cast<long>(p), lambda, static_cast<long>(T));
  std::printf("  cold fit (100-lambda path from 0) %9.1f us  (%d sweeps)\n", 1e6 * cold_path,
              path_sweeps);
  std::printf("  cold single-lambda solve from 0   %9.1f us  (%d sweeps)\n", 1e6 * cold_single,
              single_sweeps);
  std::printf("  warm draw (from the unweighted solution), 1 thread %9.1f us  (%.1f sweeps)\n",
              1e6 * t_warm1 / T, warm1.sweeps.mean());
  std::printf("  cold-started draw, 1 thread                        %9.1f us  (%.1f sweeps)\n",
              1e6 * t_cold1 / T, cold1.sweeps.mean());
  std::printf("  warm draw, %d threads                               %9.1f us\n", threads,
              1e6 * t_warmN / T);
  std::printf(
      "  1000 warm draws = %.2f cold path fits (target < 20); one warm draw = %.1f "
      "single-lambda cold solves\n",
      t_warm1 / cold_path, t_warm1 / T / cold_single);
  const double train = bench::best_of(3, [&] {
    const auto c = wbb::cross_validate(cd, ls, 10, 100, 1e-4, 2018, 1);
    PenalizedSolution s;
    cd.solve(base, s);
  });
  std::printf(
      "  training (10-fold CV over 100 lambdas + the fit) %.2f ms: 1000 warm draws = %.2f "
      "trainings\n",
      1e3 * train, t_warm1 / train);
  std::printf("  warm vs cold-started draws: x%.2f; %d threads vs 1: x%.2f\n", t_cold1 / t_warm1,
              threads, t_warm1 / t_warmN);

  // Trend filtering, 004 Fig. 4 set-up.
  Eigen::VectorXd y(500);
  RngStream g(2018, 0);
  for (int i = 1; i <= 500; ++i)
    y(i - 1) = std::sin(4 * M_PI * i / 500.0) * std::exp(3.0 * i / 500.0) + 2 * g.normal();
  const weighted_solvers::TrendFilterAdmm admm(
      Params(weighted_solvers::TrendFilterAdmm::schema(), {}));
  resamplers::ExponentialWeights r500(Params(resamplers::ExponentialWeights::schema(), {}));
  r500.prepare(500);
  TrendFilteringProblem tf;
  tf.y = &y;
  tf.weights = Eigen::VectorXd::Ones(500);
  tf.lambda = 1000;
  tf.order = 3;
  PenalizedSolution tmode;
  const double t_mode = bench::best_of(3, [&] {
    tmode = PenalizedSolution{};
    admm.solve(tf, tmode);
  });
  const Eigen::Index T2 = 100;
  wbb::TrendDraws tw, tc;
  const double t_tw = bench::best_of(1, [&] {
    tw = wbb::trend_draws(admm, y, 3, 1000, r500, wbb::PenaltyWeights::common, tmode, true, T2,
                          2018, 1);
  });
  const double t_tc = bench::best_of(1, [&] {
    tc = wbb::trend_draws(admm, y, 3, 1000, r500, wbb::PenaltyWeights::common, tmode, false, T2,
                          2018, 1);
  });
  const double t_tN = bench::best_of(1, [&] {
    wbb::trend_draws(admm, y, 3, 1000, r500, wbb::PenaltyWeights::common, tmode, true, T2, 2018,
                     threads);
  });
  std::printf("Trend filtering n = 500, k = 3, lambda = 1000 (ADMM, duality gap < 1e-8 f):\n");
  std::printf("  unweighted fit from y %9.2f ms\n", 1e3 * t_mode);
  std::printf(
      "  per draw warm %.2f ms (%.0f iterations), cold %.2f ms (%.0f iterations), "
      "warm with %d threads %.2f ms\n",
      1e3 * t_tw / T2, tw.iterations.mean(), 1e3 * t_tc / T2, tc.iterations.mean(), threads,
      1e3 * t_tN / T2);
  return 0;
}
