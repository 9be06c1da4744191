// A kernel per class (quench/class_kernels.h) in multiclass_ep against independent
// computations: C equal kernels against the one kernel they repeat (the fit, log Z_EP, its
// gradient summed over the classes' blocks, the built-in leave-one-out, the test probabilities),
// every block's gradient against central differences, the model at the training inputs
// against the fit's posterior marginals, and the saved model against the run; on the
// inducing-point prior, its gradient and every input inducing against the exact prior. (The
// exact prior's algebra against the dense CN x CN form: multiclass_ep_test.cpp; the
// inducing-point prior's against each class's prior formed densely: inducing_multiclass_test.)
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "multiclass_ep.h"
#include "multiclass_model.h"
#include "multiclass_prior.h"
#include "one_vs_rest.h"
#include "probit_likelihood.h"
#include "quench/class_kernels.h"
#include "test_class_clouds.h"
#include "test_engines.h"

namespace quench::multiclass {
namespace {

using test_support::class_clouds;
using test_support::every;
using test_support::labels_of;
using test_support::max_relative;
using test_support::probit_c;
using testing::TestKernel;

using Theta = std::array<double, 3>;  // TestKernel's amplitude, length scale, noise

std::shared_ptr<ClassKernels> per_class(const std::vector<Theta>& theta) {
  std::vector<std::shared_ptr<Kernel>> parts;
  for (const Theta& t : theta) parts.push_back(std::make_shared<TestKernel>(t[0], t[1], t[2]));
  return std::make_shared<ClassKernels>(std::move(parts));
}

// The objective's gradient at per_class(theta) against central differences of its values in
// every entry (fits to 1e-12, relative step 1e-5: truncation ~1e-10 and rounding ~1e-11
// relative, so 1e-6 relative is a bound with margin, as for the shared kernel).
void expect_gradient_of_every_block_matches_central_differences(HyperparameterObjective& objective,
                                                                const Likelihood& lik,
                                                                const std::vector<Theta>& theta) {
  const ObjectiveValue v = objective.evaluate(*per_class(theta), lik);
  ASSERT_EQ(v.status.code, RunStatus::ok) << v.status.message;
  // The kernels' entries first (a likelihood's may follow).
  ASSERT_GE(v.gradient.size(), static_cast<Eigen::Index>(3 * theta.size()));
  for (std::size_t c = 0; c < theta.size(); ++c)
    for (std::size_t j = 0; j < 3; ++j) {
      const double step = 1e-5 * theta[c][j];
      double values[2];
      for (int s = 0; s < 2; ++s) {
        std::vector<Theta> moved = theta;
        moved[c][j] += s ? step : -step;
        const ObjectiveValue w = objective.evaluate(*per_class(moved), lik);
        ASSERT_EQ(w.status.code, RunStatus::ok) << w.status.message;
        values[s] = w.value;
      }
      const double fd = (values[1] - values[0]) / (2 * step);
      EXPECT_NEAR(v.gradient(static_cast<Eigen::Index>(3 * c + j)), fd,
                  1e-6 * std::max(1.0, std::abs(fd)))
          << "class " << c << ", entry " << j;
    }
}

Results run(const MulticlassEpEngine& engine, Dataset& d, std::shared_ptr<const Kernel> kernel) {
  Problem p;
  p.data = &d;
  p.kernel = std::move(kernel);
  p.likelihood = probit_c();
  const Results r = engine.run(p);
  EXPECT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  return r;
}

// Equal kernels give the shared kernel's algebra class by class (the same K_c); only the
// gradient's sum over classes is formed in another order, so 1e-12 relative bounds rounding.
TEST(KernelPerClass, EqualKernelsAreTheSharedKernel) {
  Dataset d = class_clouds(30, 12, 3, 1.5, 17);
  const Theta theta = {2.0, 1.0, 0.01};
  const auto shared = std::make_shared<TestKernel>(theta[0], theta[1], theta[2]);
  const auto equal = per_class({theta, theta, theta});
  const MulticlassEpEngine engine(Params(MulticlassEpEngine::schema(), {}));
  const Results a = run(engine, d, shared), b = run(engine, d, equal);
  EXPECT_NEAR(b.scalars.at("log_evidence"), a.scalars.at("log_evidence"),
              1e-12 * std::abs(a.scalars.at("log_evidence")));
  for (const char* m : {"latent_mean", "loo_probability", "test_probability"})
    EXPECT_LT(max_relative(b.matrices.at(m), a.matrices.at(m)), 1e-12) << m;

  const MulticlassEpEngine learning(
      Params(MulticlassEpEngine::schema(), {{"learning_tol", 1e-12}}));
  Problem p;
  p.data = &d;
  const auto lik = probit_c();
  p.likelihood = lik;
  const ObjectiveValue one =
      learning.hyperparameter_objective(p, "evidence")->evaluate(*shared, *lik);
  const ObjectiveValue each =
      learning.hyperparameter_objective(p, "evidence")->evaluate(*equal, *lik);
  ASSERT_EQ(one.status.code, RunStatus::ok) << one.status.message;
  ASSERT_EQ(each.status.code, RunStatus::ok) << each.status.message;
  EXPECT_NEAR(each.value, one.value, 1e-12 * std::abs(one.value));
  // theta shared by every class: d/dtheta = sum_c d/dtheta_c.
  ASSERT_EQ(each.gradient.size(), 9);
  const Eigen::VectorXd summed = each.gradient.reshaped(3, 3).rowwise().sum();
  EXPECT_LT(max_relative(summed, one.gradient), 1e-12);
}

// Bootstrap retrains (mc_bootstrap's and exact_loo's route) with C equal kernels are the shared
// kernel's, the empty retrain (the prior predictive from each class's kernel) included; with
// different kernels the empty retrain is the likelihood's predictive at diag(K_c(x, x) + v2_c).
TEST(KernelPerClass, RetrainsWithEqualKernelsAreTheSharedKernels) {
  Dataset d = class_clouds(24, 6, 3, 1.5, 31);
  const MulticlassEpEngine engine(Params(MulticlassEpEngine::schema(), {}));
  Problem p;
  p.data = &d;
  p.likelihood = probit_c();
  const Theta theta = {2.0, 1.0, 0.01};
  p.kernel = std::make_shared<TestKernel>(theta[0], theta[1], theta[2]);
  const auto shared = engine.prepare_resampling(p);
  p.kernel = per_class({theta, theta, theta});
  const auto equal = engine.prepare_resampling(p);
  Eigen::VectorXd counts(24);
  for (Eigen::Index i = 0; i < 24; ++i) counts(i) = static_cast<double>((i * 7) % 4);
  for (const Eigen::VectorXd& w : {counts, Eigen::VectorXd(Eigen::VectorXd::Zero(24))})
    EXPECT_LT(max_relative(equal->predict(w, nullptr), shared->predict(w, nullptr)), 1e-12);
  p.kernel = per_class({{0.5, 1.0, 0.0}, {2.0, 1.0, 0.0}, {8.0, 1.0, 0.0}});
  const Eigen::VectorXd prior = engine.prepare_resampling(p)->predict(Eigen::VectorXd::Zero(24));
  const Eigen::VectorXd expected = probit_c()->predictive(
      Eigen::VectorXd::Zero(3), Eigen::Vector3d(0.5, 2.0, 8.0).asDiagonal().toDenseMatrix());
  EXPECT_LT(max_relative(prior.head(3), expected), 1e-12);
  // The widest latent most often holds the largest value: the classes' kernels are in use.
  EXPECT_GT(expected(2), expected(0) + 0.1);
}

// Every block of three different kernels against central differences of each objective: log
// Z_EP and the built-in LOO (class_loo_objective.h: W's class blocks reach each kernel). The
// fits sweep to 1e-12 (loo's to tol, the evidence's to learning_tol).
TEST(KernelPerClass, GradientsOfEveryBlockMatchCentralDifferences) {
  Dataset d = class_clouds(24, 0, 3, 1.5, 9);
  const MulticlassEpEngine engine(Params(
      MulticlassEpEngine::schema(), {{"tol", 1e-12}, {"learning_tol", 1e-12}, {"damping", 0.8}}));
  Problem p;
  p.data = &d;
  const auto lik = probit_c();
  p.likelihood = lik;
  for (const char* objective : {"evidence", "loo"}) {
    SCOPED_TRACE(objective);
    expect_gradient_of_every_block_matches_central_differences(
        *engine.hyperparameter_objective(p, objective), *lik,
        {{1.5, 0.9, 0.02}, {0.7, 1.6, 0.05}, {3.0, 0.5, 0.01}});
  }
}

// The model's predictive at the training inputs (K_c(X, x) per class) is the fit's posterior
// (class_posterior on the K_c): means and C x C marginals to rounding of two routes, 1e-9.
// Without diagonal noise, which the Gram matrices have and K_c(X, x) has not.
TEST(KernelPerClass, ModelAtTheTrainingInputsIsTheFitsPosterior) {
  Dataset d = class_clouds(30, 0, 3, 1.5, 21);
  const auto kernel = per_class({{1.0, 0.7, 0.0}, {2.5, 1.5, 0.0}, {0.6, 0.9, 0.0}});
  const Eigen::VectorXi y = labels_of(d);
  const auto prior = make_multiclass_prior(*kernel, d.X_train, nullptr, 1);
  const MulticlassFit fit =
      solve_multiclass_ep(prior->classes(), y, 3, *probit_c(), MulticlassEpOptions{});
  ASSERT_EQ(fit.status.code, RunStatus::ok) << fit.status.message;
  const auto model =
      std::dynamic_pointer_cast<const MulticlassModel>(prior->model(kernel, probit_c(), y, fit));
  ASSERT_TRUE(model);
  const ClassLatents f = model->latents(d.X_train);
  EXPECT_LT(max_relative(f.mean, fit.posterior.mean), 1e-9);
  EXPECT_LT(max_relative(f.covariance, fit.posterior.marginals), 1e-9);
}

TEST(KernelPerClass, SavedModelPredictsBitwise) {
  Dataset d = class_clouds(30, 9, 3, 2.0, 13);
  const MulticlassEpEngine engine(Params(MulticlassEpEngine::schema(), {}));
  Problem p;
  p.data = &d;
  p.kernel = per_class({{2.0, 1.0, 0.01}, {1.0, 0.5, 0.01}, {3.0, 2.0, 0.01}});
  p.likelihood = probit_c();
  p.make_model = true;
  const Results r = engine.run(p);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  test_support::expect_saved_model_predicts_bitwise(engine, r, p, 3);
}

// Every block's gradient on the inducing-point prior (FITC with its diagonal term, and VFE)
// against central differences, as on the exact prior.
TEST(KernelPerClass, InducingEvidenceGradientOfEveryBlockMatchesCentralDifferences) {
  for (const LowRankForm form : {LowRankForm::fitc, LowRankForm::vfe}) {
    SCOPED_TRACE(to_string(form));
    Dataset d = class_clouds(30, 0, 3, 1.5, 27);
    const MulticlassEpEngine engine(
        Params(MulticlassEpEngine::schema(), {{"learning_tol", 1e-12}, {"damping", 0.8}}));
    Problem p;
    p.data = &d;
    const auto lik = probit_c();
    p.likelihood = lik;
    p.inducing = every(d, 3, form);
    expect_gradient_of_every_block_matches_central_differences(
        *engine.hyperparameter_objective(p, "evidence"), *lik,
        {{1.5, 0.9, 0.02}, {0.7, 1.6, 0.05}, {3.0, 0.5, 0.01}});
  }
}

// With every training input inducing, FITC's priors are the exact K_c (up to K_mm's jitter),
// so the run predicts as the exact prior's at new inputs (1e-5, as with one kernel), and its
// saved model (L_c per class) predicts the same bits.
TEST(KernelPerClass, InducingRunWithEveryInputInducingIsTheExactOneAndSavesItsModel) {
  Dataset d = class_clouds(30, 12, 3, 2.0, 25);
  const MulticlassEpEngine engine(Params(MulticlassEpEngine::schema(), {{"tol", 1e-11}}));
  Problem p;
  p.data = &d;
  p.kernel = per_class({{2.0, 1.0, 0.01}, {1.0, 0.6, 0.01}, {3.0, 1.8, 0.02}});
  p.likelihood = probit_c();
  p.make_model = true;
  const Results exact = engine.run(p);
  p.inducing = every(d, 1, LowRankForm::fitc);
  const Results sparse = engine.run(p);
  ASSERT_EQ(exact.status.code, RunStatus::ok) << exact.status.message;
  ASSERT_EQ(sparse.status.code, RunStatus::ok) << sparse.status.message;
  EXPECT_LT(
      max_relative(sparse.matrices.at("test_probability"), exact.matrices.at("test_probability")),
      1e-5);
  test_support::expect_saved_model_predicts_bitwise(engine, sparse, p, 3);
}

// One-vs-rest's summed objective with a kernel per class (class c's problem on its kernel; the
// fits against ep on each problem: multiclass_ep_test.cpp): every kernel block's gradient, and
// the likelihood's noise entry after them (summed over the classes), against central
// differences (the same budget).
TEST(KernelPerClass, OneVsRestObjectiveGradientOfEveryBlockMatchesCentralDifferences) {
  Dataset d = class_clouds(30, 8, 3, 1.5, 17);
  Problem p;
  p.data = &d;
  p.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(1.0, 0.0);
  p.context.make_engine = latent_gp::latent_gp_engines();
  const one_vs_rest::OneVsRestEngine ovr(
      Params(one_vs_rest::OneVsRestEngine::schema(), {{"inner", std::string("ep")}}));
  const std::vector<Theta> theta = {{2.0, 1.0, 0.05}, {0.7, 0.5, 0.05}, {3.0, 2.0, 0.05}};
  const auto objective = ovr.hyperparameter_objective(p, "evidence");
  expect_gradient_of_every_block_matches_central_differences(*objective, *p.likelihood, theta);
  const ObjectiveValue v = objective->evaluate(*per_class(theta), *p.likelihood);
  ASSERT_EQ(v.gradient.size(), 10);  // 9 kernel entries, then the probit's noise
  const double noise = 1.0, step = 1e-5;
  double values[2];
  for (int s = 0; s < 2; ++s)
    values[s] = objective
                    ->evaluate(*per_class(theta),
                               likelihoods::ProbitLikelihood(noise + (s ? step : -step), 0.0))
                    .value;
  const double fd = (values[1] - values[0]) / (2 * step);
  EXPECT_NEAR(v.gradient(9), fd, 1e-6 * std::max(1.0, std::abs(fd)));
}

}  // namespace
}  // namespace quench::multiclass
