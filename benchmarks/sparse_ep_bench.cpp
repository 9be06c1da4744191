// EP GP classification on the inducing-point prior (FITC, ep_prior.h) at large N against exact
// EP on a subset, on the binary letter task (classes 0-12 vs 13-25): the first N + 5000 rows of
// examples/data/letter.csv, inputs standardized over them, the last 5000 the test set.
//
//   quench_bench_sparse_ep [path/to/letter.csv] [--n 15000] [--m 1000] [--exact-n 5000]
//                          [--evaluations 10] [--tol 1e-8]
//
// Model: Gaussian covariance v0 = 1, w_l = 1/(sigma^2 d) with sigma^2 = 1 (001 App. B), step
// likelihood (probit without noise). Printed: the choice of M inducing inputs (greedy
// variance), the sparse EP fit (sweeps, time, log Z, test error), evidence learning of sigma^2
// on the sparse prior (L-BFGS, at most --evaluations iterations, sites warm-started) and the
// sparse fit at the learned sigma^2; exact EP on the first --exact-n training rows at both
// sigma^2, with the same test rows. One run each: times on a shared machine are upper bounds.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "ep.h"
#include "kernels.h"
#include "lbfgs_optimizer.h"
#include "letter_task.h"
#include "probit_likelihood.h"
#include "quench/hyperparameter_learning.h"
#include "quench/inducing_points.h"
#include "quench/tool_main.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(const std::function<void()>& work) {
  const auto t0 = Clock::now();
  work();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void row(const char* what, double n, double m, double time, const quench::Results& r) {
  const auto scalar = [&](const char* name) {
    const auto it = r.scalars.find(name);
    return it == r.scalars.end() ? std::nan("") : it->second;
  };
  std::printf("%-24s %6.0f %5.0f %9.1f %7.0f %12.2f %9.4f %9.4f  %s\n", what, n, m, time,
              scalar("iterations"), scalar("log_evidence"), scalar("test_error"),
              scalar("loo_error"), r.status.message.c_str());
}

int main_body(int argc, char** argv) {
  std::string path = "examples/data/letter.csv";
  Eigen::Index n = 15000, m = 1000, exact_n = 5000, n_test = 5000;
  int evaluations = 10;
  double tol = 1e-8;
  for (int i = 1; i < argc; ++i) {
    const bool more = i + 1 < argc;
    if (std::strcmp(argv[i], "--n") == 0 && more)
      n = std::atol(argv[++i]);
    else if (std::strcmp(argv[i], "--m") == 0 && more)
      m = std::atol(argv[++i]);
    else if (std::strcmp(argv[i], "--exact-n") == 0 && more)
      exact_n = std::atol(argv[++i]);
    else if (std::strcmp(argv[i], "--evaluations") == 0 && more)
      evaluations = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--tol") == 0 && more)
      tol = std::atof(argv[++i]);
    else
      path = argv[i];
  }
  const quench::bench::LetterRows rows = quench::bench::first_letter_rows(path, n + n_test);
  quench::Dataset data;
  data.X_train = rows.X.topRows(n);
  data.y_train = rows.label.head(n);
  data.X_test = rows.X.bottomRows(n_test);
  data.y_test = rows.label.tail(n_test);
  quench::Dataset subset = data;
  subset.X_train = data.X_train.topRows(exact_n);
  subset.y_train = data.y_train.head(exact_n);

  std::shared_ptr<quench::Kernel> kernel = quench::kernels::make_gaussian(
      quench::Params(quench::kernels::gaussian_schema(), {{"width", 1.0}}));
  kernel->prepare(data.X_train);
  auto probit = std::make_shared<quench::likelihoods::ProbitLikelihood>(0.0, 0.0);
  const quench::latent_gp::EpEngine ep(
      quench::Params(quench::latent_gp::EpEngine::schema(), {{"tol", tol}}));

  quench::InducingSpec spec;
  spec.count = m;
  spec.form = quench::LowRankForm::fitc;
  std::shared_ptr<const quench::InducingInputs> inducing;
  const double t_inducing = seconds([&] {
    inducing = std::make_shared<const quench::InducingInputs>(
        quench::select_inducing_inputs(*kernel, data.X_train, spec, 1));
  });
  std::printf(
      "letter, %ld train / %ld test rows; %ld inducing inputs (greedy variance, FITC) "
      "chosen in %.1f s; EP tol %.0e\n\n",
      static_cast<long>(n), static_cast<long>(n_test), static_cast<long>(inducing->Z.rows()),
      t_inducing, tol);
  std::printf("%-24s %6s %5s %9s %7s %12s %9s %9s\n", "run", "N", "M", "time[s]", "sweeps", "log Z",
              "test err", "LOO err");

  auto run = [&](const char* what, const quench::Dataset& d, bool sparse) {
    quench::Problem p;
    p.data = &d;
    p.kernel = kernel;
    p.likelihood = probit;
    if (sparse) p.inducing = inducing;
    quench::Results r;
    const double time = seconds([&] { r = ep.run(p); });
    row(what, static_cast<double>(d.X_train.rows()),
        sparse ? static_cast<double>(inducing->Z.rows()) : 0.0, time, r);
  };
  run("sparse EP, sigma^2 = 1", data, true);
  run("exact EP, sigma^2 = 1", subset, false);

  // Evidence learning of sigma^2 on the sparse prior (the inducing inputs held fixed).
  quench::Problem p;
  p.data = &data;
  p.kernel = kernel;
  p.likelihood = probit;
  p.inducing = inducing;
  auto objective = ep.hyperparameter_objective(p, "evidence");
  const quench::optimizers::LbfgsOptimizer lbfgs(quench::Params(
      quench::optimizers::LbfgsOptimizer::schema(), {{"max_iterations", evaluations}}));
  quench::LearningOptions options;
  options.parameters = {"kernel.width"};
  quench::LearningReport report;
  const double t_learn = seconds([&] {
    report = quench::learn_hyperparameters(*kernel, *probit, *objective, lbfgs, options);
  });
  const double width = kernel->hyperparameters()[0].value(0);
  std::printf(
      "\nevidence learning (sparse, L-BFGS <= %d iterations): sigma^2 = %.4f in %.1f s "
      "(%s)\n\n",
      evaluations, width, t_learn, report.status.message.c_str());
  char what[2][64];
  std::snprintf(what[0], sizeof what[0], "sparse EP, sigma^2 = %.3f", width);
  std::snprintf(what[1], sizeof what[1], "exact EP, sigma^2 = %.3f", width);
  run(what[0], data, true);
  run(what[1], subset, false);
  std::printf("\n(evidence learning: %d evaluations, log Z %.2f -> %.2f)\n", report.evaluations,
              report.start_value, report.value);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[--n N] [--m M] [--exact-n N] [--evaluations K] [--tol T] "
                           "[letter.csv]\nSparse (FITC) against exact EP GP classification.",
                           [&] { return main_body(argc, argv); });
}
