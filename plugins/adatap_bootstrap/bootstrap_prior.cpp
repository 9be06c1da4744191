#include "bootstrap_prior.h"

#include <chrono>
#include <utility>

#include "adatap_model.h"
#include "quench/low_rank_prior.h"
#include "sparse_adatap_model.h"
#include "sparse_solver.h"

namespace quench::adatap {
namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// K = k(X_train, X_train).
class DensePrior final : public BootstrapPrior {
 public:
  explicit DensePrior(const Problem& problem) : problem_(problem) {
    const auto start = Clock::now();
    K_ = problem.kernel->cross(problem.data->X_train, problem.data->X_train);
    setup_seconds_ = Seconds(Clock::now() - start).count();
  }
  Solution solve_gaussian(const Eigen::VectorXd& y, double s2, const Occupation& occ,
                          const SolverOptions& options) override {
    SolverOptions o = options;
    o.seed = problem_.seed;
    return solve(K_, y, s2, occ, o);
  }
  std::shared_ptr<const Model> gaussian_model(Solution& sol, const Eigen::VectorXd&) override {
    return std::make_shared<const AdatapModel>(problem_.kernel, problem_.data->X_train,
                                               std::move(sol.G), sol.dl, sol.gamma, sol.lam,
                                               problem_.resampler->expected_size());
  }
  GeneralSolution solve_general(const Observations& y, const Likelihood& likelihood,
                                const Occupation& occ, const GeneralOptions& options) override {
    return adatap::solve_general(K_, y, likelihood, occ, options);
  }
  ClassifierModelMaker general_model(GeneralSolution& sol) override {
    return dense_classifier_model(problem_, sol, AdatapModel::Form::classifier);
  }
  void describe(Results& r) const override { r.timings["kernel"] = setup_seconds_; }
  const char* where() const override { return ""; }

 private:
  const Problem& problem_;
  Eigen::MatrixXd K_;
  double setup_seconds_ = 0;
};

// The inducing-point prior K~ of problem.inducing (O(N M^2) per iteration).
class InducingPrior final : public BootstrapPrior {
 public:
  explicit InducingPrior(const Problem& problem)
      : problem_(problem),
        start_(Clock::now()),
        prior_(*problem.kernel, problem.data->X_train, *problem.inducing),
        setup_seconds_(Seconds(Clock::now() - start_).count()) {}
  Solution solve_gaussian(const Eigen::VectorXd& y, double s2, const Occupation& occ,
                          const SolverOptions& options) override {
    SolverOptions o = options;
    o.progress = problem_.context.progress;
    gaussian_ = solve_sparse(prior_, y, s2, occ, o);
    return gaussian_.sites;
  }
  std::shared_ptr<const Model> gaussian_model(Solution&, const Eigen::VectorXd& y) override {
    return std::make_shared<const SparseAdatapModel>(
        problem_.kernel, prior_.inducing_inputs(), prior_.inducing_cholesky().lower(),
        regression_predictor(prior_, gaussian_, y), problem_.resampler->expected_size());
  }
  GeneralSolution solve_general(const Observations& y, const Likelihood& likelihood,
                                const Occupation& occ, const GeneralOptions& options) override {
    SparseGeneralSolution sol = adatap::solve_general(prior_, y, likelihood, occ, options);
    general_G_ = std::move(sol.G);
    return std::move(sol.sites);
  }
  ClassifierModelMaker general_model(GeneralSolution& s) override {
    return [this, &s]() -> std::shared_ptr<const Model> {
      // Eq 19 at new inputs: alpha = T gamma = gamma - dl o m (sparse_solver.h).
      return std::make_shared<const SparseAdatapModel>(
          problem_.kernel, prior_.inducing_inputs(), prior_.inducing_cholesky().lower(),
          SparsePredictor(prior_, general_G_, s.dl, s.gamma - s.dl.cwiseProduct(s.m), s.lam, true),
          problem_.resampler->expected_size(), problem_.likelihood, prior_.form());
    };
  }
  void describe(Results& r) const override {
    r.scalars["inducing_count"] = static_cast<double>(prior_.rank());
    r.scalars["inducing_jitter"] = prior_.jitter();
    r.info["prior"] = "inducing points (" + to_string(problem_.inducing->form) +
                      "); O(N M^2) per iteration (docs/large_n.md)";
    r.timings["prior"] = setup_seconds_;
    if (problem_.likelihood->gaussian_noise_variance()) {
      r.timings["fixed_point"] = gaussian_.fixed_point_seconds;
      r.timings["eq65"] = gaussian_.eq65_seconds;
    }
  }
  const char* where() const override { return " on the inducing-point prior"; }

 private:
  const Problem& problem_;
  Clock::time_point start_;
  LowRankPrior prior_;
  double setup_seconds_;
  SparseSolution gaussian_;
  DiagonalPlusLowRank general_G_;
};

}  // namespace

BootstrapPrior::~BootstrapPrior() = default;

std::unique_ptr<BootstrapPrior> make_bootstrap_prior(const Problem& problem, bool gaussian,
                                                     const SolverOptions& options) {
  if (!problem.inducing) return std::make_unique<DensePrior>(problem);
  if (gaussian) check_sparse_options(options);  // before the O(N M^2) prior
  return std::make_unique<InducingPrior>(problem);
}

}  // namespace quench::adatap
