// The adatap_bootstrap engine on the inducing-point prior (problem.inducing set): GP regression
// with a Gaussian likelihood through sparse_solver.h, with the outputs of the dense path
// (site_results) and eq 57 at the test inputs from the features u(x); any other likelihood (the
// GP classifier) through the general replica EP on the same prior (general_solver.h), with the
// outputs of the dense classifier (classifier_results).
#include <chrono>
#include <memory>

#include "adatap_bootstrap.h"
#include "classifier_outputs.h"
#include "quench/errors.h"
#include "quench/low_rank_prior.h"
#include "sparse_adatap_model.h"
#include "sparse_solver.h"

namespace quench::adatap {
namespace {

void add_prior_info(Results& r, const LowRankPrior& prior, const InducingInputs& inducing) {
  r.scalars["inducing_count"] = static_cast<double>(prior.rank());
  r.scalars["inducing_jitter"] = prior.jitter();
  r.info["prior"] = "inducing points (" + to_string(inducing.form) + "); O(N M^2) per " +
                    "iteration (docs/large_n.md)";
}

}  // namespace

Results AdatapBootstrap::run_sparse(const Problem& problem) const {
  using clock = std::chrono::steady_clock;
  using seconds = std::chrono::duration<double>;
  const auto start = clock::now();
  const Dataset& data = *problem.data;
  const Kernel& kernel = *problem.kernel;
  const auto lik_noise = problem.likelihood->gaussian_noise_variance();
  if (!lik_noise) return run_sparse_general(problem);
  check_sparse_options(options_);                          // before the O(N M^2) prior
  const double s2 = *lik_noise + kernel.diagonal_noise();  // as gp_regression's observation_noise
  const Occupation occ = occupation_of(*problem.resampler, tail_);
  const LowRankPrior prior(kernel, data.X_train, *problem.inducing);
  const auto prior_done = clock::now();

  SolverOptions o = options_;
  o.progress = problem.context.progress;
  const SparseSolution sol = solve_sparse(prior, data.y_train, s2, occ, o);
  const auto solved = clock::now();

  Results r = site_results(sol.sites, problem, occ, s2);
  add_prior_info(r, prior, *problem.inducing);
  if (data.X_test.rows() > 0 || problem.make_model) {  // eq 57 (docs/large_n.md §4)
    auto model = std::make_shared<const SparseAdatapModel>(
        problem.kernel, prior.inducing_inputs(), prior.inducing_cholesky().lower(),
        regression_predictor(prior, sol, data.y_train), problem.resampler->expected_size());
    if (data.X_test.rows() > 0) {
      const Predictions p = model->predict(data.X_test);
      r.vectors["prediction_mean"] = p.column("bootstrap_mean");
      r.vectors["prediction_variance"] = p.column("bootstrap_variance");
    }
    if (problem.make_model) r.model = std::move(model);
  }
  r.timings["prior"] = seconds(prior_done - start).count();
  r.timings["fixed_point"] = sol.fixed_point_seconds;
  r.timings["eq65"] = sol.eq65_seconds;
  r.timings["solve"] = seconds(solved - prior_done).count();
  r.timings["total"] = seconds(clock::now() - start).count();
  return r;
}

Results AdatapBootstrap::run_sparse_general(const Problem& problem) const {
  using clock = std::chrono::steady_clock;
  using seconds = std::chrono::duration<double>;
  const auto start = clock::now();
  const Dataset& data = *problem.data;
  const auto [y, occ] = general_inputs(problem);
  const LowRankPrior prior(*problem.kernel, data.X_train, *problem.inducing);
  const auto prior_done = clock::now();
  SparseGeneralSolution sol =
      solve_general(prior, y, *problem.likelihood, occ, for_run(general_, problem.context));
  const auto solved = clock::now();

  const GeneralSolution& s = sol.sites;
  Results r = classifier_results(problem, y, s, AdatapModel::Form::classifier, [&] {
    // Eq 19 at new inputs: alpha = T gamma = gamma - dl o m (sparse_solver.h).
    return std::make_shared<const SparseAdatapModel>(
        problem.kernel, prior.inducing_inputs(), prior.inducing_cholesky().lower(),
        SparsePredictor(prior, sol.G, s.dl, s.gamma - s.dl.cwiseProduct(s.m), s.lam, true),
        problem.resampler->expected_size(), problem.likelihood, prior.form());
  });
  add_prior_info(r, prior, *problem.inducing);
  r.info["method"] =
      "general likelihood (docs/adatap_classification.md) on the inducing-point "
      "prior";
  r.timings["prior"] = seconds(prior_done - start).count();
  r.timings["solve"] = seconds(solved - prior_done).count();
  r.timings["total"] = seconds(clock::now() - start).count();
  return r;
}

}  // namespace quench::adatap
