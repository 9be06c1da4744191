// wbb_reproduce: the 004 reproductions that need simulated data (docs/wbb.md).
//   wbb_reproduce normal_means [draws]            Fig. 1: WBB mean vs Mitchell's posterior mean
//   wbb_reproduce simulation [datasets] [draws] [threads] [setting] [n]
//                                                 Sec. 3.1, Tables 1-3 (WBB separate weights
//                                                 at lambda_min and lambda_1se vs Bayesian LASSO)
//   wbb_reproduce trend_data [seed]               the Fig. 4 data set as CSV on stdout
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bayesian_lasso.h"
#include "coordinate_descent.h"
#include "exponential_weights.h"
#include "normal_means.h"
#include "quench/draw_summary.h"
#include "quench/parallel.h"
#include "quench/rng.h"
#include "quench/tool_main.h"
#include "wbb_linear.h"

namespace {

using namespace quench;

weighted_solvers::CoordinateDescent make_cd() {
  return weighted_solvers::CoordinateDescent(
      Params(weighted_solvers::CoordinateDescent::schema(), {{"tolerance", 1e-10}}));
}

int normal_means(Eigen::Index T) {
  const auto cd = make_cd();
  resamplers::ExponentialWeights r(Params(resamplers::ExponentialWeights::schema(), {}));
  r.prepare(1);
  const Eigen::MatrixXd X = Eigen::MatrixXd::Ones(1, 1);
  std::printf("# 004 Fig. 1: normal means, Laplace prior; WBB (common w0, %ld draws) vs exact\n",
              static_cast<long>(T));
  std::printf("%7s %5s %12s %12s %12s %12s\n", "lambda", "y", "WBB_MC", "+-se", "WBB_exact",
              "Mitchell");
  for (double lambda : {0.5, 1.0, 2.0})
    for (double y0 : {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0}) {
      const Eigen::VectorXd y = Eigen::VectorXd::Constant(1, y0);
      wbb::LinearSpec spec{&X, &y, 1.0, false};
      const auto d =
          wbb::linear_draws(cd, spec, lambda, r, wbb::PenaltyWeights::common, PenalizedSolution{},
                            false, T, 2018, quench::RunContext::on_threads(0));
      const Eigen::VectorXd b = d.beta.col(0);
      const double se = std::sqrt((b.array() - b.mean()).square().mean() / double(T));
      std::printf("%7.2f %5.2f %12.4f %12.4f %12.4f %12.4f\n", lambda, y0, b.mean(), se,
                  wbb::wbb_normal_means_mean(y0, lambda), wbb::mitchell_posterior_mean(y0, lambda));
    }
  return 0;
}

struct Metrics {
  double est = 0, pred = 0, cover = 0, cover_signal = 0;
};

// Estimation MSE (1/p)|mean - beta|^2, test MSE of the posterior-mean prediction, and the
// fraction of coordinates whose own central 95 % interval covers beta_j: over all j, and over
// the signal coordinates (beta_j != 0) only.
Metrics metrics(const Eigen::MatrixXd& draws, const Eigen::VectorXd& intercepts,
                const Eigen::VectorXd& beta, const Eigen::MatrixXd& Xt, const Eigen::VectorXd& yt) {
  const DrawSummary s = summarize_draws(draws, 0.95);
  Metrics m;
  m.est = (s.mean - beta).squaredNorm() / double(beta.size());
  m.pred = ((yt - Xt * s.mean).array() - intercepts.mean()).square().mean();
  const Eigen::ArrayXd inside =
      ((beta.array() >= s.lower.array()) && (beta.array() <= s.upper.array())).cast<double>();
  const Eigen::ArrayXd signal = (beta.array() != 0.0).cast<double>();
  m.cover = inside.mean();
  m.cover_signal = (inside * signal).sum() / signal.sum();
  return m;
}

// Mean and Monte-Carlo standard error over data sets of one metric.
struct MeanSe {
  double mean = 0, se = 0;
};
template <class Get>
MeanSe mean_se(const std::vector<Metrics>& v, Get get) {
  const double k = double(v.size());
  double s = 0, s2 = 0;
  for (const auto& m : v) s += get(m), s2 += get(m) * get(m);
  const double mean = s / k;
  return {mean, k > 1 ? std::sqrt(std::max(s2 / k - mean * mean, 0.0) / (k - 1)) : 0.0};
}

// Tables 1-3 of 004 Sec. 3.1. Every data set gets the Bayesian LASSO (EB lambda) and the WBB
// (separate weights) at both CV rules, lambda_min and lambda_1se (cv.glmnet's default for
// coef()/predict()), on the same data and weights. only_setting: -1 all, else 0 A(i),
// 1 A(ii), 2 B. n_fixed: n of the first design (the tables' headers say 50, the text 100).
int simulation(int datasets, Eigen::Index T, int threads, int only_setting, Eigen::Index n_fixed) {
  const auto cd = make_cd();
  resamplers::ExponentialWeights r(Params(resamplers::ExponentialWeights::schema(), {}));
  const char* names[] = {"A(i)", "A(ii)", "B"};
  std::printf(
      "# 004 Sec. 3.1 simulation: %d data sets per cell, %ld draws per method; estimation MSE "
      "+- Monte-Carlo s.e., prediction MSE, coverage all coordinates / signal coordinates\n",
      datasets, static_cast<long>(T));
  std::printf("%-4s %-5s %4s %4s | %15s %15s %15s | %7s %7s %7s | %11s %11s %11s | %6s\n", "n",
              "beta", "p", "n", "est BLASSO", "est WBB min", "est WBB 1se", "pred BL", "p min",
              "p 1se", "cov BLASSO", "cov min", "cov 1se", "sec");
  for (int design = 0; design < 2; ++design)
    for (int setting = 0; setting < 3; ++setting)
      for (int p : {40, 60, 80, 100, 120}) {
        if (only_setting >= 0 && setting != only_setting) continue;
        const Eigen::Index n = design == 0 ? n_fixed : p / 2;
        if (design == 1 && p == 100) continue;  // not in the paper's tables
        Eigen::VectorXd beta = Eigen::VectorXd::Zero(p);
        if (setting == 0) beta.head(10).setOnes();
        if (setting == 1) beta.head(5).setOnes(), beta.segment(5, 5).setConstant(10);
        if (setting == 2) beta.setOnes();
        r.prepare(n);
        std::vector<Metrics> wmin(datasets), w1se(datasets), bl(datasets);
        const auto t0 = std::chrono::steady_clock::now();
        parallel_for(static_cast<std::size_t>(datasets), threads, [&](std::size_t b) {
          RngStream rng(2018 + 1000 * design + 100 * setting + p, b);
          Eigen::MatrixXd X, Xt;
          Eigen::VectorXd y, yt;
          wbb::simulation_data(beta, n, rng, X, y, Xt, yt);
          const std::uint64_t seed = mix_seed(7, 1000000 * design + 10000 * setting + 100 * p + b);
          // WBB: lambda by 10-fold CV of the unweighted LASSO, separate penalty weights.
          wbb::LinearSpec spec{&X, &y, 1.0, true};
          const auto cv = wbb::cross_validate(cd, spec, 10, 100, n < p ? 1e-2 : 1e-4, seed, 1);
          for (const bool one_se : {false, true}) {
            const double lambda = one_se ? cv.lambda_1se : cv.lambda_min;
            WeightedLeastSquares base{
                &X, &y, Eigen::VectorXd::Ones(n), Eigen::VectorXd::Constant(p, lambda), 1.0, true};
            PenalizedSolution mode;
            cd.solve(base, mode);
            const auto d =
                wbb::linear_draws(cd, spec, lambda, r, wbb::PenaltyWeights::separate, mode, true, T,
                                  seed, quench::RunContext::on_threads(1));
            (one_se ? w1se : wmin)[b] = metrics(d.beta, d.intercept, beta, Xt, yt);
          }
          // Bayesian LASSO: Gibbs with lambda by empirical Bayes.
          bayesian_lasso::GibbsOptions o;
          o.draws = T;
          o.burn_in = 500;
          o.em_rounds = 15;
          o.em_round_draws = 100;
          o.seed = seed;
          const auto g = bayesian_lasso::bayesian_lasso_gibbs(X, y, o);
          bl[b] = metrics(g.beta, g.intercept, beta, Xt, yt);
        });
        const double sec =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        auto est = [](const Metrics& m) { return m.est; };
        auto pred = [](const Metrics& m) { return m.pred; };
        auto cov = [](const Metrics& m) { return m.cover; };
        auto sig = [](const Metrics& m) { return m.cover_signal; };
        std::printf("%-4s %-5s %4d %4ld |", design == 0 ? std::to_string(n_fixed).c_str() : "p/2",
                    names[setting], p, static_cast<long>(n));
        for (const auto* v : {&bl, &wmin, &w1se}) {
          const MeanSe e = mean_se(*v, est);
          std::printf(" %7.3f +-%5.3f", e.mean, e.se);
        }
        std::printf(" |");
        for (const auto* v : {&bl, &wmin, &w1se}) std::printf(" %7.2f", mean_se(*v, pred).mean);
        std::printf(" |");
        for (const auto* v : {&bl, &wmin, &w1se})
          std::printf(" %5.3f/%5.3f", mean_se(*v, cov).mean, mean_se(*v, sig).mean);
        std::printf(" | %6.1f\n", sec);
        std::fflush(stdout);
      }
  return 0;
}

// Which lambda? The WBB estimation MSE of the dense setting B (and A(i)) with lambda_min and
// lambda_1se of the 10-fold CV (cv.glmnet's coef()/predict() default to lambda.1se), the
// unweighted LASSO at both, and the WBB with glmnet's internal rescaling of the penalty
// factors to sum to p. n = 50 (or as given: the text says n = 100), T = 200 draws, `datasets` data
// sets per p, same data as above.
int lambda_rule(int datasets, Eigen::Index T, int threads, Eigen::Index n) {
  const auto cd = make_cd();
  resamplers::ExponentialWeights r(Params(resamplers::ExponentialWeights::schema(), {}));
  std::printf("# lambda rule, n = %ld, %d data sets, T = %ld: estimation MSE (coverage)\n",
              static_cast<long>(n), datasets, static_cast<long>(T));
  std::printf("%-5s %4s | %14s %14s | %9s %9s | %14s | %8s\n", "beta", "p", "WBB min", "WBB 1se",
              "mode min", "mode 1se", "WBB 1se resc.", "1se/min");
  for (int setting : {0, 2})
    for (int p : {40, 60, 100}) {
      Eigen::VectorXd beta = Eigen::VectorXd::Zero(p);
      if (setting == 0) beta.head(10).setOnes();
      if (setting == 2) beta.setOnes();
      r.prepare(n);
      std::vector<std::array<double, 9>> out(static_cast<std::size_t>(datasets));
      parallel_for(static_cast<std::size_t>(datasets), threads, [&](std::size_t b) {
        RngStream rng(2018 + 100 * setting + p, b);
        Eigen::MatrixXd X, Xt;
        Eigen::VectorXd y, yt;
        wbb::simulation_data(beta, n, rng, X, y, Xt, yt);
        const std::uint64_t seed = mix_seed(7, 10000 * setting + 100 * p + b);
        wbb::LinearSpec spec{&X, &y, 1.0, true};
        const auto cv = wbb::cross_validate(cd, spec, 10, 100, n < p ? 1e-2 : 1e-4, seed, 1);
        auto& o = out[b];
        int k = 0;
        for (double lambda : {cv.lambda_min, cv.lambda_1se}) {
          WeightedLeastSquares base{
              &X, &y, Eigen::VectorXd::Ones(n), Eigen::VectorXd::Constant(p, lambda), 1.0, true};
          PenalizedSolution mode;
          cd.solve(base, mode);
          const auto d = wbb::linear_draws(cd, spec, lambda, r, wbb::PenaltyWeights::separate, mode,
                                           true, T, seed, quench::RunContext::on_threads(1));
          const Metrics m = metrics(d.beta, d.intercept, beta, Xt, yt);
          o[k] = m.est;
          o[k + 1] = m.cover;
          o[4 + k / 2] = (mode.beta - beta).squaredNorm() / double(p);
          k += 2;
        }
        // glmnet rescales penalty.factor to sum to nvars: lambda w_0j p / sum_k w_0k.
        Eigen::MatrixXd draws(T, p);
        Eigen::VectorXd icpt(T);
        for (Eigen::Index t = 0; t < T; ++t) {
          RngStream s(seed, static_cast<std::uint64_t>(t));
          WeightedLeastSquares q{&X, &y, r.sample(s), Eigen::VectorXd(), 1.0, true};
          const Eigen::VectorXd f = exponential_draws(s, p);
          q.penalty = cv.lambda_1se * f * (double(p) / f.sum());
          PenalizedSolution sol;
          cd.solve(q, sol);
          draws.row(t) = sol.beta.transpose();
          icpt(t) = sol.intercept;
        }
        const Metrics m = metrics(draws, icpt, beta, Xt, yt);
        o[6] = m.est;
        o[7] = m.cover;
        o[8] = cv.lambda_1se / cv.lambda_min;
      });
      std::array<double, 9> mean{};
      for (const auto& o : out)
        for (int k = 0; k < 9; ++k) mean[k] += o[k] / datasets;
      std::printf("%-5s %4d | %7.3f (%.2f) %7.3f (%.2f) | %9.3f %9.3f | %7.3f (%.2f) | %8.2f\n",
                  setting == 0 ? "A(i)" : "B", p, mean[0], mean[1], mean[2], mean[3], mean[4],
                  mean[5], mean[6], mean[7], mean[8]);
      std::fflush(stdout);
    }
  return 0;
}

int trend_data(std::uint64_t seed) {
  RngStream rng(seed, 0);
  std::printf("i,y\n");
  for (int i = 1; i <= 500; ++i)
    std::printf("%d,%.17g\n", i,
                std::sin(4 * M_PI * i / 500.0) * std::exp(3.0 * i / 500.0) + 2 * rng.normal());
  return 0;
}

}  // namespace

static int main_body(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  auto arg = [&](int i, long def) { return argc > i ? std::atol(argv[i]) : def; };
  if (cmd == "normal_means") return normal_means(arg(2, 100000));
  if (cmd == "simulation")
    return simulation(static_cast<int>(arg(2, 20)), arg(3, 200), static_cast<int>(arg(4, 0)),
                      static_cast<int>(arg(5, -1)), arg(6, 50));
  if (cmd == "lambda_rule")
    return lambda_rule(static_cast<int>(arg(2, 20)), arg(3, 200), static_cast<int>(arg(4, 0)),
                       arg(5, 50));
  if (cmd == "trend_data") return trend_data(static_cast<std::uint64_t>(arg(2, 2018)));
  std::fprintf(stderr,
               "usage: wbb_reproduce normal_means [draws] | simulation [datasets] [draws] "
               "[threads] [setting -1 all | 0 | 1 | 2] [n, 50] | lambda_rule "
               "[datasets] [draws] [threads] [n] | trend_data [seed]\n");
  return 2;
}

int main(int argc, char** argv) {
  return quench::tool_main(
      argc, argv,
      "normal_means [draws] | simulation [datasets] [draws] [threads] [setting -1 all | 0 | 1 | 2] "
      "[n, 50] | lambda_rule [datasets] [draws] [threads] [n] | trend_data [seed]\nReproduces the "
      "experiments of the WBB paper.",
      [&] { return main_body(argc, argv); });
}
