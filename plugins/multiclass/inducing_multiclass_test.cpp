// Multi-class nested EP on the inducing-point prior (inducing_class_posterior.h) against
// independent computations: its posterior against the C + 1 factorization algebra run on the
// same prior formed densely, its fixed point against the dense solver on that prior (one kernel
// and a kernel per class), its
// predictions with every training input inducing against the exact model, its log Z gradient
// against central differences, and a saved model against the fit.
#include <cmath>
#include <memory>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "class_posterior.h"
#include "inducing_class_posterior.h"
#include "inducing_multiclass_model.h"
#include "multiclass_ep.h"
#include "multiclass_model.h"
#include "quench/errors.h"
#include "quench/model_archive.h"
#include "quench/site_prior.h"
#include "test_class_clouds.h"
#include "test_kernel.h"

namespace quench::multiclass {
namespace {

using test_support::class_clouds;
using test_support::every;
using test_support::labels_of;
using test_support::max_relative;
using test_support::probit_c;
using test_support::random_sites;
using testing::TestKernel;

MulticlassEpOptions tight() {
  MulticlassEpOptions o;
  o.tol = 1e-11;
  return o;
}

class EveryForm : public ::testing::TestWithParam<LowRankForm> {};

// Each kernel's inducing-point prior on the same inducing inputs (one kernel shared by every
// class, or a kernel per class), the class prior of them, and the same priors formed densely.
struct ClassSitePriors {
  ClassSitePriors(const std::vector<TestKernel>& kernels, const Eigen::MatrixXd& X,
                  const InducingInputs& z) {
    for (const TestKernel& k : kernels) sites.emplace_back(k, X, z);
    for (const InducingSitePrior& s : sites) {
      pointers.push_back(&s);
      formed.push_back(s.formed());
    }
  }
  InducingClassPrior prior() const { return InducingClassPrior(pointers); }
  ClassGrams grams() const { return class_grams(formed); }
  std::vector<InducingSitePrior> sites;
  std::vector<const InducingSitePrior*> pointers;
  std::vector<Eigen::MatrixXd> formed;
};

// One kernel, and a kernel per class (d_i and R_i per class, P's blocks U_c^T diag(w) U_k).
const std::vector<std::vector<TestKernel>> kKernelSets = {
    {TestKernel(2.0, 1.0, 0.01)},
    {TestKernel(2.0, 1.0, 0.01), TestKernel(0.7, 0.5, 0.03), TestKernel(4.0, 2.0, 0.0)}};

// The header's algebra against class_posterior on C~ = D + U U^T (each class's) formed densely
// (rounding of two different factorizations of matrices with entries O(1)-O(10): 1e-9).
TEST_P(EveryForm, PosteriorMatchesTheDenseAlgebraOnTheSamePrior) {
  const Dataset d = class_clouds(30, 0, 3, 2.0, 21);
  Eigen::MatrixXd pi, h;
  random_sites(labels_of(d), 3, 22, pi, h);
  for (const auto& kernels : kKernelSets) {
    SCOPED_TRACE(kernels.size());
    const ClassSitePriors priors(kernels, d.X_train, *every(d, 3, GetParam()));
    const ClassPosterior fast = priors.prior().posterior(pi, h, Precision::full);
    const ClassPosterior slow = class_posterior(priors.grams(), pi, h);
    EXPECT_LT(max_relative(fast.mean, slow.mean), 1e-9);
    EXPECT_LT(max_relative(fast.marginals, slow.marginals), 1e-9);
    EXPECT_NEAR(fast.log_det, slow.log_det, 1e-9 * std::abs(slow.log_det));
    EXPECT_TRUE(std::holds_alternative<InducingCoupling>(fast.coupling));
  }
}

// The fixed point is the prior's, whichever algebra computes the posterior: nested EP on the
// inducing-point prior against the dense solver on C~ (sweeps to 1e-11: sites and log Z 1e-7).
TEST_P(EveryForm, FixedPointEqualsDenseEpOnTheSamePrior) {
  const Dataset d = class_clouds(36, 0, 3, 1.5, 23);
  const Eigen::VectorXi y = labels_of(d);
  const auto lik = probit_c();
  for (const auto& kernels : kKernelSets) {
    SCOPED_TRACE(kernels.size());
    const ClassSitePriors priors(kernels, d.X_train, *every(d, 4, GetParam()));
    const MulticlassFit fast = solve_multiclass_ep(priors.prior(), y, 3, *lik, tight());
    const MulticlassFit slow = solve_multiclass_ep(priors.grams(), y, 3, *lik, tight());
    ASSERT_EQ(fast.status.code, RunStatus::ok) << fast.status.message;
    ASSERT_EQ(slow.status.code, RunStatus::ok) << slow.status.message;
    EXPECT_LT(max_relative(fast.cavity_mean, slow.cavity_mean), 1e-7);
    EXPECT_LT(max_relative(fast.cavity_covariance, slow.cavity_covariance), 1e-7);
    EXPECT_NEAR(multiclass_log_evidence(y, fast), multiclass_log_evidence(y, slow), 1e-7);
  }
}

INSTANTIATE_TEST_SUITE_P(InducingMulticlass, EveryForm,
                         ::testing::Values(LowRankForm::fitc, LowRankForm::vfe, LowRankForm::sor),
                         [](const auto& info) { return to_string(info.param); });

// With every training input inducing, FITC's C~ is K (up to the jitter 1e-8 of K_mm's mean
// diagonal), so the model predicts as the exact one at new inputs (1e-5: the jitter moves the
// fit by ~1e-8 relative, amplified by the conditioning of K).
TEST(InducingMulticlassModel, PredictsAsTheExactModelWhenEveryInputIsInducing) {
  const Dataset d = class_clouds(30, 12, 3, 2.0, 25);
  const auto kernel = std::make_shared<TestKernel>(2.0, 1.0, 0.01);
  const auto lik = probit_c();
  const InducingSitePrior sites(*kernel, d.X_train, *every(d, 1, LowRankForm::fitc));
  const Eigen::VectorXi y = labels_of(d);
  const MulticlassFit fast = solve_multiclass_ep(InducingClassPrior(sites), y, 3, *lik, tight());
  const MulticlassFit slow = solve_multiclass_ep(kernel->gram(d.X_train), y, 3, *lik, tight());
  ASSERT_EQ(fast.status.code, RunStatus::ok);
  ASSERT_EQ(slow.status.code, RunStatus::ok);
  const ClassLatents a =
      InducingMulticlassModel::from_fit(kernel, lik, {&sites}, fast)->latents(d.X_test);
  const ClassLatents b =
      MulticlassModel::from_fit(kernel, lik, d.X_train, y, slow)->latents(d.X_test);
  EXPECT_LT(max_relative(a.mean, b.mean), 1e-5);
  EXPECT_LT(max_relative(a.covariance, b.covariance), 1e-5);
}

// log Z_EP's gradient (inducing_class_evidence_gradient through low_rank_kernel_gradient, the
// kernel's noise entry through D) against central differences of converged fits, FITC (with
// its diagonal term) and VFE.
TEST(InducingMulticlassEp, EvidenceGradientMatchesCentralDifferences) {
  for (const LowRankForm form : {LowRankForm::fitc, LowRankForm::vfe}) {
    Dataset d = class_clouds(30, 0, 3, 1.5, 27);
    MulticlassEpEngine engine(
        Params(MulticlassEpEngine::schema(), {{"learning_tol", 1e-12}, {"damping", 0.8}}));
    Problem p;
    p.data = &d;
    const auto lik = probit_c();
    p.likelihood = lik;
    p.inducing = every(d, 3, form);
    auto objective = engine.hyperparameter_objective(p, "evidence");
    SCOPED_TRACE(to_string(form));
    test_support::expect_gradient_matches_central_differences(*objective, *lik, {1.5, 0.9, 0.02});
  }
}

// A bootstrap retrain counts a point drawn k times k times on its one latent (and, with FITC,
// its one residual e_i): its fixed point against the dense solver with the same counts on the
// same prior formed densely, C~ = D + U U^T on the drawn points (as the first test; 1e-8 on
// fits converged to 1e-11).
TEST_P(EveryForm, CountedFixedPointIsTheDenseSolversOnTheSamePrior) {
  const Dataset d = class_clouds(24, 0, 3, 1.5, 31);
  const TestKernel kernel(2.0, 1.0, 0.01);
  const InducingSitePrior sites(kernel, d.X_train, *every(d, 3, GetParam()));
  const Eigen::VectorXi y = labels_of(d);
  Eigen::VectorXd counts(y.size());
  for (Eigen::Index i = 0; i < counts.size(); ++i) counts(i) = 1.0 + static_cast<double>(i % 3);
  const auto lik = probit_c();
  const MulticlassFit fast =
      solve_multiclass_ep(InducingClassPrior(sites), y, 3, *lik, tight(), nullptr, counts);
  const MulticlassFit slow =
      solve_multiclass_ep(sites.formed(), y, 3, *lik, tight(), nullptr, counts);
  ASSERT_EQ(fast.status.code, RunStatus::ok) << fast.status.message;
  ASSERT_EQ(slow.status.code, RunStatus::ok) << slow.status.message;
  EXPECT_LT(max_relative(fast.posterior.mean, slow.posterior.mean), 1e-8);
  EXPECT_LT(max_relative(fast.posterior.marginals, slow.posterior.marginals), 1e-8);
}

// Retrains (prepare_resampling) with every training input inducing, where K~ = K up to the
// jitter of K(Z, Z) (1e-8 of its mean diagonal), against the exact prior's retrains: the
// class probabilities of bootstrap counts (0 to 3) and of leaving each of 3 points out, at the
// training and test inputs, within 1e-6 (measured 5e-9). SoR's predictive at a test input
// leaves out k(x, x) - |u(x)|^2 (low_rank_predictor.h): there its probabilities are its own.
TEST_P(EveryForm, RetrainsWithEveryInputInducingAreTheExactPriors) {
  Dataset d = class_clouds(24, 8, 3, 1.5, 33);
  MulticlassEpEngine engine(Params(MulticlassEpEngine::schema(), {{"tol", 1e-11}}));
  Problem exact;
  exact.data = &d;
  exact.kernel = std::make_shared<TestKernel>(2.0, 1.0, 0.0);
  exact.likelihood = probit_c();
  Problem sparse = exact;
  sparse.inducing = every(d, 1, GetParam());
  const auto dense_retrains = engine.prepare_resampling(exact);
  const auto sparse_retrains = engine.prepare_resampling(sparse);
  std::vector<Eigen::VectorXd> samples;
  Eigen::VectorXd counts(24);
  for (Eigen::Index i = 0; i < 24; ++i) counts(i) = static_cast<double>((i * 7) % 4);
  samples.push_back(counts);
  for (Eigen::Index left_out : {0, 9, 17}) {
    Eigen::VectorXd once = Eigen::VectorXd::Ones(24);
    once(left_out) = 0.0;
    samples.push_back(once);
  }
  for (const Eigen::VectorXd& w : samples) {
    const Eigen::VectorXd a = dense_retrains->predict(w, nullptr);
    const Eigen::VectorXd b = sparse_retrains->predict(w, nullptr);
    ASSERT_EQ(a.size(), 3 * 32);
    const Eigen::Index compared = GetParam() == LowRankForm::sor ? 3 * 24 : a.size();
    EXPECT_LT((a - b).head(compared).cwiseAbs().maxCoeff(), 1e-6);
  }
}

// The engine on the inducing-point prior: its outputs and a saved model that predicts bitwise
// as the fit's.
TEST(InducingMulticlassEp, RunSavesAModelThatPredictsBitwise) {
  Dataset d = class_clouds(40, 10, 4, 2.0, 29);
  MulticlassEpEngine engine(Params(MulticlassEpEngine::schema(), {}));
  Problem p;
  p.data = &d;
  p.kernel = std::make_shared<TestKernel>(2.0, 1.0, 0.01);
  p.likelihood = probit_c();
  p.inducing = every(d, 4, LowRankForm::fitc);
  p.make_model = true;
  const Results r = engine.run(p);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  EXPECT_EQ(r.matrices.at("loo_probability").rows(), 40);
  EXPECT_TRUE(std::isfinite(r.scalars.at("log_evidence")));
  test_support::expect_saved_model_predicts_bitwise(engine, r, p, 4);
}

}  // namespace
}  // namespace quench::multiclass
