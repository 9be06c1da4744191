// GP regression and Monte-Carlo bootstrap retrain cost, in units of the LAPACK Cholesky
// measured in the same run (issue: >= 70 % dpotrf efficiency for one retrain at N = 2000).
//
//   quench_bench_gp [--quick]
//
// Data: GP-shaped synthetic regression, x ~ N(0, I_8), y = sin(x_1) + cos(x_2) + 0.1 e, with the
// Gaussian kernel of 000 Sec. 5 (l^2 = 8, v_j = 1) and sigma^2 = 0.01; a retrain is one
// Poisson(1) bootstrap sample (about 0.632 N distinct points, noise sigma^2 / s_i).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench_timing.h"
#include "quench/cholesky.h"
#include "quench/inference_engine.h"
#include "quench/registry.h"
#include "quench/rng.h"
#include "quench/tool_main.h"

namespace {

using quench::bench::best_of;

quench::Dataset synthetic(int n, int d, std::uint64_t seed) {
  quench::RngStream rng(seed, 0);
  quench::Dataset data;
  data.X_train.resize(n, d);
  data.y_train.resize(n);
  for (int i = 0; i < n; ++i) {
    for (int l = 0; l < d; ++l) data.X_train(i, l) = rng.normal();
    data.y_train(i) =
        std::sin(data.X_train(i, 0)) + std::cos(data.X_train(i, 1)) + 0.1 * rng.normal();
  }
  data.X_test.resize(0, d);
  return data;
}

// dpotrf throughput (flop/s, n^3/3 flops) at size n, best of a few runs.
double potrf_rate(int n) {
  quench::RngStream rng(1, 1);
  Eigen::MatrixXd M(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) M(i, j) = rng.normal();
  Eigen::MatrixXd A = M * M.transpose();
  A.diagonal().array() += n;
  const double t = best_of(3, [&] { quench::Cholesky chol(A); });
  return std::pow(static_cast<double>(n), 3) / 3.0 / t;
}

// The GP regression problem of the benchmark, built from the real plugins.
struct GpSetup {
  quench::Dataset data;
  quench::Problem problem;
  std::shared_ptr<quench::InferenceEngine> engine;
};

std::unique_ptr<GpSetup> make_setup(const quench::Registry& registry, int n, std::uint64_t seed) {
  auto create = [&](quench::Family family, const char* name,
                    std::map<std::string, quench::ParamValue> values) {
    return registry.create(family, name,
                           quench::Params(registry.find(family, name)->info->schema, values));
  };
  auto s = std::make_unique<GpSetup>();
  s->data = synthetic(n, 8, seed);
  s->problem.data = &s->data;
  auto kernel = std::dynamic_pointer_cast<quench::Kernel>(
      create(quench::Family::kernel, "gaussian", {{"l2", 8.0}}));
  kernel->prepare(s->data.X_train);
  s->problem.kernel = kernel;
  s->problem.likelihood = std::dynamic_pointer_cast<quench::Likelihood>(
      create(quench::Family::likelihood, "gaussian", {{"noise", 0.01}}));
  auto resampler = std::dynamic_pointer_cast<quench::Resampler>(
      create(quench::Family::resampler, "poisson_bootstrap", {{"ratio", 1.0}}));
  resampler->prepare(n);
  s->problem.resampler = resampler;
  s->engine = std::dynamic_pointer_cast<quench::InferenceEngine>(
      create(quench::Family::engine, "exact_gp_regression", {}));
  return s;
}

}  // namespace

static int main_body(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const auto registry = quench::Registry::discover();
  for (const auto& f : registry.failures())
    std::fprintf(stderr, "plugin refused: %s\n", f.str().c_str());
  std::printf(
      "GP regression benchmark (OpenBLAS threads: all cores; ratios measured in this run)\n\n");
  std::printf("%6s %8s %12s %14s %14s %12s\n", "N", "kept m", "dpotrf GF/s", "retrain [ms]",
              "chol(m) [ms]", "efficiency");
  const std::vector<int> sizes = quick ? std::vector<int>{500} : std::vector<int>{1000, 2000};
  for (int n : sizes) {
    const auto setup = make_setup(registry, n, 42);
    const auto model = setup->engine->prepare_resampling(setup->problem);
    quench::RngStream rng(7, 0);
    const Eigen::VectorXd counts = setup->problem.resampler->sample(rng);  // one Poisson(1) draw
    const int kept = static_cast<int>((counts.array() > 0).count());
    const double rate = potrf_rate(kept);
    const double retrain = best_of(5, [&] { model->predict(counts); });
    const double chol = std::pow(kept, 3) / 3.0 / rate;
    std::printf("%6d %8d %12.1f %14.2f %14.2f %11.0f%%\n", n, kept, rate / 1e9, retrain * 1e3,
                chol * 1e3, 100 * chol / retrain);
  }

  const int n = quick ? 500 : 2000;
  const auto setup = make_setup(registry, n, 43);
  const double rate = potrf_rate(n);
  const double fit = best_of(3, [&] { setup->engine->run(setup->problem); });
  const double chol = std::pow(n, 3) / 3.0 / rate;
  std::printf(
      "\nexact_gp_regression N=%d (kernel matrix, Cholesky, posterior mean, variance, "
      "log marginal likelihood):\n  %.2f ms = %.2f Cholesky-equivalents (dpotrf %.1f GF/s; "
      "efficiency %.0f%%)\n",
      n, fit * 1e3, fit / chol, rate / 1e9, 100 * chol / fit);
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[--quick]\nGP regression cost in Cholesky units: retrain after a "
                           "Poisson bootstrap draw, exact fit.",
                           [&] { return main_body(argc, argv); });
}
