// The ADATAP bootstrap of a GP classifier on the inducing-point prior (general_solver.h,
// solve_general on a LowRankPrior): against the dense general solver run on the same prior K~
// formed explicitly, its model at new inputs against eqs 19-21 computed densely with the
// cross-covariance U u(x), the saved model against the in-memory one, and with every training
// input inducing against the dense engine.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include "model_round_trip.h"
#include "toy_models.h"

#include "adatap_bootstrap.h"
#include "bootstrap_resamplers.h"
#include "general_solver.h"
#include "probit_likelihood.h"
#include "quench/inducing_points.h"
#include "quench/normal.h"

namespace quench::adatap::sparse_classifier_test {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

double relative(const VectorXd& a, const VectorXd& b) { return (a - b).norm() / b.norm(); }

// Two overlapping classes in 2-D, labels -1/+1.
void two_classes(Eigen::Index n, unsigned seed, MatrixXd& X, VectorXd& y) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> z;
  X.resize(n, 2);
  y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    y(i) = i % 2 == 0 ? 1.0 : -1.0;
    X(i, 0) = 0.9 * y(i) + z(gen);
    X(i, 1) = z(gen);
  }
}

InducingInputs greedy(const Kernel& k, const MatrixXd& X, Eigen::Index m, LowRankForm form) {
  InducingSpec spec;
  spec.count = m;
  spec.form = form;
  return select_inducing_inputs(k, X, spec, 5);
}

Occupation poisson_occupation() {  // S = N, normalized over k <= 12 as the engine does
  Occupation occ;
  occ.pmf.resize(13);
  double p = std::exp(-1.0);
  for (int k = 0; k < occ.pmf.size(); ++k) {
    occ.pmf(k) = p;
    p /= k + 1;
  }
  occ.pmf /= occ.pmf.sum();
  return occ;
}

class SparseClassifierAgainstDense : public ::testing::TestWithParam<LowRankForm> {};

// The same iteration on the same prior: every step takes V, m and C from diag(e) + W W^T
// instead of the dense G, which differ by round-off only, so both follow the same path to the
// same fixed point.
TEST_P(SparseClassifierAgainstDense, SolvesTheDenseEquationsOnTheSamePrior) {
  MatrixXd X;
  VectorXd y;
  two_classes(100, 3, X, y);
  const testing::UnitSquaredExponential kernel;
  const LowRankPrior prior(kernel, X, greedy(kernel, X, 25, GetParam()));
  const likelihoods::ProbitLikelihood probit(0.1, 0.0);
  GeneralOptions o;
  o.tolerance = 1e-11;
  o.max_iterations = 2000;
  const SparseGeneralSolution sparse = solve_general(prior, y, probit, poisson_occupation(), o);
  const GeneralSolution dense = solve_general(prior.dense(), y, probit, poisson_occupation(), o);
  ASSERT_TRUE(sparse.sites.converged) << sparse.sites.message;
  ASSERT_TRUE(dense.converged) << dense.message;
  const GeneralSolution& s = sparse.sites;
  EXPECT_EQ(s.G.size(), 0);  // never formed
  EXPECT_EQ(s.iterations, dense.iterations);
  // Both stop within 1e-11 of the same fixed point along the same path: they agree to the
  // round-off of the two G algebras carried through the iteration (measured <= 3e-14).
  constexpr double tol = 1e-10;
  EXPECT_LT(relative(s.dl, dense.dl), tol);
  EXPECT_LT(relative(s.gamma, dense.gamma), tol);
  EXPECT_LT(relative(s.lam, dense.lam), tol);
  EXPECT_LT(relative(s.m, dense.m), tol);
  EXPECT_LT(relative(s.V, dense.V), tol);
  EXPECT_LT(relative(s.C, dense.C), tol);
  EXPECT_LT(relative(s.gammac, dense.gammac), tol);
  EXPECT_LT(relative(s.lamc, dense.lamc), tol);
  // The final G itself.
  EXPECT_LT((sparse.G.dense() - dense.G).cwiseAbs().maxCoeff(), tol * dense.G.norm());
}

INSTANTIATE_TEST_SUITE_P(Forms, SparseClassifierAgainstDense,
                         ::testing::Values(LowRankForm::fitc, LowRankForm::vfe, LowRankForm::sor),
                         [](const auto& info) { return to_string(info.param); });

// The engine on a classification problem with an inducing: block.
struct Fixture {
  Dataset data;
  Problem problem;
  Fixture(Eigen::Index n, Eigen::Index m, Eigen::Index inducing, LowRankForm form) {
    two_classes(n, 4, data.X_train, data.y_train);
    two_classes(m, 8, data.X_test, data.y_test);
    problem.data = &data;
    problem.kernel = std::make_shared<testing::UnitSquaredExponential>();
    problem.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(0.1, 0.0);
    auto r = std::make_shared<resamplers::PoissonBootstrap>(
        Params(resamplers::PoissonBootstrap::schema(), {{"ratio", 1.0}}));
    r->prepare(n);
    problem.resampler = r;
    problem.context.threads = 2;
    problem.inducing = std::make_shared<const InducingInputs>(
        greedy(*problem.kernel, data.X_train, inducing, form));
  }
};

AdatapBootstrap engine() {
  return AdatapBootstrap(Params(AdatapBootstrap::schema(), {{"site_tolerance", 1e-10}}));
}

// Eqs 19-21 at new inputs from the O(M^2) model against the dense model's formulas with the
// site parameters of the run, G formed from them and the cross-covariance Q_nx = U u(x).
TEST_P(SparseClassifierAgainstDense, ModelIsEqsNineteenToTwentyOneOnThePrior) {
  Fixture f(120, 10, 20, GetParam());
  f.problem.make_model = true;
  const Results r = engine().run(f.problem);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), "sparse_adatap_classifier");
  EXPECT_EQ(r.scalars.at("inducing_count"), 20);
  for (const char* name : {"bootstrap_error", "iterations", "final_change"})
    EXPECT_TRUE(r.scalars.count(name)) << name;
  for (const char* name : {"left_out_error", "left_out_probability", "train_prediction_mean",
                           "train_prediction_variance", "prediction_probability", "test_class",
                           "test_bootstrap_errors"})
    EXPECT_TRUE(r.vectors.count(name)) << name;

  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-3, 3);
  MatrixXd X(5000, 2);  // two blocks of new inputs
  for (Eigen::Index i = 0; i < X.size(); ++i) X(i) = u(gen);
  const Predictions p = r.model->predict(X);
  EXPECT_EQ(p.columns,
            (std::vector<std::string>{"bootstrap_mean", "bootstrap_variance",
                                      "within_sample_variance", "probability", "label"}));
  const Predictions t = r.model->predict(f.data.X_test);
  EXPECT_TRUE(t.column("probability") == r.vectors.at("prediction_probability"));

  const LowRankPrior prior(*f.problem.kernel, f.data.X_train, *f.problem.inducing);
  const VectorXd dl = r.vectors.at("delta_lambda");
  // gamma and lambda from site + cavity = the Gaussian part at the fixed point (eqs 35-37):
  // gamma = m / V - gamma_c, lambda = -C / V^2 - lambda_c with V = diag G.
  // G = (K~^-1 + D)^-1 = K~ - K~ D^1/2 (I + D^1/2 K~ D^1/2)^-1 D^1/2 K~ (K~ = Q is singular for
  // VFE and SoR).
  const MatrixXd K = prior.dense();
  const VectorXd sd = dl.cwiseSqrt();
  MatrixXd B = sd.asDiagonal() * K * sd.asDiagonal();
  B.diagonal().array() += 1.0;
  const MatrixXd SK = sd.asDiagonal() * K;
  const MatrixXd G = K - SK.transpose() * Eigen::LLT<MatrixXd>(B).solve(SK);
  const VectorXd V = G.diagonal();
  const VectorXd gamma =
      r.vectors.at("train_prediction_mean").cwiseQuotient(V) - r.vectors.at("gamma_c");
  const VectorXd lam = -r.vectors.at("train_prediction_variance").cwiseQuotient(V.cwiseAbs2()) -
                       r.vectors.at("lambda_c");
  const MatrixXd features = prior.features(X);
  const MatrixXd kx = prior.factor() * features.transpose();  // Q_nx
  const MatrixXd DK = dl.asDiagonal() * kx;
  const MatrixXd T = kx - G * DK;  // T^T k(x)
  const VectorXd mean = T.transpose() * gamma;
  const VectorXd variance = -(T.cwiseAbs2().transpose() * lam);
  const VectorXd prior_variance = GetParam() == LowRankForm::sor
                                      ? VectorXd(features.rowwise().squaredNorm())
                                      : VectorXd::Ones(X.rows());  // the unit kernel
  const VectorXd within =
      (prior_variance - DK.cwiseProduct(T).colwise().sum().transpose()).cwiseMax(0.0);
  // The sites are the run's, G recomputed from dl: equal up to round-off (measured 1e-13).
  EXPECT_LT(relative(p.column("bootstrap_mean"), mean), 1e-9);
  EXPECT_LT(relative(p.column("bootstrap_variance"), variance), 1e-9);
  EXPECT_LT((p.column("within_sample_variance") - within).cwiseAbs().maxCoeff(), 1e-8);
  for (Eigen::Index i = 0; i < X.rows(); i += 97)
    EXPECT_NEAR(p.column("probability")(i),
                normal_cdf(mean(i) / std::sqrt(0.1 + within(i) + std::max(variance(i), 0.0))), 1e-7)
        << i;

  // Saved and loaded through a file: the same predictions to the bit.
  const auto loaded = testing::through_file(
      engine(), *r.model, {f.problem.kernel, f.problem.likelihood, nullptr, &f.data.X_train});
  EXPECT_EQ(loaded->kind(), "sparse_adatap_classifier");
  EXPECT_TRUE(loaded->predict(X).values == p.values);
}

// Every training input inducing (FITC, M = N): K~ = K up to the jitter (1e-8 of the mean
// diagonal, moved to Lambda by FITC), so the dense engine's outputs: measured 1e-8 at the
// training inputs and 3e-6 at the test inputs, whose features L^-1 K(Z, x) carry the jitter
// amplified by the condition of K(Z, Z).
TEST(SparseClassifier, AllInputsInducingIsTheDenseEngine) {
  Fixture f(60, 8, 60, LowRankForm::fitc);
  const Results sparse = engine().run(f.problem);
  f.problem.inducing.reset();
  const Results dense = engine().run(f.problem);
  ASSERT_EQ(sparse.status.code, RunStatus::ok) << sparse.status.message;
  ASSERT_EQ(dense.status.code, RunStatus::ok) << dense.status.message;
  EXPECT_NEAR(sparse.scalars.at("bootstrap_error"), dense.scalars.at("bootstrap_error"), 1e-6);
  for (const char* name : {"train_prediction_mean", "train_prediction_variance", "delta_lambda",
                           "prediction_mean", "prediction_variance", "prediction_probability"})
    EXPECT_LT(relative(sparse.vectors.at(name), dense.vectors.at(name)), 1e-5) << name;
}

TEST(SparseClassifier, KernelNoiseIsRefused) {
  Fixture f(20, 0, 5, LowRankForm::fitc);
  f.problem.kernel =
      std::make_shared<testing::ArdSquaredExponential>(Eigen::Vector2d(1.0, 1.0), 1.0, 0.05);
  EXPECT_THROW(engine().run(f.problem), ConfigError);
}

}  // namespace
}  // namespace quench::adatap::sparse_classifier_test
