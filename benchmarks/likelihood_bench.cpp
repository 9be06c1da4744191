// The cost of a likelihood that is not the probit (issue 35 targets), measured in one run on
// the doctorvisits training rows (examples/data/doctorvisits_split.csv, train = 1, the first N):
//
//   1. fit: one EP fit (the `ep` engine's solver, sweeps then the Newton finish) with a count
//      (Poisson, negative binomial r = 1) or Student-t (4 dof, scale 1, on the standardized
//      counts) likelihood against the probit Phi(y f) (noise 1: rows with equal inputs and
//      different labels make the noise-free step likelihood degenerate) on labels y > 0;
//      target <= 2 x the probit;
//   2. learn: one evaluation of the EP evidence with its gradient (the `learn:` objective),
//      cold, against the probit's; target <= 2 x;
//   3. --adatap: the analytical bootstrap (Poisson, S = N) against 200 Monte-Carlo EP refits on
//      Poisson bootstrap counts at N = 2000: the time ratio (target >= 10) and the bootstrap
//      negative log predictive density of a left-out count (target: within 2 % + 2 standard
//      errors of the Monte-Carlo value).
//
//   quench_bench_likelihoods [path/to/doctorvisits_split.csv] [--n N] [--adatap]
//
// Inputs: the 11 covariates standardized over the rows used; kernel: Gaussian, width 4 (the
// doctorvisits examples' start), amplitude 1. Times are the best of 2 (fits) or 3 (objective
// evaluations) on a shared machine, so a load change inflates a ratio rather than hiding cost.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "adatap_bootstrap.h"
#include "bench_timing.h"
#include "bootstrap_resamplers.h"
#include "ep.h"
#include "kernels.h"
#include "mc_bootstrap.h"
#include "negative_binomial_likelihood.h"
#include "poisson_likelihood.h"
#include "probit_likelihood.h"
#include "quench/dataset.h"
#include "quench/tool_main.h"
#include "student_t_likelihood.h"

namespace {

using quench::bench::best_of;

struct Rows {
  Eigen::MatrixXd X;
  Eigen::VectorXd counts;
};

// The first n training rows (train = 1) of the split file, inputs standardized over them.
Rows first_training_rows(const std::string& path, Eigen::Index n) {
  const quench::CsvTable t = quench::read_csv(path);
  const Eigen::Index train = t.column_index("train"), y = t.column_index("y");
  std::vector<Eigen::Index> inputs;
  for (Eigen::Index c = 0; c < static_cast<Eigen::Index>(t.columns.size()); ++c)
    if (c != train && c != y) inputs.push_back(c);
  Rows r{Eigen::MatrixXd(n, static_cast<Eigen::Index>(inputs.size())), Eigen::VectorXd(n)};
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < t.size() && k < n; ++i) {
    if (std::stod(t.cell(i, train)) != 1.0) continue;
    for (std::size_t c = 0; c < inputs.size(); ++c)
      r.X(k, static_cast<Eigen::Index>(c)) = std::stod(t.cell(i, inputs[c]));
    r.counts(k++) = std::stod(t.cell(i, y));
  }
  if (k < n) throw std::runtime_error(path + ": fewer than " + std::to_string(n) + " rows");
  const Eigen::RowVectorXd mean = r.X.colwise().mean();
  r.X.rowwise() -= mean;
  const Eigen::RowVectorXd sd =
      (r.X.colwise().squaredNorm() / static_cast<double>(n - 1)).cwiseSqrt();
  r.X = r.X.array().rowwise() / sd.array().max(1e-12);
  return r;
}

struct Case {
  const char* name;
  std::shared_ptr<quench::Likelihood> likelihood;
  Eigen::VectorXd y;
};

std::vector<Case> cases(const Rows& d) {
  using namespace quench::likelihoods;
  const Eigen::VectorXd labels =
      (d.counts.array() > 0).select(1.0, -Eigen::VectorXd::Ones(d.counts.size()));
  const double mean = d.counts.mean();
  const double sd = std::sqrt((d.counts.array() - mean).square().sum() /
                              static_cast<double>(d.counts.size() - 1));
  const Eigen::VectorXd standardized = (d.counts.array() - mean) / sd;
  return {
      {"probit", std::make_shared<ProbitLikelihood>(1.0, 0.0), labels},
      {"poisson",
       std::make_shared<PoissonLikelihood>(quench::Params(PoissonLikelihood::schema(), {})),
       d.counts},
      {"neg_binomial",
       std::make_shared<NegativeBinomialLikelihood>(
           quench::Params(NegativeBinomialLikelihood::schema(), {{"dispersion", 1.0}})),
       d.counts},
      {"student_t",
       std::make_shared<StudentTLikelihood>(
           quench::Params(StudentTLikelihood::schema(), {{"dof", 4.0}, {"scale", 1.0}})),
       standardized},
  };
}

std::shared_ptr<quench::Kernel> doctorvisits_kernel(const Eigen::MatrixXd& X) {
  auto kernel = quench::kernels::make_gaussian(
      quench::Params(quench::kernels::gaussian_schema(), {{"width", 4.0}, {"noise", 0.0}}));
  kernel->prepare(X);
  return kernel;
}

void fit_and_learn(const Rows& d) {
  const Eigen::Index n = d.X.rows();
  const std::shared_ptr<quench::Kernel> kernel = doctorvisits_kernel(d.X);
  const Eigen::MatrixXd C = kernel->gram(d.X);
  const quench::latent_gp::EpEngine engine(
      quench::Params(quench::latent_gp::EpEngine::schema(), {}));
  double fit_probit = 0.0, learn_probit = 0.0;
  for (const Case& c : cases(d)) {
    const quench::Observations y(c.y);
    quench::latent_gp::MeanFieldFit fit;
    const double t_fit = best_of(2, [&] {
      fit = quench::latent_gp::solve_ep(C, y, *c.likelihood, quench::latent_gp::EpOptions{});
    });
    quench::Dataset data;
    data.X_train = d.X;
    data.y_train = c.y;
    quench::Problem problem;
    problem.data = &data;
    problem.kernel = kernel;
    problem.likelihood = c.likelihood;
    double t_learn = 1e300;
    quench::ObjectiveValue v;
    for (int r = 0; r < 3; ++r) {
      auto evidence = engine.hyperparameter_objective(problem, "evidence");  // cold
      t_learn =
          std::min(t_learn, best_of(1, [&] { v = evidence->evaluate(*kernel, *c.likelihood); }));
    }
    if (std::strcmp(c.name, "probit") == 0) {
      fit_probit = t_fit;
      learn_probit = t_learn;
    }
    std::printf("%6ld %-13s %9.3f %7.2f %6d %-14s %9.3f %7.2f %-10s\n", static_cast<long>(n),
                c.name, t_fit, t_fit / fit_probit, fit.status.iterations,
                quench::to_string(fit.status.code), t_learn, t_learn / learn_probit,
                quench::to_string(v.status.code));
    std::fflush(stdout);
  }
}

void adatap_against_monte_carlo(const Rows& d) {
  const Eigen::Index n = d.X.rows();
  quench::Dataset data;
  data.X_train = d.X;
  data.y_train = d.counts;
  data.X_test = Eigen::MatrixXd(0, d.X.cols());  // no test rows
  quench::Problem problem;
  problem.data = &data;
  problem.kernel = doctorvisits_kernel(d.X);
  problem.likelihood = std::make_shared<quench::likelihoods::PoissonLikelihood>(
      quench::Params(quench::likelihoods::PoissonLikelihood::schema(), {}));
  auto resampler = std::make_shared<quench::resamplers::PoissonBootstrap>(
      quench::Params(quench::resamplers::PoissonBootstrap::schema(), {{"ratio", 1.0}}));
  resampler->prepare(n);
  problem.resampler = resampler;
  problem.seed = 35;
  problem.context.threads = 2;
  problem.context.make_engine = [](const std::string&) {
    return std::make_shared<quench::latent_gp::EpEngine>(
        quench::Params(quench::latent_gp::EpEngine::schema(), {}));
  };
  quench::Results a, mc;
  const double t_a = best_of(1, [&] {
    a = quench::adatap::AdatapBootstrap(
            quench::Params(quench::adatap::AdatapBootstrap::schema(), {}))
            .run(problem);
  });
  const double t_mc = best_of(1, [&] {
    mc = quench::mc_bootstrap::McBootstrap(
             quench::Params(quench::mc_bootstrap::McBootstrap::schema(),
                            {{"samples", std::int64_t{200}}, {"inner", std::string("ep")}}))
             .run(problem);
  });
  const char* loss = "test_error_log_predictive";
  const double ea = a.scalars.at(loss), em = mc.scalars.at(loss);
  const double se = mc.scalars.at(std::string(loss) + "_stderr");
  std::printf("\nADATAP against 200 Monte-Carlo EP refits (Poisson, N = %ld, S = N)\n",
              static_cast<long>(n));
  std::printf("%-12s %10s %12s %12s\n", "", "time [s]", "eps(NLPD)", "eps(square)");
  std::printf("%-12s %10.2f %12.5f %12.4f  [%s]\n", "adatap", t_a, ea,
              a.scalars.at("test_error_square"), quench::to_string(a.status.code));
  std::printf("%-12s %10.2f %12.5f %12.4f  +- %.5f, %.4f [%s]\n", "monte_carlo", t_mc, em,
              mc.scalars.at("test_error_square"), se, mc.scalars.at("test_error_square_stderr"),
              quench::to_string(mc.status.code));
  std::printf(
      "time ratio MC / ADATAP %.1f (target >= 10); |d eps| = %.5f, allowed 2 %% + 2 se = "
      "%.5f: %s\n",
      t_mc / t_a, std::fabs(ea - em), 0.02 * em + 2 * se,
      std::fabs(ea - em) <= 0.02 * em + 2 * se ? "met" : "NOT met");
}

}  // namespace

static int main_body(int argc, char** argv) {
  std::string path = "examples/data/doctorvisits_split.csv";
  int only = 0;
  bool adatap = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      only = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--adatap") == 0)
      adatap = true;
    else
      path = argv[i];
  }
  std::printf("%6s %-13s %9s %7s %6s %-14s %9s %7s %-10s\n", "N", "likelihood", "fit[s]",
              "x probit", "sweeps", "status", "learn[s]", "x probit", "status");
  for (int n : {500, 1000, 2000, 4000}) {
    if (only > 0 && n != only) continue;
    fit_and_learn(first_training_rows(path, n));
  }
  if (adatap) adatap_against_monte_carlo(first_training_rows(path, only > 0 ? only : 2000));
  return 0;
}

int main(int argc, char** argv) {
  return quench::tool_main(argc, argv,
                           "[--n N] [--adatap] [doctorvisits_split.csv]\nEP with count and "
                           "Student-t likelihoods against the probit; ADATAP against 200 "
                           "Monte-Carlo EP refits.",
                           [&] { return main_body(argc, argv); });
}
