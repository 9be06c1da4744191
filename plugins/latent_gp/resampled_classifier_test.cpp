// Bootstrap retrains of the classifiers (resampled_classifier.h): all counts 1 is the engine's
// own fit, counts 0 are the engine's fit on the data without those rows, and EP with counted
// sites is exact where the k-fold sites are Gaussian.
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include "toy_models.h"

#include "ep.h"
#include "mean_field.h"
#include "probit_likelihood.h"
#include "quench/errors.h"
#include "resampled_classifier.h"
#include "test_clouds.h"
#include "test_engines.h"

namespace quench::latent_gp::resampled_classifier_test {
namespace {

// Two overlapping Gaussian clouds in 2-D (centres 1.5 apart).
Dataset toy(int n, int n_test, unsigned seed) {
  return test_support::toy_clouds(n, n_test, 1.5, seed);
}

// The classification guide's model: the probit (noise 0.3) on the noise-free latent.
Problem problem_for(const Dataset& d) {
  Problem p;
  p.data = &d;
  p.kernel = std::make_shared<testing::UnitSquaredExponential>();
  p.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(0.3, 0.0);
  return p;
}

// The engines with their fixed points tightly converged, so that the EP retrain of tap (tol
// 1e-12 on the posterior means) and the engine's own solver agree far below the 1e-8 checked.
std::shared_ptr<InferenceEngine> engine(const std::string& name) {
  if (name == "tap") {
    return std::make_shared<TapEngine>(
        Params(TapEngine::schema(), {{"ftol", 1e-26}, {"lambda_tol", 1e-13}}));
  }
  return make_classifier(name);
}

double max_abs(const Eigen::VectorXd& a) { return a.size() ? a.cwiseAbs().maxCoeff() : 0.0; }

TEST(ResampledClassifier, AllCountsOneIsTheEnginesOwnFit) {
  const Dataset d = toy(30, 12, 3);
  const Problem p = problem_for(d);
  const Eigen::VectorXd t = d.y_train;
  for (const char* name : {"ep", "tap", "svm_limit"}) {
    SCOPED_TRACE(name);
    const auto e = engine(name);
    const Results r = e->run(p);
    ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
    const auto model = e->prepare_resampling(p);
    ASSERT_TRUE(model);
    EXPECT_TRUE(model->kernel_expansion());
    Eigen::VectorXd a;
    const Eigen::VectorXd f = model->predict(Eigen::VectorXd::Ones(30), &a);
    ASSERT_EQ(f.size(), 42);
    EXPECT_LT(max_abs(f.head(30) - r.vectors.at("mean_field")), 1e-8);
    EXPECT_LT(max_abs(f.tail(12) - r.vectors.at("test_mean_field")), 1e-8);
    EXPECT_LT(max_abs(a - t.cwiseProduct(r.vectors.at("alpha"))), 1e-8);
  }
}

// The retrain on counts with zeros against the engine run on the kept rows, with the dropped
// rows moved to the test inputs (so that its test outputs give <f> there too).
TEST(ResampledClassifier, ZeroCountsDropThePoints) {
  const int n = 30, m = 12;
  const Dataset d = toy(n, m, 4);
  const Problem p = problem_for(d);
  Eigen::VectorXd counts = Eigen::VectorXd::Ones(n);
  std::vector<int> kept, dropped;
  for (int i = 0; i < n; ++i) {
    if (i % 3 == 1 || i == 4) counts(i) = 0;
    (counts(i) > 0 ? kept : dropped).push_back(i);
  }
  const auto nk = static_cast<Eigen::Index>(kept.size()),
             nd = static_cast<Eigen::Index>(dropped.size());
  Dataset sub;
  sub.X_train.resize(nk, 2);
  sub.y_train.resize(nk);
  sub.X_test.resize(nd + m, 2);
  for (Eigen::Index a = 0; a < nk; ++a) {
    sub.X_train.row(a) = d.X_train.row(kept[std::size_t(a)]);
    sub.y_train(a) = d.y_train(kept[std::size_t(a)]);
  }
  for (Eigen::Index b = 0; b < nd; ++b) sub.X_test.row(b) = d.X_train.row(dropped[std::size_t(b)]);
  sub.X_test.bottomRows(m) = d.X_test;
  const Problem q = problem_for(sub);
  for (const char* name : {"ep", "tap", "svm_limit"}) {
    SCOPED_TRACE(name);
    const auto e = engine(name);
    const Results r = e->run(q);
    ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
    Eigen::VectorXd a;
    const Eigen::VectorXd f = e->prepare_resampling(p)->predict(counts, &a);
    const Eigen::VectorXd& h = r.vectors.at("mean_field");
    const Eigen::VectorXd& hx = r.vectors.at("test_mean_field");
    const Eigen::VectorXd ta = sub.y_train.cwiseProduct(r.vectors.at("alpha"));
    for (Eigen::Index k = 0; k < nk; ++k) {
      EXPECT_NEAR(f(kept[std::size_t(k)]), h(k), 1e-8);
      EXPECT_NEAR(a(kept[std::size_t(k)]), ta(k), 1e-8);
    }
    for (Eigen::Index b = 0; b < nd; ++b) {
      EXPECT_NEAR(f(dropped[std::size_t(b)]), hx(b), 1e-8);
      EXPECT_EQ(a(dropped[std::size_t(b)]), 0.0);
    }
    EXPECT_LT(max_abs(f.tail(m) - hx.tail(m)), 1e-8);
  }
}

TEST(ResampledClassifier, EmptySampleIsThePriorMean) {
  const Dataset d = toy(8, 3, 5);
  const Problem p = problem_for(d);
  Eigen::VectorXd a;
  const Eigen::VectorXd f =
      engine("ep")->prepare_resampling(p)->predict(Eigen::VectorXd::Zero(8), &a);
  EXPECT_EQ(f, Eigen::VectorXd::Zero(11));
  EXPECT_EQ(a, Eigen::VectorXd::Zero(8));
}

TEST(ResampledClassifier, RefusesWeightsThatAreNotCounts) {
  const Dataset d = toy(8, 0, 6);
  const Problem p = problem_for(d);
  Eigen::VectorXd w = Eigen::VectorXd::Ones(8);
  w(3) = 0.5;
  EXPECT_THROW(engine("ep")->prepare_resampling(p)->predict(w), ConfigError);
}

// The hard-margin SVM sees only which points were drawn: Theta(t h - 1)^k = Theta(t h - 1).
TEST(ResampledClassifier, SvmRetrainIgnoresMultiplicity) {
  const Dataset d = toy(12, 4, 7);
  const Problem p = problem_for(d);
  Eigen::VectorXd once = Eigen::VectorXd::Ones(12), several = once;
  once(5) = several(5) = 0;
  several(2) = 2;
  several(9) = 3;
  const auto model = engine("svm_limit")->prepare_resampling(p);
  EXPECT_EQ(model->predict(several), model->predict(once));
}

// EP with one site per point and k_i-fold site moments, where the sites are Gaussian:
// N(y; f, s^2)^k is N(y; f, s^2/k) up to a constant, the tilted moments are closed form and EP is
// exact: <f> = C (C + diag(s^2/k))^{-1} y, the GP regression with noise s^2/k_i (dense LDLT).
TEST(ResampledClassifier, EpWithKFoldGaussianSitesIsTheExactPosterior) {
  const Dataset d = toy(20, 0, 8);
  const Eigen::MatrixXd C = testing::UnitSquaredExponential().cross(d.X_train, d.X_train);
  const double s2 = 0.4;
  Eigen::VectorXi k(20);
  Eigen::VectorXd y(20);
  for (int i = 0; i < 20; ++i) {
    k(i) = 1 + i % 4;
    y(i) = d.y_train(i) + 0.3 * std::sin(3.0 * i);
  }
  const SiteTiltedMoments gaussian_power = [&](Eigen::Index i, double m, double v) {
    const double noise = s2 / k(i), var = 1.0 / (1.0 / v + 1.0 / noise);
    TiltedMoments tm;
    tm.variance = var;
    tm.mean = var * (m / v + y(i) / noise);
    tm.log_z = -0.5 * (std::log(2 * M_PI * (v + noise)) + (y(i) - m) * (y(i) - m) / (v + noise));
    return tm;
  };
  EpOptions o;
  o.tol = 1e-13;
  const MeanFieldFit fit = solve_ep(DenseSitePrior::viewing(C), gaussian_power, o);
  ASSERT_EQ(fit.status.code, RunStatus::ok) << fit.status.message;
  Eigen::MatrixXd A = C;
  for (int i = 0; i < 20; ++i) A(i, i) += s2 / k(i);
  const Eigen::VectorXd exact = C * A.ldlt().solve(y);
  EXPECT_LT(max_abs(fit.mean_field - exact), 1e-9);
}

}  // namespace
}  // namespace quench::latent_gp::resampled_classifier_test
