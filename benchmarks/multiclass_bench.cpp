// Multi-class nested EP (multiclass_ep.h) cost in Cholesky units (issue 26: per sweep <= C + 2
// Cholesky-equivalents): on the first N training rows of a classes CSV (default: the satellite
// Statlog split, 6 classes), inputs standardized, the isotropic Gaussian kernel (width, amplitude
// as given), one multi-class EP fit from zero sites. Printed: the time of one Cholesky of the
// N x N kernel matrix (dpotrf, best of 3), of the fit and per sweep in Cholesky units, split into
// the C + 1 factorization algebra (class_posterior) and the site updates (inner EP); one log Z
// gradient evaluation in Cholesky units; the test error of the fit. With --inducing M, the same
// on the inducing-point prior (M inputs by greedy conditional variance, FITC, seed 2026;
// inducing_class_posterior.h) in units of the same N x N Cholesky. One run: times on a shared
// machine are upper bounds.
//
//   quench_bench_multiclass [path/to/satellite.csv] [--n 4435] [--width 1] [--amplitude 1]
//                           [--inducing M]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <memory>
#include <optional>

#include "bench_timing.h"
#include "inducing_class_posterior.h"
#include "inducing_multiclass_model.h"
#include "kernels.h"
#include "multiclass_ep.h"
#include "multiclass_model.h"
#include "multinomial_probit_likelihood.h"
#include "quench/cholesky.h"
#include "quench/class_kernels.h"
#include "quench/tool_main.h"

namespace {

using Clock = std::chrono::steady_clock;

int main_body(int argc, char** argv) {
  std::string path = "examples/data/satellite.csv";
  Eigen::Index n = 4435;
  Eigen::Index inducing = 0;
  double width = 1.0, amplitude = 1.0;
  for (int i = 1; i < argc; ++i) {
    const bool more = i + 1 < argc;
    if (std::strcmp(argv[i], "--n") == 0 && more)
      n = std::atol(argv[++i]);
    else if (std::strcmp(argv[i], "--width") == 0 && more)
      width = std::atof(argv[++i]);
    else if (std::strcmp(argv[i], "--amplitude") == 0 && more)
      amplitude = std::atof(argv[++i]);
    else if (std::strcmp(argv[i], "--inducing") == 0 && more)
      inducing = std::atol(argv[++i]);
    else
      path = argv[i];
  }
  quench::DataSpec spec;
  spec.train_file = path;
  spec.split = quench::SplitRule::column;
  spec.standardize_inputs = true;
  spec.target_kind = quench::TargetKind::classes;
  quench::Dataset d = quench::load_dataset(spec);
  n = std::min<Eigen::Index>(n, d.X_train.rows());
  d.X_train.conservativeResize(n, Eigen::NoChange);
  d.y_train.conservativeResize(n);
  const Eigen::Index classes = d.classes;
  std::shared_ptr<quench::Kernel> kernel = quench::kernels::make_gaussian(quench::Params(
      quench::kernels::gaussian_schema(), {{"width", width}, {"amplitude", amplitude}}));
  kernel->prepare(d.X_train);
  namespace gpc = quench::multiclass;
  auto lik_ptr = std::make_shared<quench::likelihoods::MultinomialProbitLikelihood>(
      quench::Params(quench::likelihoods::MultinomialProbitLikelihood::schema(), {}));
  const quench::likelihoods::MultinomialProbitLikelihood& lik = *lik_ptr;
  const Eigen::MatrixXd K = kernel->gram(d.X_train);
  const Eigen::VectorXi y = quench::class_indices(d, quench::DataPart::train, "bench");
  const double chol = quench::bench::best_of(3, [&] { quench::Cholesky c(K); });

  // The prior: exact, or on M inducing inputs.
  std::optional<quench::InducingSitePrior> sparse;
  if (inducing > 0) {
    quench::InducingSpec spec_m;
    spec_m.count = inducing;
    const auto t_select = Clock::now();
    sparse.emplace(*kernel, d.X_train,
                   quench::select_inducing_inputs(*kernel, d.X_train, spec_m, 2026));
    std::printf("inducing inputs: M = %ld (FITC), chosen and U formed in %.2f s\n",
                static_cast<long>(sparse->low_rank().rank()),
                std::chrono::duration<double>(Clock::now() - t_select).count());
  }
  const gpc::DenseClassPrior dense(K);
  std::optional<gpc::InducingClassPrior> on_inducing;
  if (sparse) on_inducing.emplace(*sparse);
  const gpc::ClassPrior& prior =
      on_inducing ? static_cast<const gpc::ClassPrior&>(*on_inducing) : dense;

  // The fit, then the split of one sweep: the posterior algebra and the site updates.
  gpc::MulticlassEpOptions o;
  const auto t0 = Clock::now();
  const gpc::MulticlassFit fit = gpc::solve_multiclass_ep(prior, y, classes, lik, o);
  const double fit_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const int sweeps = fit.status.iterations;
  Eigen::MatrixXd pi, h;
  gpc::site_forms(y, fit.sites, pi, h);
  const double algebra =
      quench::bench::best_of(1, [&] { prior.posterior(pi, h, quench::Precision::full); });
  const double sites = quench::bench::best_of(1, [&] {
    for (Eigen::Index i = 0; i < n; ++i) {
      quench::ClassSite s = fit.sites[std::size_t(i)];
      lik.match_site(y(i), fit.cavity_mean.row(i).transpose(),
                     fit.cavity_covariance.middleCols(i * classes, classes), s, 1);
    }
  });
  const double gradient = quench::bench::best_of(1, [&] {
    if (sparse) {
      gpc::inducing_class_evidence_gradient(*kernel, d.X_train, {&*sparse}, pi,
                                            gpc::multiclass_mean_weights(y, fit), fit.posterior);
    } else {
      quench::class_gram_gradient(*kernel, d.X_train,
                                  gpc::multiclass_evidence_weights(y, fit, false));
    }
  });
  std::printf("N = %ld, C = %ld: one Cholesky %.3f s\n", static_cast<long>(n),
              static_cast<long>(classes), chol);
  std::printf("fit: %d sweeps, %.1f s (%s), log Z_EP %.3f\n", sweeps, fit_seconds,
              fit.status.message.empty() ? "ok" : fit.status.message.c_str(),
              gpc::multiclass_log_evidence(y, fit));
  std::printf(
      "per sweep: %.2f Cholesky units (target <= C + 2 = %ld): posterior algebra %.2f, "
      "site updates %.2f\n",
      fit_seconds / std::max(1, sweeps) / chol, static_cast<long>(classes + 2), algebra / chol,
      sites / chol);
  std::printf("log Z gradient beyond the fit: %.2f Cholesky units\n", gradient / chol);
  if (d.X_test.rows() > 0) {
    std::shared_ptr<const quench::Model> model;
    if (sparse)
      model = gpc::InducingMulticlassModel::from_fit(kernel, lik_ptr, {&*sparse}, fit);
    else
      model = gpc::MulticlassModel::from_fit(kernel, lik_ptr, d.X_train, y, fit);
    const Eigen::MatrixXd p = quench::class_probabilities(model->predict(d.X_test), classes);
    const Eigen::VectorXi guess = quench::row_argmax(p);
    const Eigen::VectorXi truth = quench::class_indices(d, quench::DataPart::test, "bench");
    std::printf("test error %.4f on %ld test rows\n",
                static_cast<double>((guess.array() != truth.array()).count()) /
                    static_cast<double>(truth.size()),
                static_cast<long>(truth.size()));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[path/to/satellite.csv] [--n 4435] [--width 1] [--amplitude 1] "
                           "[--inducing M]",
                           [&] { return main_body(argc, argv); });
}
