#include "class_prior.h"

#include <chrono>
#include <utility>
#include <vector>

#include "inducing_class_model.h"
#include "inducing_class_part.h"
#include "quench/class_kernels.h"
#include "quench/low_rank_prior.h"

namespace quench::adatap {
namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// Each class's Gram matrix, diagonal noise included (multiclass_ep's prior).
class DenseClassPrior final : public ClassBootstrapPrior {
 public:
  explicit DenseClassPrior(const Problem& problem) : problem_(problem) {
    const auto start = Clock::now();
    K_ = class_gram_matrices(*problem.kernel, problem.data->X_train);
    setup_seconds_ = Seconds(Clock::now() - start).count();
  }
  ClassSolution solve(const Eigen::VectorXi& y, Eigen::Index classes,
                      const ClassLikelihood& likelihood, const Occupation& occupation,
                      const GeneralOptions& options, const ClassRule& rule) override {
    return solve_classes(class_grams(K_), y, classes, likelihood, occupation, options, rule);
  }
  std::shared_ptr<const ClassBootstrapModel> model(ClassSolution& sites,
                                                   const ClassRule& rule) override {
    return std::make_shared<const AdatapClassModel>(problem_.kernel, problem_.likelihood,
                                                    problem_.data->X_train, std::move(sites), rule,
                                                    problem_.resampler->expected_size());
  }
  void describe(Results& r) const override { r.timings["kernel"] = setup_seconds_; }
  const char* where() const override { return ""; }

 private:
  const Problem& problem_;
  std::vector<Eigen::MatrixXd> K_;
  double setup_seconds_ = 0;
};

// K~_c = diag(Lambda_c) + U_c U_c^T on problem.inducing, one per distinct kernel.
class InducingClassPrior final : public ClassBootstrapPrior {
 public:
  explicit InducingClassPrior(const Problem& problem) : problem_(problem) {
    const auto start = Clock::now();
    std::vector<const LowRankPrior*> pointers;
    for (Eigen::Index k = 0; k < distinct_kernels(*problem.kernel); ++k) {
      priors_.push_back(std::make_unique<const LowRankPrior>(
          class_kernel(*problem.kernel, k), problem.data->X_train, *problem.inducing));
      pointers.push_back(priors_.back().get());
    }
    part_ = std::make_unique<InducingClassPart>(std::move(pointers), problem.data->classes);
    setup_seconds_ = Seconds(Clock::now() - start).count();
  }
  ClassSolution solve(const Eigen::VectorXi& y, Eigen::Index classes,
                      const ClassLikelihood& likelihood, const Occupation& occupation,
                      const GeneralOptions& options, const ClassRule& rule) override {
    InducingClassPart& part = *part_;
    return solve_classes([&part](ClassSolution& s) { part(s); }, part.variance(), y, classes,
                         likelihood, occupation, options, rule);
  }
  std::shared_ptr<const ClassBootstrapModel> model(ClassSolution& sites,
                                                   const ClassRule& rule) override {
    const LowRankPrior& p = *priors_.front();
    std::vector<Eigen::MatrixXd> lower;
    for (const auto& prior : priors_) lower.push_back(prior->inducing_cholesky().lower());
    return std::make_shared<const InducingClassModel>(
        problem_.kernel, problem_.likelihood, p.inducing_inputs(), std::move(lower), p.form(),
        part_->weights(), sites.gamma.cols(), rule, problem_.resampler->expected_size());
  }
  void describe(Results& r) const override {
    r.scalars["inducing_count"] = static_cast<double>(priors_.front()->rank());
    double jitter = 0;
    for (const auto& prior : priors_) jitter = std::max(jitter, prior->jitter());
    r.scalars["inducing_jitter"] = jitter;
    r.info["prior"] = "inducing points (" + to_string(problem_.inducing->form) +
                      "); O(C^2 N M^2) per iteration (docs/adatap_multiclass.md)";
    r.timings["prior"] = setup_seconds_;
  }
  const char* where() const override { return " on the inducing-point prior"; }

 private:
  const Problem& problem_;
  std::vector<std::unique_ptr<const LowRankPrior>> priors_;
  std::unique_ptr<InducingClassPart> part_;
  double setup_seconds_ = 0;
};

}  // namespace

ClassBootstrapPrior::~ClassBootstrapPrior() = default;

std::unique_ptr<ClassBootstrapPrior> make_class_prior(const Problem& problem) {
  if (problem.inducing) return std::make_unique<InducingClassPrior>(problem);
  return std::make_unique<DenseClassPrior>(problem);
}

}  // namespace quench::adatap
