#include "adatap_bootstrap.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "adatap_model.h"
#include "bootstrap_prior.h"
#include "class_model.h"
#include "class_outputs.h"
#include "class_prior.h"
#include "class_solver.h"
#include "classifier_outputs.h"
#include "general_solver.h"
#include "inducing_class_model.h"
#include "quench/class_kernels.h"
#include "quench/errors.h"
#include "quench/losses.h"
#include "quench/low_rank_prior.h"
#include "quench/memory_budget.h"
#include "quench/normal.h"
#include "sparse_adatap_model.h"
#include "sparse_solver.h"

namespace quench::adatap {

Occupation occupation_of(const Resampler& resampler, double tail) {
  const int kmax = resampler.max_occupation(tail);
  Occupation occ;
  occ.pmf.resize(kmax + 1);
  for (int k = 0; k <= kmax; ++k) occ.pmf(k) = resampler.occupation_pmf(k);
  return occ;
}

Occupation normalized_occupation(const Resampler& resampler, double tail) {
  Occupation occ = occupation_of(resampler, tail);
  occ.pmf /= occ.pmf.sum();
  return occ;
}

ParamSchema AdatapBootstrap::schema() {
  ParamSchema s;
  s.string("method",
           "full: iterate eqs 63-64 (000 App. A.1); approximate: A.2 start value, one G, "
           "eq 63, eqs 65-66 (Sec. 5, dot-dashed curve of Fig. 1)",
           "full", {"full", "approximate"})
      .string("init",
              "start value of Delta lambda: eigen (A.2, eqs 68-69 on the eigenvalues of K), "
              "subset (A.2 on a random N/P subset), constant (E[s]/(2 sigma^2)); auto: eigen "
              "for method approximate (the start is its only estimate), subset for full (the "
              "iteration forgets its start)",
              "auto", {"auto", "eigen", "subset", "constant"})
      .integer("subset_factor", "P of A.2: the subset has N/P points", 4, 1, 1000)
      .boolean("woodbury", "A.3: Woodbury update of G on the active set (eq 72)", false)
      .integer("approximate_steps",
               "A.4: up to this many O(N^2) diagonal updates (eq 74) between exact G", 0, 0, 3)
      .real("active_threshold",
            "A.3: a site is active when Delta lambda moved by more than this (relative) since "
            "its last exact G; must be below tolerance",
            5e-4, 0.0, 0.5)
      .integer("anderson_depth",
               "Anderson acceleration of eqs 63-64 over this many steps (0: plain iteration)", 3, 0,
               20)
      .boolean("newton",
               "Newton steps for eqs 63-64 (Jacobian through eq 65's matrix, CG; not with "
               "woodbury, approximate_steps or anderson_depth)",
               false)
      .boolean("mixed_precision",
               "single-precision G diagonals until converged, then confirmed in double", true)
      .real("tolerance", "relative accuracy of Delta lambda, Delta lambda_c (A.3)", 1e-3, 1e-12,
            0.5)
      .integer("max_iterations", "iterations of eqs 63-64 before reporting not_converged", 200, 1,
               100000)
      .real("epsilon", "epsilon of the epsilon-insensitive test loss (000 Fig. 1)", 0.1, 0.0)
      .real("beta", "smoothing beta of the epsilon-insensitive loss, in (0, 1]", 0.1, 1e-9, 1.0)
      .boolean("density", "return the eq-67 mixture and its binned density per training input",
               true)
      .real("density_bin", "bin width of the binned eq-67 density (000 Fig. 5: 0.2)", 0.2, 1e-6)
      .real("occupation_tail", "truncate the k-sums where the pmf tail is below this", 1e-12,
            1e-300, 1e-2)
      .real("site_tolerance",
            "non-Gaussian likelihoods: stop when the three computations of each site's bootstrap "
            "mean, within-sample and bootstrap variance agree to this "
            "(docs/adatap_classification.md)",
            1e-6, 1e-14, 0.1)
      .real("damping",
            "non-Gaussian likelihoods: the fraction of the new site parameters taken per "
            "iteration at the start (halved whenever the change grows)",
            1.0, 0.01, 1.0)
      .integer("hermite_nodes",
               "non-Gaussian likelihoods: Gauss-Hermite nodes of the average over the decoupling "
               "variable u",
               20, 2, 200)
      .string("class_cubature",
              "multi-class likelihoods: the average over the C-dimensional decoupling variable "
              "(docs/adatap_multiclass.md): degree3 (Stroud's rule, 2C points), degree5 "
              "(2C^2 + 1 points) or product (hermite_nodes Gauss-Hermite nodes per direction, "
              "hermite_nodes^C points)",
              "degree3", {"degree3", "degree5", "product"})
      .integer("error_draws",
               "multi-class likelihoods: draws of the decoupling variable per input for the "
               "bootstrap 0/1 errors, from the pipeline seed (docs/adatap_multiclass.md eq M12)",
               400, 2, 1000000);
  return s;
}

AdatapBootstrap::AdatapBootstrap(const Params& p)
    : epsilon_(p.real("epsilon")),
      beta_(p.real("beta")),
      density_bin_(p.real("density_bin")),
      tail_(p.real("occupation_tail")),
      density_(p.boolean("density")) {
  options_.method = p.string("method") == "approximate" ? SolverOptions::Method::approximate
                                                        : SolverOptions::Method::full;
  const auto& init = p.string("init");
  const bool approximate = options_.method == SolverOptions::Method::approximate;
  options_.init = init == "subset"                 ? SolverOptions::Init::subset
                  : init == "constant"             ? SolverOptions::Init::constant
                  : init == "auto" && !approximate ? SolverOptions::Init::subset
                                                   : SolverOptions::Init::eigen;
  options_.subset_factor = static_cast<int>(p.integer("subset_factor"));
  options_.woodbury = p.boolean("woodbury");
  options_.approximate_steps = static_cast<int>(p.integer("approximate_steps"));
  options_.tolerance = p.real("tolerance");
  options_.active_threshold = p.real("active_threshold");
  options_.anderson_depth = static_cast<int>(p.integer("anderson_depth"));
  options_.mixed_precision = p.boolean("mixed_precision");
  options_.newton = p.boolean("newton");
  if (options_.newton &&
      (options_.woodbury || options_.approximate_steps > 0 || options_.anderson_depth > 0))
    throw ConfigError({},
                      "adatap_bootstrap: newton excludes woodbury, approximate_steps and "
                      "anderson_depth");
  if (options_.woodbury && options_.active_threshold >= options_.tolerance)
    throw ConfigError({}, "adatap_bootstrap: active_threshold must be below tolerance (A.3)");
  options_.max_iterations = static_cast<int>(p.integer("max_iterations"));
  general_.tolerance = p.real("site_tolerance");
  general_.damping = p.real("damping");
  general_.hermite_nodes = static_cast<int>(p.integer("hermite_nodes"));
  general_.max_iterations = options_.max_iterations;
  classes_.error_draws = static_cast<int>(p.integer("error_draws"));
  const auto& cubature = p.string("class_cubature");
  classes_.rule.kind = cubature == "degree5"   ? ClassRule::Kind::degree5
                       : cubature == "product" ? ClassRule::Kind::product
                                               : ClassRule::Kind::degree3;
  classes_.rule.nodes = general_.hermite_nodes;
}

Results AdatapBootstrap::site_results(const Solution& sol, const Problem& problem,
                                      const Occupation& occ, double s2) const {
  const Dataset& data = *problem.data;
  const Eigen::Index n = data.X_train.rows();
  Results r;
  r.scalars["test_error_square"] = test_error_square(sol, data.y_train);  // eq 53
  r.scalars["test_error_eps_insensitive"] = test_error(sol, data.y_train, [this](double d) {
    return eps_insensitive_loss(d, epsilon_, beta_);
  });  // eq 54
  r.scalars["test_error_points"] = static_cast<double>(n);
  r.scalars["expected_sample_size"] = problem.resampler->expected_size();
  r.scalars["iterations"] = sol.iterations;
  r.scalars["exact_g_computations"] = sol.exact_g;
  r.scalars["woodbury_updates"] = sol.woodbury_updates;
  r.scalars["single_precision_evaluations"] = sol.single_evaluations;
  r.scalars["approximate_updates"] = sol.approximate_updates;
  r.scalars["eq65_cg_steps"] = sol.eq65_steps;
  r.scalars["start_delta_lambda"] = sol.start_dl;
  r.scalars["final_relative_change"] = sol.final_change;
  r.scalars["noise_variance"] = s2;
  r.scalars["target_mean"] = data.target_mean;  // to report means in the original units
  r.scalars["target_scale"] = data.target_scale;
  r.vectors["train_prediction_mean"] = sol.m;                   // eq 39 (= eq 57 at x_i)
  r.vectors["train_prediction_variance"] = sol.train_variance;  // eq 40
  r.vectors["delta_lambda"] = sol.dl;
  r.vectors["delta_lambda_c"] = sol.dlc;
  r.vectors["gamma_c"] = sol.gammac;
  r.vectors["lambda_c"] = sol.lamc;
  if (density_) {  // eq 67
    Eigen::MatrixXd means, vars;
    mixture(sol, data.y_train, s2, occ, means, vars);
    double lo = 1e300, hi = -1e300;
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index k = 0; k < means.cols(); ++k)
        if (occ.pmf(k) > 1e-10) {
          lo = std::min(lo, means(i, k) - 6 * std::sqrt(vars(i, k)));
          hi = std::max(hi, means(i, k) + 6 * std::sqrt(vars(i, k)));
        }
    lo = std::floor(lo / density_bin_) * density_bin_;
    const auto bins = static_cast<Eigen::Index>(std::ceil((hi - lo) / density_bin_));
    Eigen::VectorXd edges(bins + 1);
    for (Eigen::Index b = 0; b <= bins; ++b) edges(b) = lo + static_cast<double>(b) * density_bin_;
    r.vectors["predictor_density_weights"] = occ.pmf;
    r.matrices["predictor_density_means"] = means;
    r.matrices["predictor_density_variances"] = vars;
    r.vectors["predictor_density_edges"] = edges;
    r.matrices["predictor_density_bins"] = binned_density(means, vars, occ, edges);
  }
  r.info["method"] = options_.method == SolverOptions::Method::full ? "full" : "approximate";
  r.info["loss_eps_insensitive"] =
      "epsilon=" + std::to_string(epsilon_) + ", beta=" + std::to_string(beta_);
  r.status.iterations = sol.iterations;
  if (!sol.converged) r.status = Status{RunStatus::not_converged, sol.message, sol.iterations};
  return r;
}

void AdatapBootstrap::check(const Problem& problem, Eigen::Index inducing_count) const {
  if (problem.resampler && !problem.resampler->draws_counts())
    throw ConfigError({},
                      "adatap_bootstrap averages over the occupation counts of a bootstrap "
                      "(000 eq 15); the resampler draws real weights (a Bayesian bootstrap): "
                      "use a bootstrap or subsample resampler");
  const bool gaussian = problem.likelihood->gaussian_noise_variance().has_value();
  if (gaussian && inducing_count > 0) check_sparse_options(options_);
  if (problem.likelihood->classes()) {
    if (inducing_count > 0) {
      // inducing_class_part.h: each distinct kernel's prior (LowRankPrior::bytes) and six
      // matrices of order CM (A, its factor, Sigma, Xi, Y and a product).
      const double m = static_cast<double>(inducing_count),
                   cm = m * static_cast<double>(problem.data->classes),
                   kernels = static_cast<double>(distinct_kernels(*problem.kernel));
      require_memory(kernels * LowRankPrior::bytes(problem.data->X_train.rows(), inducing_count) +
                         8.0 * 6.0 * cm * cm,
                     "adatap_bootstrap on the inducing-point prior with C = " +
                         std::to_string(problem.data->classes) +
                         " classes (each kernel's N x M "
                         "factors and six matrices of order CM; N = " +
                         std::to_string(problem.data->X_train.rows()) +
                         ", M = " + std::to_string(inducing_count) + ")");
    }
    const double points = std::pow(static_cast<double>(classes_.rule.nodes),
                                   static_cast<double>(problem.data->classes));
    if (classes_.rule.kind == ClassRule::Kind::product && points > 1e6)
      throw ConfigError({}, "adatap_bootstrap: class_cubature product takes hermite_nodes^C = " +
                                std::to_string(classes_.rule.nodes) + "^" +
                                std::to_string(problem.data->classes) +
                                " points, above 10^6: lower hermite_nodes or use degree3");
  }
  const Eigen::Index kernels = kernel_classes(*problem.kernel);
  if (kernels > 0 && !problem.likelihood->classes())
    throw ConfigError({},
                      "adatap_bootstrap takes a kernel per class with a multi-class "
                      "likelihood only (docs/adatap_multiclass.md)");
  if (const std::string why = class_kernels_mismatch(*problem.kernel, problem.data->classes);
      !why.empty())
    throw ConfigError({}, "adatap_bootstrap: " + why);
  for (Eigen::Index c = 0; c < distinct_kernels(*problem.kernel); ++c)
    if (!gaussian && class_kernel(*problem.kernel, c).diagonal_noise() > 0)
      throw ConfigError({},
                        "adatap_bootstrap with a non-Gaussian likelihood needs the noise in the "
                        "likelihood (e.g. probit noise), not on the kernel diagonal: a point "
                        "drawn k times contributes k independent noise draws "
                        "(docs/adatap_classification.md eq 1)");
  // The dense prior holds K and G (000 eq 65) with its factorization; C classes hold five
  // matrices of order C N (class_solver.cpp) and each class's Gram matrix.
  if (inducing_count == 0) {
    const Eigen::Index n = problem.data->X_train.rows(), classes = problem.data->classes;
    if (problem.likelihood->classes())
      require_dense_memory(n * classes,
                           5.0 + static_cast<double>(distinct_kernels(*problem.kernel)) /
                                     static_cast<double>(classes * classes),
                           "adatap_bootstrap");
    else
      require_dense_memory(n, 3, "adatap_bootstrap");
  }
}

Results AdatapBootstrap::run(const Problem& problem) const {
  check(problem, problem.inducing ? problem.inducing->Z.rows() : 0);
  if (problem.likelihood->classes()) return run_classes(problem);
  const auto noise = problem.likelihood->gaussian_noise_variance();
  return noise ? run_gaussian(problem, *noise) : run_general(problem);
}

Results AdatapBootstrap::run_gaussian(const Problem& problem, double noise) const {
  using clock = std::chrono::steady_clock;
  using seconds = std::chrono::duration<double>;
  const auto start = clock::now();
  const Dataset& data = *problem.data;
  const double s2 = noise + problem.kernel->diagonal_noise();  // as gp_regression's
  const Occupation occ = occupation_of(*problem.resampler, tail_);
  const std::unique_ptr<BootstrapPrior> prior = make_bootstrap_prior(problem, true, options_);
  const auto prior_done = clock::now();
  Solution sol = prior->solve_gaussian(data.y_train, s2, occ, options_);
  const auto solved = clock::now();

  Results r = site_results(sol, problem, occ, s2);
  prior->describe(r);
  if (data.X_test.rows() > 0 || problem.make_model) {  // eq 57; the test outputs are the
                                                       // model's predictions
    std::shared_ptr<const Model> model = prior->gaussian_model(sol, data.y_train);
    if (data.X_test.rows() > 0) {
      const Predictions p = model->predict(data.X_test);
      r.vectors["prediction_mean"] = p.column("bootstrap_mean");
      r.vectors["prediction_variance"] = p.column("bootstrap_variance");
    }
    if (problem.make_model) r.model = std::move(model);
  }
  r.timings["solve"] = seconds(solved - prior_done).count();
  r.timings["total"] = seconds(clock::now() - start).count();
  return r;
}

AdatapBootstrap::GeneralInputs AdatapBootstrap::general_inputs(const Problem& problem) const {
  GeneralInputs in{observations(*problem.data, DataPart::train, *problem.likelihood->target_kind(),
                                "adatap_bootstrap"),
                   normalized_occupation(*problem.resampler, tail_)};
  return in;
}

Results AdatapBootstrap::run_general(const Problem& problem) const {
  using clock = std::chrono::steady_clock;
  using seconds = std::chrono::duration<double>;
  const auto start = clock::now();
  const auto [y, occ] = general_inputs(problem);
  const std::unique_ptr<BootstrapPrior> prior = make_bootstrap_prior(problem, false, options_);
  const auto prior_done = clock::now();
  GeneralSolution sol =
      prior->solve_general(y, *problem.likelihood, occ, for_run(general_, problem.context));
  const auto solved = clock::now();

  Results r =
      classifier_results(problem, y, sol, AdatapModel::Form::classifier, prior->general_model(sol));
  prior->describe(r);
  r.info["method"] =
      std::string("general likelihood (docs/adatap_classification.md)") + prior->where();
  r.timings["solve"] = seconds(solved - prior_done).count();
  r.timings["total"] = seconds(clock::now() - start).count();
  return r;
}

Results AdatapBootstrap::run_classes(const Problem& problem) const {
  using clock = std::chrono::steady_clock;
  using seconds = std::chrono::duration<double>;
  const auto start = clock::now();
  const Dataset& data = *problem.data;
  const ClassLikelihood& likelihood =
      require_class_likelihood(problem.likelihood.get(), "adatap_bootstrap");
  const Eigen::VectorXi y = class_indices(data, DataPart::train, "adatap_bootstrap");
  const Occupation occ = normalized_occupation(*problem.resampler, tail_);
  const std::unique_ptr<ClassBootstrapPrior> prior = make_class_prior(problem);
  const auto prior_done = clock::now();
  ClassSolution sol = prior->solve(y, data.classes, likelihood, occ,
                                   for_run(general_, problem.context), classes_.rule);
  const auto solved = clock::now();
  Results r;
  r.status.iterations = sol.iterations;
  if (sol.converged) {
    r = class_results(problem, y, sol, likelihood, classes_);
    r.status.iterations = sol.iterations;
    if (data.X_test.rows() > 0 || problem.make_model) {  // eqs M9-M10; the test outputs are
                                                         // the model's predictions
      std::shared_ptr<const ClassBootstrapModel> model = prior->model(sol, classes_.rule);
      if (data.X_test.rows() > 0) class_test_results(problem, *model, likelihood, classes_, r);
      if (problem.make_model) r.model = std::move(model);
    }
  } else {  // no outputs from sites that are not a fixed point
    r.scalars["iterations"] = sol.iterations;
    r.scalars["final_change"] = sol.final_change;
    r.status = Status{RunStatus::not_converged, sol.message, sol.iterations};
  }
  prior->describe(r);
  r.info["method"] =
      std::string("multi-class replica EP (docs/adatap_multiclass.md)") + prior->where();
  r.timings["solve"] = seconds(solved - prior_done).count();
  r.timings["total"] = seconds(clock::now() - start).count();
  return r;
}

std::unique_ptr<Model> AdatapBootstrap::read_model(ModelArchive& archive,
                                                   const ModelParts& parts) const {
  if (SparseAdatapModel::holds(archive)) return SparseAdatapModel::read(archive, parts);
  if (ClassBootstrapModel::holds(archive)) {
    if (InducingClassModel::holds(archive)) return InducingClassModel::read(archive, parts);
    return AdatapClassModel::read(archive, parts);
  }
  return AdatapModel::read(archive, parts);
}

}  // namespace quench::adatap
