// The C-class ADATAP on the inducing-point prior (inducing_class_part.h) against the dense
// engine's computation of the same quantities on K~ formed explicitly: the Gaussian part (eq M4)
// at arbitrary sites, eq M9 at new inputs, the whole fixed point; every training input inducing
// against the exact prior; the model against the fixed point and through its file.
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "class_model.h"
#include "class_solver.h"
#include "class_test_problem.h"
#include "inducing_class_model.h"
#include "inducing_class_part.h"
#include "model_round_trip.h"
#include "quench/class_kernels.h"
#include "quench/class_results.h"
#include "quench/inducing_points.h"
#include "quench/low_rank_prior.h"

namespace quench::adatap::inducing_class_test {
namespace {

using namespace quench::adatap::class_test;

double max_abs(const MatrixXd& a) { return a.cwiseAbs().maxCoeff(); }

std::vector<std::shared_ptr<Kernel>> kernels(bool per_class) {
  if (!per_class) return {std::make_shared<testing::TestKernel>(2.0, 1.0, 0.0)};
  return {std::make_shared<testing::TestKernel>(2.0, 1.0, 0.0),
          std::make_shared<testing::TestKernel>(0.8, 0.6, 0.0),
          std::make_shared<testing::TestKernel>(3.0, 1.6, 0.0)};
}

// The inducing-point priors of each kernel on m rows of X (every third), and K~ of each densely.
struct Priors {
  std::vector<std::unique_ptr<LowRankPrior>> owned;
  std::vector<const LowRankPrior*> priors;
  std::vector<MatrixXd> dense;
  Priors(const std::vector<std::shared_ptr<Kernel>>& k, const MatrixXd& X, Index m,
         LowRankForm form) {
    InducingInputs z;
    z.form = form;
    z.Z.resize(m, X.cols());
    for (Index j = 0; j < m; ++j) z.Z.row(j) = X.row((X.rows() / m) * j);
    for (const auto& kernel : k) {
      owned.push_back(std::make_unique<LowRankPrior>(*kernel, X, z));
      priors.push_back(owned.back().get());
      dense.push_back(owned.back()->dense());
    }
  }
};

// Sites of the replica model at random: Delta lambda_i and -lambda_i positive semidefinite.
ClassSolution random_sites(Index n, Index c, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> z;
  ClassSolution s;
  s.dl.resize(c, c * n);
  s.lam.resize(c, c * n);
  s.gamma.resize(n, c);
  for (Index i = 0; i < n; ++i) {
    MatrixXd B(c, c), E(c, c);
    for (Index j = 0; j < B.size(); ++j) {
      B(j) = 0.6 * z(gen);
      E(j) = 0.3 * z(gen);
    }
    s.dl.middleCols(i * c, c) = B * B.transpose();
    s.lam.middleCols(i * c, c) = -E * E.transpose();
    for (Index a = 0; a < c; ++a) s.gamma(i, a) = z(gen);
  }
  return s;
}

constexpr LowRankForm kForms[] = {LowRankForm::fitc, LowRankForm::vfe, LowRankForm::sor};

// Eq M4 and eq M9 at arbitrary sites: the header's algebra against the dense G on K~.
TEST(InducingClassAdatap, GaussianPartAndPredictiveAreTheDenseAlgebraOnTheInducingPrior) {
  MatrixXd X, Xt;
  Eigen::VectorXi y, yt;
  clouds(27, 3, 1.5, 3, X, y);
  clouds(11, 3, 1.5, 4, Xt, yt);
  for (const bool per_class : {false, true})
    for (const LowRankForm form : kForms) {
      SCOPED_TRACE(std::string(per_class ? "per class " : "shared ") + to_string(form));
      const auto k = kernels(per_class);
      const Priors p(k, X, 7, form);
      ClassSolution a = random_sites(27, 3, 11), b = a;
      InducingClassPart part(p.priors, 3);
      part(a);
      class_gaussian_part(class_grams(p.dense), b);
      // Both O(1); the dense side's rounding is ~1e-13 (orders 81 and 21).
      EXPECT_LT(max_abs(a.m - b.m), 1e-10);
      EXPECT_LT(max_abs(a.V - b.V), 1e-10);
      EXPECT_LT(max_abs(a.C - b.C), 1e-10);
      EXPECT_GT(max_abs(a.C), 1e-2);  // a real spread
      VectorXd diagonal = VectorXd::Zero(27);
      for (const MatrixXd& K : p.dense) diagonal = diagonal.cwiseMax(K.diagonal());
      EXPECT_LT((part.variance() - diagonal).cwiseAbs().maxCoeff(), 1e-12);
      // Eq M9: the dense formula with Q(X, x) = U u(x) and k~(x, x) = |u(x)|^2 + r(x).
      std::vector<MatrixXd> lower;
      for (const LowRankPrior* q : p.priors) lower.push_back(q->inducing_cholesky().lower());
      const std::shared_ptr<Kernel> kernel =
          per_class ? std::make_shared<ClassKernels>(k) : k.front();
      const InducingClassFeatures u =
          inducing_class_features(*kernel, p.priors.front()->inducing_inputs(), lower, form, Xt);
      std::vector<MatrixXd> kx;
      std::vector<VectorXd> kxx;
      for (std::size_t j = 0; j < k.size(); ++j) {
        kx.push_back(p.priors[j]->factor() * u.features[j].transpose());
        kxx.push_back(u.features[j].rowwise().squaredNorm() + u.residual.col(Index(j)));
      }
      const ClassPredictive dense = class_predictive(b, kx, kxx);
      const ClassPredictive sparse = inducing_class_predictive(part.weights(), u, 3);
      EXPECT_LT(max_abs(sparse.mean - dense.mean), 1e-10);
      EXPECT_LT(max_abs(sparse.within - dense.within), 1e-10);
      EXPECT_LT(max_abs(sparse.spread - dense.spread), 1e-10);
    }
}

// The fixed point on the inducing-point prior is the dense solver's on K~: the same map, so
// the same fixed point within the iterations' tolerance (1e-11 relative), with a kernel per
// class.
TEST(InducingClassAdatap, FixedPointIsTheDenseOneOnTheInducingPrior) {
  const auto lik = probit_c();
  const Occupation occ = poisson(1.0);
  MatrixXd X;
  Eigen::VectorXi y;
  clouds(18, 3, 1.5, 5, X, y);
  for (const LowRankForm form : {LowRankForm::fitc, LowRankForm::vfe}) {
    SCOPED_TRACE(to_string(form));
    // On VFE (K~ = Q of rank M) with 4-9 of these 18 inputs inducing, neither this solver nor
    // the dense one on Q reaches a fixed point (docs/adatap_multiclass.md); 12 are enough.
    const Priors p(kernels(true), X, form == LowRankForm::fitc ? 6 : 12, form);
    InducingClassPart part(p.priors, 3);
    const ClassSolution a = solve_classes([&part](ClassSolution& s) { part(s); }, part.variance(),
                                          y, 3, lik, occ, tight());
    const ClassSolution b = solve_classes(class_grams(p.dense), y, 3, lik, occ, tight());
    ASSERT_TRUE(a.converged) << a.message;
    ASSERT_TRUE(b.converged) << b.message;
    // Measured ~1e-12.
    EXPECT_LT(max_abs(a.m - b.m), 1e-9);
    EXPECT_LT(max_abs(a.V - b.V), 1e-9);
    EXPECT_LT(max_abs(a.C - b.C), 1e-9);
    EXPECT_LT(max_abs(a.gammac - b.gammac), 1e-8);
  }
}

struct InducingProblem : ClassProblem {
  InducingProblem(int n, int m, Index inducing, LowRankForm form, bool per_class)
      : ClassProblem(n, m, 3, 1.0, 31) {
    if (per_class) problem.kernel = std::make_shared<ClassKernels>(kernels(true));
    auto z = std::make_shared<InducingInputs>();
    z->form = form;
    z->Z.resize(inducing, 2);
    for (Index j = 0; j < inducing; ++j) z->Z.row(j) = data.X_train.row(j * (n / inducing));
    problem.inducing = std::move(z);
  }
};

Results run_adatap_tight(const Problem& p) {
  return AdatapBootstrap(Params(AdatapBootstrap::schema(), {{"site_tolerance", 1e-9}})).run(p);
}

// Every training input inducing (FITC, M = N): K~ = K up to the jitter (1e-8 of the mean
// diagonal), so the engine's outputs are the exact prior's.
TEST(InducingClassAdatap, EveryInputInducingIsTheExactPrior) {
  InducingProblem f(21, 8, 21, LowRankForm::fitc, false);
  const Results sparse = run_adatap_tight(f.problem);
  f.problem.inducing.reset();
  const Results dense = run_adatap_tight(f.problem);
  ASSERT_EQ(sparse.status.code, RunStatus::ok) << sparse.status.message;
  ASSERT_EQ(dense.status.code, RunStatus::ok) << dense.status.message;
  EXPECT_EQ(sparse.scalars.at("inducing_count"), 21);
  // The jitter moves the prior by ~1e-8 relative; measured <= 3e-7 in the outputs.
  EXPECT_NEAR(sparse.scalars.at("bootstrap_log_loss"), dense.scalars.at("bootstrap_log_loss"),
              1e-5);
  for (const char* name :
       {"train_prediction_mean", "train_prediction_covariance", "prediction_probability"})
    EXPECT_LT(max_abs(sparse.matrices.at(name) - dense.matrices.at(name)), 1e-5) << name;
}

// The model on SoR (no residual at the training inputs nor at new ones): at the training
// inputs eq M9 is the fixed point's m, V and C; through its file it predicts the same bits;
// the run's test outputs are its predictions. With one kernel and a kernel per class.
TEST(InducingClassAdatap, TheModelIsTheFixedPointAtTrainingInputsAndSurvivesItsFile) {
  for (const bool per_class : {false, true}) {
    SCOPED_TRACE(per_class);
    InducingProblem f(24, 10, 12, LowRankForm::sor, per_class);
    f.problem.make_model = true;
    expect_model_is_the_fixed_point_and_survives_its_file(f, run_adatap_tight(f.problem),
                                                          "sparse_adatap_multiclass", 1e-9);
  }
}

}  // namespace
}  // namespace quench::adatap::inducing_class_test
