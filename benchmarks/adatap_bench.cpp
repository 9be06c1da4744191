// ADATAP analytical bootstrap cost at S = N (000 Sec. 5: "the time of <= 25 Monte-Carlo
// retrainings for N <= 2500, <= 15 for N <= 500"), in units measured in the same run:
// (a) one N x N LAPACK Cholesky (of K + sigma^2 I, quench::Cholesky), the paper's unit;
// (b) one retrain of the real mc_bootstrap inner model: exact_gp_regression's ResampledModel
//     (plugins/gp_regression, loaded through the registry) on one Poisson(1) resample, i.e. the
//     GP on the ~0.632 N distinct points with noise sigma^2 / s_i, predictions at all N inputs.
// Also prints the iterations of eqs 63-64, exact (double) G computations, single-precision
// evaluations, A.3 and A.4 updates. Timings are best-of-k wall times (the machine is shared).
//
//   quench_bench_adatap [--quick]
//
// Data (GP-shaped synthetic, as quench_bench_gp): x ~ N(0, I_8), y = sin(x_1) + cos(x_2) +
// 0.1 e, the `gaussian` kernel plugin with l2 = 8 (exp(-|x - x'|^2 / 16)), sigma^2 = 0.01.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../plugins/adatap_bootstrap/adatap_solver.h"
#include "bench_timing.h"
#include "quench/cholesky.h"
#include "quench/inference_engine.h"
#include "quench/registry.h"
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
  const auto registry = Registry::discover();
  for (const auto& f : registry.failures())
    std::fprintf(stderr, "plugin refused: %s\n", f.str().c_str());
  auto create = [&](Family family, const char* name, std::map<std::string, ParamValue> values) {
    return registry.create(family, name, Params(registry.find(family, name)->info->schema, values));
  };

  std::printf("%6s %-28s %9s %9s %9s %6s %6s %6s %6s %6s\n", "N", "path", "seconds", "/chol",
              "/retrain", "iters", "exactG", "single", "wood", "approx");
  for (const int n : sizes) {
    Dataset data;  // inputs from stream 1, noise from stream 2 of seed 42 (per N)
    RngStream xs(42, 1), es(42, 2);
    data.X_train = Eigen::MatrixXd::NullaryExpr(n, 8, [&] { return xs.normal(); });
    data.y_train =
        (data.X_train.col(0).array().sin() + data.X_train.col(1).array().cos()).matrix() +
        Eigen::VectorXd::NullaryExpr(n, [&] { return 0.1 * es.normal(); });
    data.X_test.resize(0, 8);
    Problem problem;
    problem.data = &data;
    auto kernel =
        std::dynamic_pointer_cast<Kernel>(create(Family::kernel, "gaussian", {{"l2", 8.0}}));
    kernel->prepare(data.X_train);
    problem.kernel = kernel;
    problem.likelihood = std::dynamic_pointer_cast<Likelihood>(
        create(Family::likelihood, "gaussian", {{"noise", s2}}));
    auto resampler = std::dynamic_pointer_cast<Resampler>(
        create(Family::resampler, "poisson_bootstrap", {{"ratio", 1.0}}));
    resampler->prepare(n);
    problem.resampler = resampler;
    const auto engine = std::dynamic_pointer_cast<InferenceEngine>(
        create(Family::engine, "exact_gp_regression", {}));
    const Eigen::MatrixXd K = kernel->cross(data.X_train, data.X_train);
    const Eigen::VectorXd& y = data.y_train;
    // The occupation pmf of the same resampler (footnote 2), truncated at 1e-12.
    adatap::Occupation occ;
    occ.pmf.resize(resampler->max_occupation(1e-12) + 1);
    for (Eigen::Index k = 0; k < occ.pmf.size(); ++k)
      occ.pmf(k) = resampler->occupation_pmf(static_cast<int>(k));

    const double t_chol = best_of(5, [&] {
      Eigen::MatrixXd A = K;
      A.diagonal().array() += s2;
      const Cholesky c(std::move(A));
    });
    const auto model = engine->prepare_resampling(problem);
    RngStream rng(7, static_cast<std::uint64_t>(n));
    const Eigen::VectorXd counts = resampler->sample(rng);  // one Poisson(1) resample
    const double t_retrain = best_of(5, [&] { model->predict(counts); });
    std::printf("%6d %-28s %9.4f %9s %9.2f   (retrain on %ld distinct points: %.2f chol)\n", n,
                "cholesky N x N", t_chol, "1", t_chol / t_retrain,
                static_cast<long>((counts.array() > 0).count()), t_retrain / t_chol);

    struct Path {
      const char* name;
      adatap::SolverOptions o;
    };
    std::vector<Path> paths;
    adatap::SolverOptions o;  // engine defaults: A.2 eigen start, plain iteration
    paths.push_back({"A.2 eigen (default)", o});
    o.init = adatap::SolverOptions::Init::subset;
    paths.push_back({"A.2 subset P=4", o});
    o.woodbury = true;
    paths.push_back({"subset + A.3", o});
    o.approximate_steps = 3;
    paths.push_back({"subset + A.3 + A.4(3)", o});
    o.woodbury = false;
    paths.push_back({"subset + A.4(3)", o});
    o.approximate_steps = 0;
    o.anderson_depth = 3;
    paths.push_back({"subset + Anderson(3)", o});
    o.anderson_depth = 0;
    o.mixed_precision = true;
    paths.push_back({"subset + mixed", o});
    o.anderson_depth = 3;
    paths.push_back({"subset + Anderson + mixed", o});
    o = adatap::SolverOptions{};
    o.method = adatap::SolverOptions::Method::approximate;
    o.init = adatap::SolverOptions::Init::subset;
    paths.push_back({"approximate ADATAP", o});
    for (const auto& p : paths) {
      adatap::Solution s;
      const double t = best_of(3, [&] { s = adatap::solve(K, y, s2, occ, p.o); });
      std::printf("%6d %-28s %9.4f %9.2f %9.2f %6d %6d %6d %6d %6d%s\n", n, p.name, t, t / t_chol,
                  t / t_retrain, s.iterations, s.exact_g, s.single_evaluations, s.woodbury_updates,
                  s.approximate_updates, s.converged ? "" : "  NOT CONVERGED");
    }
  }
  return 0;
}
