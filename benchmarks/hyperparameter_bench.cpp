// Cost of one hyperparameter objective evaluation (value + analytic gradient) in units of one
// N x N Cholesky (quench::Cholesky) measured in the same run (issue targets at N = 2000, ARD
// Gaussian kernel, d = 16: exact-GP evidence <= 3 units; TAP evidence at a warm-started
// point <= 6 units).
//
//   quench_bench_hyperparameters [path/to/letter.csv] [--n N]
//
// Data: the first N rows of the letter data, 16 inputs standardized over those rows; the
// regression target is the letter's class index (standardized), the classification target
// classes 0-12 vs 13-25. Kernel: ARD Gaussian, length scales 3.5-4.5 (a spread around the
// width sigma^2 = 1 of the classification benchmark), amplitude 1; Gaussian noise 0.1 for
// regression, step likelihood for TAP. The Cholesky unit is the fastest of 5 factorizations
// before and 3 after; each evaluation the fastest of 3. The warm TAP evaluation follows a 1 %
// change of every length scale from a converged point, as between L-BFGS iterations.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "bench_timing.h"
#include "exact_gp_regression.h"
#include "gaussian_likelihood.h"
#include "kernels.h"
#include "letter_task.h"
#include "mean_field.h"
#include "probit_likelihood.h"
#include "quench/cholesky.h"
#include "quench/dataset.h"
#include "quench/tool_main.h"

namespace {

using quench::bench::best_of;

}  // namespace

static int main_body(int argc, char** argv) {
  std::string path = "examples/data/letter.csv";
  int only = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      only = std::atoi(argv[++i]);
    else
      path = argv[i];
  }
  std::printf("%6s %9s %10s %10s %10s %10s %10s\n", "N", "chol[s]", "GP-evid", "gram+grad",
              "TAP-cold", "TAP-warm", "warm-iter");
  for (int n : {500, 1000, 2000}) {
    if (only > 0 && n != only) continue;
    const quench::bench::LetterRows d = quench::bench::first_letter_rows(path, n);
    std::vector<double> scales(16);
    for (int l = 0; l < 16; ++l) scales[static_cast<std::size_t>(l)] = 3.5 + l / 15.0;
    auto kernel = quench::kernels::make_gaussian(
        quench::Params(quench::kernels::gaussian_schema(), {{"length_scales", scales}}));
    kernel->prepare(d.X);
    const Eigen::MatrixXd C = kernel->gram(d.X) + 0.1 * Eigen::MatrixXd::Identity(n, n);
    double chol = best_of(5, [&] { const quench::Cholesky L(C); });

    // Exact GP regression: log marginal likelihood and its gradient (R&W eqs 5.8-5.9).
    quench::Dataset reg;
    reg.X_train = d.X;
    reg.y_train = d.index;
    quench::Problem problem;
    problem.data = &reg;
    const quench::likelihoods::GaussianLikelihood gaussian(
        quench::Params(quench::likelihoods::GaussianLikelihood::schema(), {{"noise", 0.1}}));
    const quench::gp_regression::ExactGpRegression gp(
        quench::Params(quench::gp_regression::ExactGpRegression::schema(), {}));
    auto evidence = gp.hyperparameter_objective(problem, "evidence");
    const double t_gp = best_of(3, [&] { evidence->evaluate(*kernel, gaussian); });
    // Of which: the Gram matrix and the gradient contraction alone (no factorization).
    const Eigen::MatrixXd W = Eigen::MatrixXd::Identity(n, n);
    const double t_grad = best_of(3, [&] {
      const Eigen::MatrixXd K = kernel->gram(d.X);
      kernel->gram_derivative_contractions(d.X, W);
    });

    // TAP evidence (001 / 003 free energy) and its gradient, cold and warm.
    quench::Dataset cls;
    cls.X_train = d.X;
    cls.y_train = d.label;
    problem.data = &cls;
    const auto probit = std::make_shared<quench::likelihoods::ProbitLikelihood>(0.0, 0.0);
    const quench::Likelihood& step = *probit;
    problem.likelihood = probit;  // reads the labels as a binary target
    const quench::latent_gp::TapEngine tap(
        quench::Params(quench::latent_gp::TapEngine::schema(), {}));
    double t_cold = 1e300, t_warm = 1e300;
    int warm_iterations = 0;
    for (int r = 0; r < 3; ++r) {
      auto tap_evidence = tap.hyperparameter_objective(problem, "evidence");
      auto t0 = std::chrono::steady_clock::now();
      tap_evidence->evaluate(*kernel, step);
      t_cold = std::min(
          t_cold, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      Eigen::VectorXd moved = Eigen::Map<const Eigen::VectorXd>(scales.data(), 16) * 1.01;
      kernel->set_hyperparameter("length_scales", moved);
      t0 = std::chrono::steady_clock::now();
      const quench::ObjectiveValue v = tap_evidence->evaluate(*kernel, step);
      t_warm = std::min(
          t_warm, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      warm_iterations = v.status.iterations;
      kernel->set_hyperparameter("length_scales",
                                 Eigen::Map<const Eigen::VectorXd>(scales.data(), 16));
    }
    chol = std::min(chol, best_of(3, [&] { const quench::Cholesky L(C); }));
    std::printf("%6d %9.4f %10.2f %10.2f %10.2f %10.2f %10d\n", n, chol, t_gp / chol, t_grad / chol,
                t_cold / chol, t_warm / chol, warm_iterations);
    std::fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[--n N] [letter.csv]\nHyperparameter objective cost (value + "
                           "gradient) in Cholesky units.",
                           [&] { return main_body(argc, argv); });
}
