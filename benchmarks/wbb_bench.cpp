// WBB cost (004, issue 5): diabetes (n = 442, p = 10), lambda by 10-fold CV, 1000 draws with
// separate penalty weights. Units: one "cold fit" = the weighted problem solved the way a path
// solver (glmnet) fits it, 100 lambdas from lambda_max down to lambda starting at zero; also a
// single-lambda solve from zero. Then trend filtering (n = 500, k = 3, lambda = 1000) per draw.
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "bench_timing.h"
#include "coordinate_descent.h"
#include "exponential_weights.h"
#include "quench/dataset.h"
#include "quench/draw_summary.h"
#include "quench/parallel.h"
#include "quench/rng.h"
#include "quench/tool_main.h"
#include "trend_filter_admm.h"
#include "wbb_linear.h"

using namespace quench;

namespace {

// The unweighted problem at lambda (all weights 1, penalty lambda on every coefficient).
WeightedLeastSquares unweighted(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, double lambda) {
  return {&X,  &y,  Eigen::VectorXd::Ones(X.rows()), Eigen::VectorXd::Constant(X.cols(), lambda),
          1.0, true};
}

// The weighted problem of draw t (seed 2018, separate penalty weights): data weights from r,
// then the penalty factors from the same stream, as wbb::linear_draws draws them.
struct DrawProblem {
  WeightedLeastSquares problem;
  Eigen::VectorXd factors;
};
DrawProblem draw_problem(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Resampler& r,
                         double lambda, Eigen::Index t) {
  RngStream s(2018, static_cast<std::uint64_t>(t));
  DrawProblem d{unweighted(X, y, lambda), Eigen::VectorXd()};
  d.problem.weights = r.sample(s);
  d.factors = exponential_draws(s, X.cols());
  d.problem.penalty = lambda * d.factors;
  return d;
}

// Where two sets of draws of the same weighted problems differ most: max |beta_a - beta_b| and
// objective(a) - objective(b) of that draw's problem, i.e. which of the two is closer to the
// optimum.
std::pair<double, double> worst_draw_gap(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                         const Resampler& r, double lambda,
                                         const wbb::LinearDraws& a, const wbb::LinearDraws& b) {
  Eigen::Index t = 0;
  const double diff = (a.beta - b.beta).rowwise().lpNorm<Eigen::Infinity>().maxCoeff(&t);
  const WeightedLeastSquares q = draw_problem(X, y, r, lambda, t).problem;
  auto objective = [&](const wbb::LinearDraws& d) {
    const Eigen::VectorXd beta = d.beta.row(t).transpose();
    const Eigen::VectorXd res = (y - X * beta).array() - d.intercept(t);
    return 0.5 * q.weights.dot(res.cwiseAbs2()) + q.penalty.dot(beta.cwiseAbs());
  };
  return {diff, objective(a) - objective(b)};
}

}  // namespace

static int main_body() {
  DataSpec spec;
  spec.train_file = std::string(QUENCH_EXAMPLE_DATA) + "/diabetes.csv";
  spec.standardize_inputs = true;
  const Dataset data = load_dataset(spec);
  const Eigen::Index n = data.X_train.rows(), p = data.X_train.cols();
  const weighted_solvers::CoordinateDescent cd(
      Params(weighted_solvers::CoordinateDescent::schema(), {}));
  resamplers::ExponentialWeights r(Params(resamplers::ExponentialWeights::schema(), {}));
  r.prepare(n);
  resamplers::ExponentialWeights rz(
      Params(resamplers::ExponentialWeights::schema(), {{"method", std::string("ziggurat")}}));
  rz.prepare(n);
  wbb::LinearSpec ls{&data.X_train, &data.y_train, 1.0, true};
  const auto cv = wbb::cross_validate(cd, ls, 10, 100, 1e-4, 2018, 1);
  const double lambda = cv.lambda_min;
  const WeightedLeastSquares base = unweighted(data.X_train, data.y_train, lambda);
  PenalizedSolution mode;
  cd.solve(base, mode);

  // A typical weighted problem: draw 0's weights.
  const auto [q, factors] = draw_problem(data.X_train, data.y_train, r, lambda, 0);
  int path_sweeps = 0, single_sweeps = 0;
  // The unit: a cold fit of the weighted model at the data, as glmnet fits it: the weighted
  // Gram matrix formed once, then coordinate descent along 100 lambdas from lambda_max down
  // to lambda, starting at zero.
  const double cold_path =
      bench::best_of(20, [&] { wbb::cold_path_fit(cd, q, factors, 100, &path_sweeps); });
  // The previous helper's unit: the same path forming the Gram matrix again at every lambda.
  const double cold_path_regram = bench::best_of(5, [&] {
    const Eigen::VectorXd path = Eigen::VectorXd::LinSpaced(100, 0, 1);
    PenalizedSolution s;
    WeightedLeastSquares qq = q;
    const double lmax = lasso_lambda_max(q, factors);
    for (int l = 0; l < 100; ++l) {
      qq.penalty = lmax * std::pow(lambda / lmax, path(l)) * factors;
      cd.solve(qq, s);
    }
  });
  const double cold_single = bench::best_of(20, [&] {
    PenalizedSolution s;
    single_sweeps = cd.solve(q, s).iterations;
  });
  const Eigen::Index T = 1000;
  // Cost components of one draw: the weights (452 + 10 Exp(1) from a fresh stream) and the
  // weighted statistics (one row of the batched product).
  auto sampling = [&](const Resampler& rs) {
    return bench::best_of(3, [&] {
      for (Eigen::Index t = 0; t < T; ++t) {
        RngStream s(2018, static_cast<std::uint64_t>(t));
        const Eigen::VectorXd w = rs.sample(s);
        const Eigen::VectorXd f = exponential_draws(s, p);
        if (w(0) + f(0) < 0) std::printf("!");
      }
    });
  };
  const double t_sample = sampling(r), t_sample_z = sampling(rz);
  const BatchedWeightedGram batched(data.X_train, data.y_train);
  Eigen::MatrixXd W32(n, 32);
  for (Eigen::Index b = 0; b < 32; ++b) W32.col(b) = q.weights;
  const double t_gram = bench::best_of(5, [&] {
    for (Eigen::Index k = 0; k < T / 32; ++k) {
      const Eigen::MatrixXd S = batched.products(W32);
      if (S(0, 0) < 0) std::printf("!");
    }
  });
  wbb::LinearDraws warm1, cold1, plain1, zig1;
  const double t_warm1 = bench::best_of(3, [&] {
    warm1 = wbb::linear_draws(cd, ls, lambda, r, wbb::PenaltyWeights::separate, mode, true, T, 2018,
                              quench::RunContext::on_threads(1));
  });
  const double t_cold1 = bench::best_of(3, [&] {
    cold1 = wbb::linear_draws(cd, ls, lambda, r, wbb::PenaltyWeights::separate, mode, false, T,
                              2018, quench::RunContext::on_threads(1));
  });
  const double t_zig1 = bench::best_of(3, [&] {
    zig1 = wbb::linear_draws(cd, ls, lambda, rz, wbb::PenaltyWeights::separate, mode, true, T, 2018,
                             quench::RunContext::on_threads(1));
  });
  // Without the active-set solve (plain coordinate descent to the tolerance).
  const weighted_solvers::CoordinateDescent plain(
      Params(weighted_solvers::CoordinateDescent::schema(), {{"active_set_solve", false}}));
  const double t_plain1 = bench::best_of(3, [&] {
    plain1 = wbb::linear_draws(plain, ls, lambda, r, wbb::PenaltyWeights::separate, mode, true, T,
                               2018, quench::RunContext::on_threads(1));
  });
  const auto [diff, objective_gap] =
      worst_draw_gap(data.X_train, data.y_train, r, lambda, plain1, warm1);
  const int threads = std::max(2, resolve_threads(0));
  wbb::LinearDraws zigN;
  const double t_zigN = bench::best_of(3, [&] {
    zigN = wbb::linear_draws(cd, ls, lambda, rz, wbb::PenaltyWeights::separate, mode, true, T, 2018,
                             quench::RunContext::on_threads(threads));
  });
  const bool identical = zigN.beta == zig1.beta && zigN.intercept == zig1.intercept;
  std::printf(
      "WBB diabetes: n = %ld, p = %ld, lambda (CV min) = %.4g, T = %ld draws, separate "
      "weights\n",
      static_cast<long>(n), static_cast<long>(p), lambda, static_cast<long>(T));
  std::printf("  cold fit (Gram once + 100-lambda path from 0, glmnet) %9.2f us  (%d sweeps)\n",
              1e6 * cold_path, path_sweeps);
  std::printf("  100-lambda path re-forming the Gram at every lambda   %9.2f us\n",
              1e6 * cold_path_regram);
  std::printf("  cold single-lambda solve from 0 (Gram + CD)           %9.2f us  (%d sweeps)\n",
              1e6 * cold_single, single_sweeps);
  std::printf(
      "  per draw: stream + 452 + 10 Exp(1): inversion %.2f us, ziggurat %.2f us; batched Gram "
      "%.2f us\n",
      1e6 * t_sample / T, 1e6 * t_sample_z / T, 1e6 * t_gram / T);
  std::printf("  warm draw (from the unweighted solution), 1 thread %9.2f us  (%.2f sweeps)\n",
              1e6 * t_warm1 / T, warm1.sweeps.mean());
  std::printf("  cold-started draw (from 0), 1 thread               %9.2f us  (%.2f sweeps)\n",
              1e6 * t_cold1 / T, cold1.sweeps.mean());
  std::printf(
      "  warm draw without the active-set solve, 1 thread %9.2f us  (%.2f sweeps; max |diff| "
      "%.1e,\n    there objective(plain) - objective(active-set) = %.2e)\n",
      1e6 * t_plain1 / T, plain1.sweeps.mean(), diff, objective_gap);
  std::printf("  warm draw, ziggurat weights, 1 thread             %9.2f us  (%.2f sweeps)\n",
              1e6 * t_zig1 / T, zig1.sweeps.mean());
  std::printf(
      "  warm draw, ziggurat weights, %d threads            %9.2f us  (draws bitwise equal to "
      "1 thread: %s)\n",
      threads, 1e6 * t_zigN / T, identical ? "yes" : "NO");
  std::printf(
      "  1000 warm draws (inversion / ziggurat, 1 thread) = %.1f / %.1f cold fits (target < 20); "
      "ziggurat with %d threads %.1f\n",
      t_warm1 / cold_path, t_zig1 / cold_path, threads, t_zigN / cold_path);
  // What no solver can remove: each draw needs its own weights and weighted statistics.
  std::printf(
      "  floor with a free solver: 1000 x (ziggurat weights + batched Gram) = %.1f cold fits\n",
      (t_sample_z + t_gram) / cold_path);
  std::printf(
      "  in the previous unit (path re-forming the Gram per lambda): %.1f / %.1f; one warm "
      "draw = %.2f / %.2f single-lambda cold solves\n",
      t_warm1 / cold_path_regram, t_zig1 / cold_path_regram, t_warm1 / T / cold_single,
      t_zig1 / T / cold_single);
  const double train = bench::best_of(3, [&] {
    const auto c = wbb::cross_validate(cd, ls, 10, 100, 1e-4, 2018, 1);
    PenalizedSolution s;
    cd.solve(base, s);
  });
  std::printf(
      "  training (10-fold CV over 100 lambdas + the fit) %.2f ms: 1000 warm draws = %.2f "
      "trainings\n",
      1e3 * train, t_warm1 / train);
  std::printf("  warm vs cold-started draws: x%.2f; %d threads vs 1 (ziggurat): x%.2f\n",
              t_cold1 / t_warm1, threads, t_zig1 / t_zigN);

  // p > n (004 Sec. 3.1 design A(i), n = 50, p = 120): the residual form of coordinate
  // descent, with and without the exact active-set solve.
  {
    const Eigen::Index n2 = 50, p2 = 120, T2 = 200;
    Eigen::VectorXd beta = Eigen::VectorXd::Zero(p2);
    beta.head(10).setOnes();
    RngStream gen(2018, 120);
    Eigen::MatrixXd X2, Xt2;
    Eigen::VectorXd y2, yt2;
    wbb::simulation_data(beta, n2, gen, X2, y2, Xt2, yt2);
    wbb::LinearSpec ls2{&X2, &y2, 1.0, true};
    const double lambda2 = wbb::cross_validate(cd, ls2, 10, 100, 1e-2, 2018, 1).lambda_min;
    resamplers::ExponentialWeights r2(
        Params(resamplers::ExponentialWeights::schema(), {{"method", std::string("ziggurat")}}));
    r2.prepare(n2);
    PenalizedSolution mode2;
    cd.solve(unweighted(X2, y2, lambda2), mode2);
    const auto [q2, f2] = draw_problem(X2, y2, r2, lambda2, 0);
    int sweeps_fast = 0, sweeps_plain = 0;
    const double path_fast =
        bench::best_of(5, [&] { wbb::cold_path_fit(cd, q2, f2, 100, &sweeps_fast); });
    const double path_plain =
        bench::best_of(3, [&] { wbb::cold_path_fit(plain, q2, f2, 100, &sweeps_plain); });
    wbb::LinearDraws d_fast, d_plain;
    const double draws_fast = bench::best_of(3, [&] {
      d_fast = wbb::linear_draws(cd, ls2, lambda2, r2, wbb::PenaltyWeights::separate, mode2, true,
                                 T2, 2018, quench::RunContext::on_threads(1));
    });
    const double draws_plain = bench::best_of(3, [&] {
      d_plain = wbb::linear_draws(plain, ls2, lambda2, r2, wbb::PenaltyWeights::separate, mode2,
                                  true, T2, 2018, quench::RunContext::on_threads(1));
    });
    const auto gap2 = worst_draw_gap(X2, y2, r2, lambda2, d_plain, d_fast);
    std::printf(
        "p > n (Sec. 3.1 design A(i), n = 50, p = 120, lambda (CV min) = %.4g), residual form:\n",
        lambda2);
    std::printf(
        "  warm draw %.1f us (%.1f sweeps), without the active-set solve %.1f us (%.1f sweeps): "
        "x%.2f;\n    max |diff| %.1e, there objective(plain) - objective(active-set) = %.2e\n",
        1e6 * draws_fast / T2, d_fast.sweeps.mean(), 1e6 * draws_plain / T2, d_plain.sweeps.mean(),
        draws_plain / draws_fast, gap2.first, gap2.second);
    std::printf(
        "  cold fit (100-lambda path) %.1f us (%d sweeps), without %.1f us (%d sweeps): x%.2f; "
        "1000 warm draws = %.1f cold fits\n",
        1e6 * path_fast, sweeps_fast, 1e6 * path_plain, sweeps_plain, path_plain / path_fast,
        1000 * draws_fast / T2 / path_fast);
  }

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
                          2018, quench::RunContext::on_threads(1));
  });
  const double t_tc = bench::best_of(1, [&] {
    tc = wbb::trend_draws(admm, y, 3, 1000, r500, wbb::PenaltyWeights::common, tmode, false, T2,
                          2018, quench::RunContext::on_threads(1));
  });
  const double t_tN = bench::best_of(1, [&] {
    wbb::trend_draws(admm, y, 3, 1000, r500, wbb::PenaltyWeights::common, tmode, true, T2, 2018,
                     quench::RunContext::on_threads(threads));
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

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "\nWBB: warm-started draws against cold fits; trend filtering per draw.",
                           [] { return main_body(); });
}
