// Variational bootstrap (002) costs, as ratios measured in one run:
//  1. closed-form RFF particles (eq 8) with A factorized once and all K particles solved as
//     one matrix right-hand side, against refactorizing A for every particle;
//  2. particles per second of the whole vboot engine (rff and mlp) with 1 and 2 threads.
//
//   quench_bench_vboot [--quick]
//
// Data: synthetic 5-class problem, x ~ N(0, I_8), class = argmax of 5 fixed random projections.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "bench_timing.h"
#include "dirichlet_likelihood.h"
#include "kernels.h"
#include "perturbation.h"
#include "quench/rng.h"
#include "quench/tool_main.h"
#include "rff_particles.h"
#include "vboot.h"

namespace {

using quench::bench::best_of;

quench::Dataset synthetic(int n, int m, int d, int C) {
  quench::RngStream rng(1, 0);
  Eigen::MatrixXd proj(d, C);
  for (int j = 0; j < C; ++j)
    for (int l = 0; l < d; ++l) proj(l, j) = rng.normal();
  auto fill = [&](Eigen::MatrixXd& X, Eigen::VectorXd& y, int rows) {
    X.resize(rows, d);
    y.resize(rows);
    for (int i = 0; i < rows; ++i) {
      for (int l = 0; l < d; ++l) X(i, l) = rng.normal();
      Eigen::Index c = 0;
      (X.row(i) * proj).maxCoeff(&c);
      y(i) = double(c);
    }
  };
  quench::Dataset data;
  fill(data.X_train, data.y_train, n);
  fill(data.X_test, data.y_test, m);
  return data;
}

double engine_seconds(const quench::Dataset& data, const quench::Problem& base,
                      const std::string& model, int particles, int threads, int width) {
  quench::Problem p = base;
  p.context.threads = threads;
  const quench::vboot::VBoot engine(
      quench::Params(quench::vboot::VBoot::schema(), {{"model", model},
                                                      {"particles", std::int64_t{particles}},
                                                      {"hidden_units", std::int64_t{width}}}));
  (void)data;
  return best_of(2, [&] { engine.run(p); });
}

}  // namespace

static int main_body(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int n = quick ? 1000 : 3000, D = quick ? 300 : 1000, K = 50;

  // 1. Shared factorization vs refactorizing, one class (one output).
  {
    quench::RngStream rng(3, 0);
    Eigen::MatrixXd Phi(n, D), Yt(n, K), Wt(D, K);
    for (Eigen::Index j = 0; j < D; ++j)
      for (Eigen::Index i = 0; i < n; ++i) Phi(i, j) = rng.normal() / std::sqrt(double(D));
    for (Eigen::Index k = 0; k < K; ++k) {
      for (Eigen::Index i = 0; i < n; ++i) Yt(i, k) = rng.normal();
      for (Eigen::Index j = 0; j < D; ++j) Wt(j, k) = rng.normal();
    }
    const Eigen::VectorXd p = Eigen::VectorXd::Constant(n, 1.0 / 0.7);
    const double shared = best_of(3, [&] {
      const quench::vboot::LinearGaussianPosterior post(Phi, p, 1.0);
      const Eigen::MatrixXd W = post.particles(Yt, Wt);
    });
    const quench::vboot::LinearGaussianPosterior post(Phi, p, 1.0);
    const double refactor = best_of(1, [&] { post.particles_refactorizing(Yt, Wt); });
    std::printf("eq 8, n = %d, D = %d, K = %d particles (one class)\n", n, D, K);
    std::printf("  shared factorization (form A, factorize once, solve K rhs): %.3f s\n", shared);
    std::printf("  refactorizing A per particle:                               %.3f s\n", refactor);
    std::printf("  ratio refactorizing / shared: %.1f\n\n", refactor / shared);
  }

  // 2. Particles per second of the engine, 1 vs 2 threads.
  const quench::Dataset data = synthetic(quick ? 500 : 2000, 500, 8, 5);
  quench::Problem base;
  base.data = &data;
  std::shared_ptr<quench::Kernel> kernel = quench::kernels::make_gaussian(quench::Params(
      quench::kernels::gaussian_schema(), {{"random_features", std::int64_t{quick ? 200 : 500}}}));
  kernel->prepare(data.X_train);
  base.kernel = kernel;
  base.likelihood = std::make_shared<quench::likelihoods::DirichletLikelihood>(
      quench::Params(quench::likelihoods::DirichletLikelihood::schema(), {}));
  base.resampler = std::make_shared<quench::vboot::PerturbationResampler>(
      quench::Params(quench::vboot::PerturbationResampler::schema(), {}));
  base.seed = 5;
  struct Row {
    const char* model;
    int particles;
  };
  for (const Row row : {Row{"rff", 50}, Row{"mlp", 8}}) {
    if (std::strcmp(row.model, "mlp") == 0) {
      // A fixed-step full-batch gradient descent keeps the MLP cost deterministic.
      struct Steps final : quench::Optimizer {
        quench::OptimizerReport minimize(const quench::SmoothObjective& f,
                                         Eigen::VectorXd& x) const override {
          Eigen::VectorXd g(x.size());
          double v = 0;
          for (int i = 0; i < 20; ++i) {
            f.evaluate(x, &v, &g);
            x -= 1e-4 * g;
          }
          return {true, 20, v, ""};
        }
      };
      base.optimizer = std::make_shared<Steps>();
    }
    const double t1 = engine_seconds(data, base, row.model, row.particles, 1, 64);
    const double t2 = engine_seconds(data, base, row.model, row.particles, 2, 64);
    std::printf(
        "engine %s, N = %lld, 5 classes, %d particles: %.1f particles/s with 1 thread, "
        "%.1f with 2; speed-up %.2f\n",
        row.model, static_cast<long long>(data.X_train.rows()), row.particles, row.particles / t1,
        row.particles / t2, t1 / t2);
  }
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[--quick]\nVariational bootstrap: shared factorization vs "
                           "refactorizing; particles/s, 1 vs 2 threads.",
                           [&] { return main_body(argc, argv); });
}
