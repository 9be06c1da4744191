// The C-class ADATAP (docs/adatap_multiclass.md) against independent computations of the same
// quantities: one training point (the cavity is the prior: the average over k of multiclass_ep's
// counted fits on that point), a deterministic occupation (no bootstrap spread: multiclass_ep's
// retrain with every point counted K times), two classes (the binary ADATAP of the probit on
// f0 - f1, general_solver.h) and Monte-Carlo retrains of multiclass_ep (mc_bootstrap).
#include <cmath>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "adatap_bootstrap.h"
#include "bootstrap_resamplers.h"
#include "class_model.h"
#include "class_solver.h"
#include "class_test_problem.h"
#include "general_solver.h"
#include "mc_bootstrap.h"
#include "model_round_trip.h"
#include "multiclass_ep.h"
#include "multinomial_probit_likelihood.h"
#include "probit_likelihood.h"
#include "quench/class_kernels.h"
#include "quench/class_results.h"
#include "test_kernel.h"

namespace quench::adatap::class_solver_test {
namespace {

using namespace quench::adatap::class_test;
using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

multiclass::MulticlassEpOptions tight_ep() {
  multiclass::MulticlassEpOptions o;
  o.tol = 1e-12;
  o.max_iterations = 5000;
  return o;
}

double max_abs(const MatrixXd& a) { return a.cwiseAbs().maxCoeff(); }

// N = 1: the cavity of the only point is the prior N(0, K11 I), so the bootstrap mean is
// sum_k p_k of the posterior mean of the point counted k times (multiclass_ep's counted fit on
// that one point, its own sweeps) and the bootstrap covariance the spread of those means: eq M8
// with nothing approximated (no u: lambda_c = 0).
TEST(ClassAdatap, OneTrainingPointIsTheAverageOfItsCountedFits) {
  const auto lik = probit_c();
  const Index C = 3;
  MatrixXd K(1, 1);
  K << 1.7;
  const Eigen::VectorXi y = Eigen::VectorXi::Constant(1, 2);
  const Occupation occ = poisson(1.3);
  const ClassSolution s = solve_classes(K, y, C, lik, occ, tight());
  ASSERT_TRUE(s.converged) << s.message;
  VectorXd mean = VectorXd::Zero(C);
  MatrixXd second = MatrixXd::Zero(C, C), within = MatrixXd::Zero(C, C);
  for (Index k = 0; k < occ.pmf.size(); ++k) {
    VectorXd a = VectorXd::Zero(C);
    MatrixXd v = 1.7 * MatrixXd::Identity(C, C);
    if (k > 0) {
      const multiclass::MulticlassFit fit = multiclass::solve_multiclass_ep(
          K, y, C, lik, tight_ep(), nullptr, VectorXd::Constant(1, static_cast<double>(k)));
      ASSERT_EQ(fit.status.code, RunStatus::ok) << fit.status.message;
      a = fit.posterior.mean.row(0).transpose();
      v = fit.posterior.marginals;
    }
    mean += occ.pmf(k) * a;
    second += occ.pmf(k) * a * a.transpose();
    within += occ.pmf(k) * v;
  }
  // Measured 3e-13; both sides are converged to 1e-11 relative.
  EXPECT_LT(max_abs(s.m.row(0).transpose() - mean), 1e-10);
  EXPECT_LT(max_abs(s.V - within), 1e-10);
  EXPECT_LT(max_abs(s.C - (second - mean * mean.transpose())), 1e-10);
}

// p_k = delta_{k,K}: every sample is the data with each point K times, so the bootstrap
// spread is 0 (lambda = 0) and the fixed point is multiclass_ep's retrain on counts K; with one
// kernel and with a kernel per class (amplitudes 0.7-3, length scales 0.6-1.5).
TEST(ClassAdatap, DeterministicOccupationIsTheCountedRetrain) {
  const auto lik = probit_c();
  MatrixXd X;
  Eigen::VectorXi y;
  clouds(15, 3, 1.5, 5, X, y);
  const std::vector<MatrixXd> shared = {gram(X, 2.0, 1.0)},
                              per_class = {gram(X, 2.0, 1.0), gram(X, 0.7, 0.6), gram(X, 3.0, 1.5)};
  for (const std::vector<MatrixXd>* K : {&shared, &per_class})
    for (const int copies : {1, 2}) {
      SCOPED_TRACE(K->size());
      Occupation occ;
      occ.pmf = VectorXd::Zero(copies + 1);
      occ.pmf(copies) = 1.0;
      const ClassSolution s = solve_classes(class_grams(*K), y, 3, lik, occ, tight());
      ASSERT_TRUE(s.converged) << s.message;
      const multiclass::MulticlassFit fit = multiclass::solve_multiclass_ep(
          class_grams(*K), y, 3, lik, tight_ep(), nullptr, VectorXd::Constant(y.size(), copies));
      ASSERT_EQ(fit.status.code, RunStatus::ok) << fit.status.message;
      // Measured 3e-11 (two iterations, each to ~1e-11 of a map with rate ~0.5).
      EXPECT_LT(max_abs(s.m - fit.posterior.mean), 1e-9) << copies;
      EXPECT_LT(max_abs(s.V - fit.posterior.marginals), 1e-9) << copies;
      EXPECT_LT(max_abs(s.C), 1e-12) << copies;
      EXPECT_LT(max_abs(s.lam), 1e-12) << copies;
    }
}

// Two classes: p(y = 0 | f) = Phi((f0 - f1) / sqrt 2), so the difference d = f0 - f1 (prior 2K)
// is the binary probit classifier with noise variance 2. With k in {0, 1} (subsampling) each
// k-fold site is the exact tilted density, as in the binary ADATAP, and the product rule of 20
// Gauss-Hermite nodes in the one direction of the spread is the binary rule: the same fixed
// point, within the two iterations' tolerance.
TEST(ClassAdatap, TwoClassesAreTheBinaryBootstrapOfTheDifference) {
  const auto lik = probit_c();
  MatrixXd X;
  Eigen::VectorXi y;
  clouds(14, 2, 1.0, 7, X, y);
  const MatrixXd K = gram(X, 1.5, 1.2);
  Occupation occ;
  occ.pmf.resize(2);
  occ.pmf << 0.4, 0.6;
  const ClassSolution s = solve_classes(K, y, 2, lik, occ, tight(), {ClassRule::Kind::product, 20});
  ASSERT_TRUE(s.converged) << s.message;
  const likelihoods::ProbitLikelihood probit(2.0, 0.0);
  const VectorXd labels = (1.0 - 2.0 * y.cast<double>().array()).matrix();  // class 0 -> +1
  GeneralOptions o = tight();
  o.hermite_nodes = 20;
  const GeneralSolution b = solve_general(MatrixXd(2.0 * K), labels, probit, occ, o);
  ASSERT_TRUE(b.converged) << b.message;
  const VectorXd e = (VectorXd(2) << 1.0, -1.0).finished();
  for (Index i = 0; i < y.size(); ++i) {
    // Measured <= 1.5e-10 (both iterations to 1e-11).
    EXPECT_NEAR(s.m(i, 0) - s.m(i, 1), b.m(i), 1e-8) << i;
    EXPECT_NEAR(e.dot(s.V.middleCols(2 * i, 2) * e), b.V(i), 1e-8) << i;
    EXPECT_NEAR(e.dot(s.C.middleCols(2 * i, 2) * e), b.C(i), 1e-8) << i;
    // The common direction f0 + f1 is the prior's: no data, no bootstrap spread.
    const VectorXd one = VectorXd::Ones(2);
    EXPECT_NEAR(one.dot(s.C.middleCols(2 * i, 2) * one), 0.0, 1e-9) << i;
  }
}

Results run_adatap(const Problem& p) {
  return AdatapBootstrap(Params(AdatapBootstrap::schema(), {{"site_tolerance", 1e-8}})).run(p);
}

// Against 1000 Monte-Carlo retrains of multiclass_ep: the bootstrap 0/1 error within 4.5
// combined standard errors (the retrains' and ADATAP's own u-draws) + 0.02, the budget of the
// binary test (adatap_classifier_test.cpp) for the replica approximation; the bootstrap log
// loss within 4.5 standard errors + 5 %; the bootstrap mean of every class probability at the
// test inputs within 4.5 standard errors + 0.03 (the binary test's budget for E[p(+1 | x)]).
TEST(ClassAdatap, AgreesWithMonteCarloRetrainsOfTheJointClassifier) {
  ClassProblem f(30, 12, 3, 1.0, 21);
  const Results a = run_adatap(f.problem);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  const Results mc = mc_bootstrap::McBootstrap(
                         Params(mc_bootstrap::McBootstrap::schema(),
                                {{"samples", std::int64_t{1000}}, {"inner", "multiclass_ep"}}))
                         .run(f.problem);
  ASSERT_EQ(mc.status.code, RunStatus::ok) << mc.status.message;
  const auto scalar = [](const Results& r, const char* name) { return r.scalars.at(name); };
  const double se =
      std::hypot(scalar(mc, "bootstrap_error_stderr"), scalar(a, "bootstrap_error_stderr"));
  EXPECT_NEAR(scalar(a, "bootstrap_error"), scalar(mc, "bootstrap_error"), 4.5 * se + 0.02);
  const double loss = scalar(mc, "bootstrap_log_loss");
  EXPECT_NEAR(scalar(a, "bootstrap_log_loss"), loss,
              4.5 * scalar(mc, "bootstrap_log_loss_stderr") + 0.05 * loss);
  const MatrixXd& pa = a.matrices.at("prediction_probability");
  const MatrixXd& pm = mc.matrices.at("prediction_probability");
  const MatrixXd& ps = mc.matrices.at("prediction_probability_stderr");
  ASSERT_EQ(pa.rows(), pm.rows());
  for (Index x = 0; x < pa.rows(); ++x)
    for (Index c = 0; c < pa.cols(); ++c)
      EXPECT_NEAR(pa(x, c), pm(x, c), 4.5 * ps(x, c) + 0.03) << x << "," << c;
  EXPECT_LT((pa.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
  // The bootstrap variance of the class probabilities (eq M10) against the retrains' (sd^2 =
  // T stderr^2), summed over inputs and classes: measured 0.87 of it (M10's Gaussian f^_x
  // misses the skew of probabilities near 0 or 1; per entry 0.6-1.1). Budget 25 %: that
  // approximation plus 4.5 relative standard errors of a variance estimate over 1000 samples
  // (sqrt(2 / 999) = 4.5 %, less after summing).
  const double retrains = (ps.cwiseAbs2() * 1000.0).sum();
  EXPECT_NEAR(a.matrices.at("prediction_probability_variance").sum() / retrains, 1.0, 0.25);
  // The u-draws come from the pipeline seed: one thread gives the same bits.
  Problem one = f.problem;
  one.context.threads = 1;
  const Results b = run_adatap(one);
  EXPECT_EQ(b.scalars.at("bootstrap_error"), scalar(a, "bootstrap_error"));
  EXPECT_EQ(b.matrices.at("prediction_probability"), pa);
}

// The model (eqs M9-M10): at the training inputs eq M9 is the fixed point's own m, V and C
// (X = P e_i turns Xᵀ(γ − D m), k(x, x) − Xᵀ(D − DGD)X and −AᵀΛA into m_i, G_ii and C_i:
// another computation of M4); through a model file it predicts the same bits, and the run's
// test outputs are its predictions.
// With one kernel, and with a kernel per class (the model's K_c(X, x) per class against the
// fit's blockdiag(K_c)).
TEST(ClassAdatap, TheModelIsTheFixedPointAtTrainingInputsAndSurvivesItsFile) {
  for (const bool per_class : {false, true}) {
    SCOPED_TRACE(per_class);
    ClassProblem f(24, 10, 3, 1.0, 31);
    if (per_class)
      f.problem.kernel = std::make_shared<ClassKernels>(std::vector<std::shared_ptr<Kernel>>{
          std::make_shared<testing::TestKernel>(2.0, 1.0, 0.0),
          std::make_shared<testing::TestKernel>(0.8, 0.6, 0.0),
          std::make_shared<testing::TestKernel>(3.0, 1.6, 0.0)});
    f.problem.make_model = true;
    const Results r = run_adatap(f.problem);
    expect_model_is_the_fixed_point_and_survives_its_file(
        f, r, "adatap_multiclass", 1e-9 * max_abs(r.matrices.at("train_prediction_mean")));
  }
}

// C equal kernels are the one kernel they repeat: the same fixed point, class by class, so the
// same outputs to rounding (1e-12).
TEST(ClassAdatap, EqualKernelsPerClassAreTheSharedKernel) {
  ClassProblem f(24, 10, 3, 1.0, 31);
  const Results shared = run_adatap(f.problem);
  f.problem.kernel = std::make_shared<ClassKernels>(
      std::vector<std::shared_ptr<Kernel>>{std::make_shared<testing::TestKernel>(2.0, 1.0, 0.0),
                                           std::make_shared<testing::TestKernel>(2.0, 1.0, 0.0),
                                           std::make_shared<testing::TestKernel>(2.0, 1.0, 0.0)});
  const Results each = run_adatap(f.problem);
  ASSERT_EQ(shared.status.code, RunStatus::ok) << shared.status.message;
  ASSERT_EQ(each.status.code, RunStatus::ok) << each.status.message;
  for (const char* name : {"bootstrap_error", "bootstrap_log_loss"})
    EXPECT_NEAR(each.scalars.at(name), shared.scalars.at(name), 1e-12) << name;
  for (const char* name : {"prediction_probability", "left_out_probability"})
    EXPECT_LT(max_abs(each.matrices.at(name) - shared.matrices.at(name)), 1e-12) << name;
}

// Small samples (S/N = 0.05) of data whose third class has two points: most samples hold no
// point of it. The answer is a converged fixed point with finite outputs or a status, never a
// NaN read as a result.
TEST(ClassAdatap, SmallSamplesWithARareClassGiveFiniteOutputsOrAStatus) {
  ClassProblem f(22, 6, 3, 0.05, 8);
  for (Index i = 0; i < f.data.y_train.size(); ++i)
    if (f.data.y_train(i) == 2 && i > 5) f.data.y_train(i) = static_cast<double>(i % 2);
  const Results a = run_adatap(f.problem);
  ASSERT_TRUE(a.status.code == RunStatus::ok || a.status.code == RunStatus::not_converged)
      << a.status.message;
  if (a.status.code == RunStatus::ok) {
    EXPECT_TRUE(std::isfinite(a.scalars.at("bootstrap_error")));
    EXPECT_TRUE(std::isfinite(a.scalars.at("bootstrap_log_loss")));
    EXPECT_TRUE(a.matrices.at("prediction_probability").allFinite());
  } else {
    EXPECT_EQ(a.scalars.count("bootstrap_error"), 0u);
    EXPECT_FALSE(a.status.message.empty());
  }
}

}  // namespace
}  // namespace quench::adatap::class_solver_test
