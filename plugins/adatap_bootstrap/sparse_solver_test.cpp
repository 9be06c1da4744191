// The inducing-point ADATAP solver (sparse_solver.h) against the dense solver run on the same
// prior K~ formed explicitly, against exact ADATAP when every training input is an inducing
// input, and its eq-65 CG and eq-57 predictions against dense linear algebra; the engine's
// inducing-point path and its refusals.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/LU>

#include "toy_models.h"

#include "adatap_bootstrap.h"
#include "bootstrap_resamplers.h"
#include "quench/errors.h"
#include "quench/inducing_points.h"
#include "quench/losses.h"
#include "quench/model_archive.h"
#include "site_equations.h"
#include "sparse_solver.h"

namespace quench::adatap::sparse_solver_test {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

double relative(const VectorXd& a, const VectorXd& b) { return (a - b).norm() / b.norm(); }

// Poisson(1) occupation numbers (000 eq 15, S = N) truncated where the pmf is below 1e-16.
Occupation poisson_occupation() {
  Occupation occ;
  occ.pmf.resize(19);
  double p = std::exp(-1.0);
  for (int k = 0; k < occ.pmf.size(); ++k) {
    occ.pmf(k) = p;
    p /= k + 1;
  }
  return occ;
}

// A 3-D regression problem: smooth function plus noise, N training inputs.
struct Data {
  MatrixXd X;
  VectorXd y;
  explicit Data(Eigen::Index n, unsigned seed = 11) : X(n, 3), y(n) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < 3; ++j) X(i, j) = normal(rng);
      y(i) = std::sin(1.5 * X(i, 0)) * std::cos(X(i, 1)) + 0.5 * X(i, 2) + 0.2 * normal(rng);
    }
  }
};

InducingInputs greedy(const Kernel& k, const MatrixXd& X, Eigen::Index m, LowRankForm form) {
  InducingSpec spec;
  spec.count = m;
  spec.form = form;
  return select_inducing_inputs(k, X, spec, 5);
}

// Tight enough that both iterations end within ~1e-10 of the common fixed point.
SolverOptions tight() {
  SolverOptions o;
  o.tolerance = 1e-10;
  o.max_iterations = 1000;
  o.anderson_depth = 3;
  return o;
}

constexpr double kS2 = 0.04;

class SparseAgainstDense : public ::testing::TestWithParam<LowRankForm> {};

// (a) The same equations on the same prior: the sparse solver against `solve` on K~ =
// prior.dense().
TEST_P(SparseAgainstDense, SolvesTheDenseEquationsOnTheSamePrior) {
  const Data data(240);
  const testing::UnitSquaredExponential kernel;
  const LowRankPrior prior(kernel, data.X, greedy(kernel, data.X, 30, GetParam()));
  const Occupation occ = poisson_occupation();
  const SparseSolution sparse = solve_sparse(prior, data.y, kS2, occ, tight());
  const Solution dense = solve(prior.dense(), data.y, kS2, occ, tight());
  ASSERT_TRUE(sparse.sites.converged) << sparse.sites.message;
  ASSERT_TRUE(dense.converged) << dense.message;
  EXPECT_EQ(sparse.sites.G.size(), 0);  // never formed
  const Solution& s = sparse.sites;
  // Both stop within 1e-10 (relative change) of the same fixed point, so they agree to ~1e-9
  // at worst (measured ~1e-12, the round-off of two different G algebras).
  constexpr double tol = 1e-8;
  EXPECT_LT(relative(s.dl, dense.dl), tol);
  EXPECT_LT(relative(s.dlc, dense.dlc), tol);
  EXPECT_LT(relative(s.m, dense.m), tol);
  EXPECT_LT(relative(s.train_variance, dense.train_variance), tol);
  EXPECT_LT(relative(s.gammac, dense.gammac), tol);
  EXPECT_LT(relative(s.lamc, dense.lamc), tol);
  const double eps_sparse = test_error_square(s, data.y),
               eps_dense = test_error_square(dense, data.y);
  EXPECT_NEAR(eps_sparse, eps_dense, tol * eps_dense);  // eq 53
  auto loss = [](double d) { return eps_insensitive_loss(d, 0.1, 0.1); };
  const double eps54 = test_error(dense, data.y, loss);
  EXPECT_NEAR(test_error(s, data.y, loss), eps54, tol * eps54);  // eq 54
  // The A.2 start value on eig(U^T U) + mean(Lambda) is exact for SoR: eig(K~) is that set.
  if (GetParam() == LowRankForm::sor) {
    EXPECT_NEAR(s.start_dl, dense.start_dl, 1e-10 * dense.start_dl);
  }
}

// (b) Eq 57 at new inputs: the predictor from the features u(x) against the dense formula with
// G of the dense solution on K~ and the cross-covariance Q_nx = U u(x) formed explicitly.
TEST_P(SparseAgainstDense, PredictsNewInputsAsTheDenseFormula) {
  const Data data(200), fresh(40, 99);
  const testing::UnitSquaredExponential kernel;
  const LowRankPrior prior(kernel, data.X, greedy(kernel, data.X, 25, GetParam()));
  const Occupation occ = poisson_occupation();
  const SparseSolution sparse = solve_sparse(prior, data.y, kS2, occ, tight());
  const Solution dense = solve(prior.dense(), data.y, kS2, occ, tight());
  const MatrixXd features = prior.features(fresh.X);
  VectorXd mean, variance;
  regression_predictor(prior, sparse, data.y).predict(features, mean, variance);

  const MatrixXd kx = prior.factor() * features.transpose();       // Q_nx, N x 40
  const MatrixXd V = kx - dense.G * (dense.dl.asDiagonal() * kx);  // T^T k(x)
  const VectorXd mean_ref = V.transpose() * dense.gamma;
  const VectorXd variance_ref = -(V.cwiseAbs2().transpose() * dense.lam);
  // As (a): both solutions agree to ~1e-9 and eq 57 is linear in them (measured ~1e-13).
  EXPECT_LT(relative(mean, mean_ref), 1e-8);
  EXPECT_LT(relative(variance, variance_ref), 1e-8);
  EXPECT_GT(variance.minCoeff(), 0.0);
}

// Too few iterations: a status with its reason, and finite outputs (never NaN).
TEST(SparseSolver, NonConvergenceIsAStatus) {
  const Data data(120);
  const testing::UnitSquaredExponential kernel;
  const LowRankPrior prior(kernel, data.X, greedy(kernel, data.X, 15, LowRankForm::fitc));
  SolverOptions o = tight();
  o.max_iterations = 2;
  const SparseSolution sparse = solve_sparse(prior, data.y, kS2, poisson_occupation(), o);
  EXPECT_FALSE(sparse.sites.converged);
  EXPECT_NE(sparse.sites.message.find("not converged after 2 iterations"), std::string::npos);
  EXPECT_TRUE(sparse.sites.lamc.allFinite());
  EXPECT_TRUE(sparse.sites.train_variance.allFinite());
  EXPECT_TRUE(std::isfinite(test_error_square(sparse.sites, data.y)));
}

// Approximate ADATAP is refused: eq 65's matrix need not be positive definite off the fixed
// point (here CG would fail where the dense solver falls back to LU).
TEST(SparseSolver, RefusesApproximateAdatap) {
  const Data data(100);
  const testing::UnitSquaredExponential kernel;
  const LowRankPrior prior(kernel, data.X, greedy(kernel, data.X, 10, LowRankForm::sor));
  SolverOptions o = tight();
  o.method = SolverOptions::Method::approximate;
  EXPECT_THROW(solve_sparse(prior, data.y, kS2, poisson_occupation(), o), ConfigError);
}

INSTANTIATE_TEST_SUITE_P(Forms, SparseAgainstDense,
                         ::testing::Values(LowRankForm::fitc, LowRankForm::sor),
                         [](const auto& info) { return to_string(info.param); });

// (c) M = N with every training input an inducing input: K~ = K up to the jitter, so the
// sparse solver reproduces exact ADATAP on K.
TEST(SparseSolver, AllTrainingInputsInducingReproduceExactAdatap) {
  const Data data(150);
  const testing::UnitSquaredExponential kernel;
  InducingInputs all;
  all.Z = data.X;
  all.form = LowRankForm::fitc;
  const LowRankPrior prior(kernel, data.X, all);
  const Occupation occ = poisson_occupation();
  const SparseSolution sparse = solve_sparse(prior, data.y, kS2, occ, tight());
  const Solution exact = solve(kernel.cross(data.X, data.X), data.y, kS2, occ, tight());
  ASSERT_TRUE(sparse.sites.converged) << sparse.sites.message;
  ASSERT_TRUE(exact.converged) << exact.message;
  // |K - K~| <= 2 jitter (Q = K (K + jI)^-1 K is within j of K, FITC restores the diagonal),
  // and G = T^T K T moves by at most about that relative to its scale s2: jitter / s2
  // (2.5e-7 here; measured differences ~1e-10).
  const double tol = prior.jitter() / kS2;
  EXPECT_LT(tol, 1e-4);  // the test is only meaningful for a small jitter
  EXPECT_LT(relative(sparse.sites.dl, exact.dl), tol);
  EXPECT_LT(relative(sparse.sites.m, exact.m), tol);
  EXPECT_LT(relative(sparse.sites.train_variance, exact.train_variance), tol);
  const double eps = test_error_square(exact, data.y);
  EXPECT_NEAR(test_error_square(sparse.sites, data.y), eps, tol * eps);
}

// (d) Eq 65: lambda from CG with (G o G) v products against a dense LU solve of
// (g - diag d) lambda = (m - y)^2 with g = G o G formed from the sparse solution's G.
TEST(SparseSolver, Eq65ConjugateGradientsMatchADenseSolve) {
  const Data data(260);
  const testing::UnitSquaredExponential kernel;
  const LowRankPrior prior(kernel, data.X, greedy(kernel, data.X, 40, LowRankForm::fitc));
  const Occupation occ = poisson_occupation();
  const SparseSolution sparse = solve_sparse(prior, data.y, kS2, occ, tight());
  const Solution& s = sparse.sites;
  ASSERT_TRUE(s.converged) << s.message;
  const KSums ksum(occ, kS2);
  const MatrixXd g = sparse.G.dense().cwiseAbs2();
  VectorXd d(s.dl.size());
  for (Eigen::Index i = 0; i < d.size(); ++i)  // d_i = H_i g_ii / (H_i - g_ii) at the fixed point
    d(i) = s.H(i) * g(i, i) / ksum.variance(s.dlc(i));
  MatrixXd A = g;
  A.diagonal() -= d;
  const VectorXd lambda = A.partialPivLu().solve((s.m - data.y).cwiseAbs2());
  // CG stops at relative residual eq65_tolerance(1e-10) = 1e-12; cond(diag(d) - g) is O(10)
  // here (d_i > g_ii dominate).
  EXPECT_LT(relative(s.lam, lambda), 1e-9);
  EXPECT_GT(s.eq65_steps, 1);
  EXPECT_LT(s.eq65_steps, kEq65MaxSteps);
  // Eq 40 from the same system: -(g lambda)_i.
  EXPECT_LT(relative(s.train_variance, -(g * lambda)), 1e-9);
}

// The engine's inducing-point path: the dense path's outputs plus the prior's scalars, with
// values of the sparse solver; the saved model (classifiers: sparse_classifier_test.cpp).
struct EngineFixture {
  Dataset data;
  Problem problem;
  EngineFixture() {
    const Data train(180), test(30, 21);
    data.X_train = train.X;
    data.y_train = train.y;
    data.X_test = test.X;
    data.y_test = test.y;
    problem.data = &data;
    problem.kernel = std::make_shared<testing::UnitSquaredExponential>();
    problem.likelihood = std::make_shared<testing::NoiseOnlyGaussian>(kS2);
    auto resampler = std::make_shared<resamplers::PoissonBootstrap>(
        Params(resamplers::PoissonBootstrap::schema(), {{"ratio", 1.0}}));
    resampler->prepare(180);
    problem.resampler = resampler;
    problem.inducing = std::make_shared<const InducingInputs>(
        greedy(*problem.kernel, data.X_train, 20, LowRankForm::fitc));
  }
};

AdatapBootstrap engine() {
  return AdatapBootstrap(Params(AdatapBootstrap::schema(), {{"tolerance", 1e-9}}));
}

TEST(SparseEngine, ReportsTheDenseOutputsFromTheSparseSolver) {
  const EngineFixture f;
  const Results r = engine().run(f.problem);
  EXPECT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  EXPECT_EQ(r.scalars.at("inducing_count"), 20);
  EXPECT_GT(r.scalars.at("inducing_jitter"), 0);
  const LowRankPrior prior(*f.problem.kernel, f.data.X_train, *f.problem.inducing);
  SolverOptions o;
  o.tolerance = 1e-9;
  o.anderson_depth = 3;
  const Occupation occ = occupation_of(*f.problem.resampler, 1e-12);
  const SparseSolution sol = solve_sparse(prior, f.data.y_train, kS2, occ, o);
  // The same solver with the same options: equal up to summation order.
  EXPECT_NEAR(r.scalars.at("test_error_square"), test_error_square(sol.sites, f.data.y_train),
              1e-12);
  EXPECT_LT(relative(r.vectors.at("train_prediction_mean"), sol.sites.m), 1e-12);
  for (const char* name : {"test_error_eps_insensitive", "iterations", "eq65_cg_steps"})
    EXPECT_TRUE(r.scalars.count(name)) << name;
  for (const char* name :
       {"train_prediction_variance", "delta_lambda", "delta_lambda_c", "gamma_c", "lambda_c",
        "prediction_mean", "prediction_variance", "predictor_density_edges"})
    EXPECT_TRUE(r.vectors.count(name)) << name;
  EXPECT_EQ(r.vectors.at("prediction_mean").size(), 30);
  EXPECT_TRUE(r.matrices.count("predictor_density_bins"));
}

// The saved model (O(M^2) entries) read back predicts the engine's own test outputs to the bit
// (the same operations on the same numbers), and the engine's read_model finds its kind.
TEST(SparseEngine, SavedModelPredictsAsTheRun) {
  EngineFixture f;
  f.problem.make_model = true;
  const Results r = engine().run(f.problem);
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), "sparse_adatap_bootstrap");
  ModelArchive archive;
  r.model->write(archive);
  EXPECT_EQ(archive.matrix("posterior/variance_form").rows(), 20);
  const auto loaded = engine().read_model(
      archive, {f.problem.kernel, f.problem.likelihood, f.problem.resampler, &f.data.X_train});
  const Predictions p = loaded->predict(f.data.X_test);
  EXPECT_EQ(p.column("bootstrap_mean"), r.vectors.at("prediction_mean"));
  EXPECT_EQ(p.column("bootstrap_variance"), r.vectors.at("prediction_variance"));
}

}  // namespace
}  // namespace quench::adatap::sparse_solver_test
