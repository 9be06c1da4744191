// The variational bootstrap against independent computations: eq 9 of 002 (closed-form
// particles of a linear-Gaussian model have the exact posterior mean and covariance, checked
// within Monte-Carlo error), the shared factorization against per-particle refactorization,
// independence of the thread count, and the scores against a hand computation.
#include <cmath>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "calibration.h"
#include "dirichlet_likelihood.h"
#include "kernels.h"
#include "perturbation.h"
#include "quench/rng.h"
#include "rff_particles.h"
#include "vboot.h"

namespace quench::vboot::vboot_test {
namespace {

Eigen::MatrixXd gaussian_matrix(Eigen::Index r, Eigen::Index c, RngStream& rng) {
  Eigen::MatrixXd M(r, c);
  for (Eigen::Index j = 0; j < c; ++j)
    for (Eigen::Index i = 0; i < r; ++i) M(i, j) = rng.normal();
  return M;
}

class Eq9 : public ::testing::TestWithParam<bool> {};

TEST_P(Eq9, ParticlesHaveThePosteriorMeanAndCovariance) {
  const bool use_gram = GetParam();
  RngStream rng(21, 0);
  const Eigen::Index n = 40, D = 3, K = 20000;
  const double alpha2 = 0.7;
  const Eigen::MatrixXd Phi = gaussian_matrix(n, D, rng);
  RegressionTargets t{gaussian_matrix(n, 1, rng), Eigen::MatrixXd::Constant(n, 1, 2.0)};
  for (Eigen::Index i = 0; i < n; i += 3) t.variance(i, 0) = 0.3;  // heteroskedastic
  const Eigen::VectorXd p = t.variance.col(0).cwiseInverse();
  const Eigen::MatrixXd G = Phi.transpose() * Phi;
  const LinearGaussianPosterior post(Phi, p, alpha2, use_gram ? &G : nullptr);

  const PerturbationResampler perturbation(Params(PerturbationResampler::schema(), {}));
  Eigen::MatrixXd Yt(n, K), Wt(D, K);
  for (Eigen::Index k = 0; k < K; ++k) {
    RngStream r(5, static_cast<std::uint64_t>(k));
    const Perturbation d = perturbation.perturb(t, D, 1, alpha2, r);
    Yt.col(k) = d.targets.col(0);
    Wt.col(k) = d.prior_mean.col(0);
  }
  const Eigen::MatrixXd W = post.particles(Yt, Wt);

  // Exact posterior, computed independently of the class (plain Eigen LLT of the dense A).
  Eigen::MatrixXd A = Phi.transpose() * p.asDiagonal() * Phi;
  A.diagonal().array() += 1 / alpha2;
  const Eigen::MatrixXd S = A.inverse();
  const Eigen::VectorXd mu = S * Phi.transpose() * p.asDiagonal() * t.mean.col(0);
  EXPECT_LT((post.mean(t.mean.col(0)) - mu).norm(), 1e-10 * mu.norm());

  const Eigen::VectorXd mean = W.rowwise().mean();
  const Eigen::MatrixXd centred = W.colwise() - mean;
  const Eigen::MatrixXd cov = centred * centred.transpose() / double(K - 1);
  for (Eigen::Index i = 0; i < D; ++i) {
    // Monte-Carlo standard errors: sqrt(S_ii / K) for the mean, sqrt((S_ii S_jj + S_ij^2) / K)
    // for a covariance entry of Gaussian samples; 5 standard errors (3 + 6 checks).
    EXPECT_NEAR(mean(i), mu(i), 5 * std::sqrt(S(i, i) / double(K))) << i;
    for (Eigen::Index j = 0; j <= i; ++j)
      EXPECT_NEAR(cov(i, j), S(i, j), 5 * std::sqrt((S(i, i) * S(j, j) + S(i, j) * S(i, j)) / K))
          << i << "," << j;
  }
  // The check can fail: the prior-mean term alone (no target noise) would give a covariance
  // that differs from S by far more than the tolerance.
  EXPECT_GT((S - S * (1 / alpha2) * S / alpha2).norm(), 50 * std::sqrt(S.squaredNorm() / K));
}

INSTANTIATE_TEST_SUITE_P(GramOrDirect, Eq9, ::testing::Bool());

TEST(RffParticles, SharedFactorizationEqualsRefactorizing) {
  RngStream rng(2, 0);
  const Eigen::MatrixXd Phi = gaussian_matrix(30, 5, rng);
  const Eigen::VectorXd p = gaussian_matrix(30, 1, rng).cwiseAbs().array() + 0.1;
  const LinearGaussianPosterior post(Phi, p, 1.3);
  const Eigen::MatrixXd Yt = gaussian_matrix(30, 4, rng), Wt = gaussian_matrix(5, 4, rng);
  EXPECT_LT((post.particles(Yt, Wt) - post.particles_refactorizing(Yt, Wt)).norm(), 1e-10);
  EXPECT_LT(
      (feature_gram(Phi, 2).selfadjointView<Eigen::Lower>() * Eigen::MatrixXd::Identity(5, 5) -
       Phi.transpose() * Phi)
          .norm(),
      1e-10);
}

TEST(Calibration, ScoresMatchHandComputation) {
  // Rows: confident right (0.9), unsure wrong (0.6 on class 0, truth 1), right (0.55).
  Eigen::MatrixXd P(3, 2);
  P << 0.9, 0.1, 0.6, 0.4, 0.45, 0.55;
  const Eigen::VectorXd y = (Eigen::VectorXd(3) << 0, 1, 1).finished();
  const auto s = score_probabilities(P, y, 10);
  EXPECT_NEAR(s.error, 1.0 / 3, 1e-15);
  EXPECT_NEAR(s.mnll, -(std::log(0.9) + std::log(0.4) + std::log(0.55)) / 3, 1e-15);
  // Bins: 0.9 -> bin 9 (acc 1), 0.6 -> bin 6 (acc 0), 0.55 -> bin 5 (acc 1).
  EXPECT_NEAR(s.ece, (0.1 + 0.6 + 0.45) / 3, 1e-15);
  EXPECT_EQ(s.reliability(9, 2), 1.0);
}

// A three-class problem of well separated blobs in 2-D.
Dataset blobs() {
  RngStream rng(8, 0);
  Dataset d;
  auto fill = [&](Eigen::MatrixXd& X, Eigen::VectorXd& y, Eigen::Index n) {
    X.resize(n, 2);
    y.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const int c = int(i % 3);
      X(i, 0) = 2.5 * std::cos(2.1 * c) + 0.6 * rng.normal();
      X(i, 1) = 2.5 * std::sin(2.1 * c) + 0.6 * rng.normal();
      y(i) = c;
    }
  };
  fill(d.X_train, d.y_train, 60);
  fill(d.X_test, d.y_test, 90);
  return d;
}

class FixedSteps final : public Optimizer {
 public:
  OptimizerReport minimize(const SmoothObjective& f, Eigen::VectorXd& x) const override {
    Eigen::VectorXd g(x.size());
    double v = 0;
    for (int i = 0; i < 200; ++i) {
      f.evaluate(x, &v, &g);
      x -= 1e-3 * g;
    }
    return {true, 200, v, ""};
  }
};

Results run_engine(const std::string& model, int threads, const Dataset& d) {
  Problem problem;
  problem.data = &d;
  std::shared_ptr<Kernel> kernel = kernels::make_gaussian(
      Params(kernels::gaussian_schema(),
             {{"random_features", std::int64_t{300}}, {"feature_seed", std::int64_t{3}}}));
  kernel->prepare(d.X_train);
  problem.kernel = kernel;
  problem.likelihood = std::make_shared<likelihoods::DirichletLikelihood>(
      Params(likelihoods::DirichletLikelihood::schema(), {}));
  problem.resampler =
      std::make_shared<PerturbationResampler>(Params(PerturbationResampler::schema(), {}));
  problem.optimizer = std::make_shared<FixedSteps>();
  problem.seed = 17;
  problem.context.threads = threads;
  const VBoot engine(Params(
      VBoot::schema(),
      {{"model", model}, {"particles", std::int64_t{8}}, {"hidden_units", std::int64_t{16}}}));
  return engine.run(problem);
}

TEST(VBoot, ResultsDoNotDependOnThreadsAndBeatChance) {
  const Dataset d = blobs();
  for (const std::string model : {"rff", "mlp"}) {
    const Results one = run_engine(model, 1, d), two = run_engine(model, 2, d);
    EXPECT_EQ(one.matrices.at("class_probabilities"), two.matrices.at("class_probabilities"))
        << model;
    const Eigen::MatrixXd& P = one.matrices.at("class_probabilities");
    EXPECT_LT((P.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
    // Separated blobs (centres 4.3 apart, noise 0.6): chance is 2/3 error.
    EXPECT_LT(one.scalars.at("test_error"), 0.1) << model;
  }
}

}  // namespace
}  // namespace quench::vboot::vboot_test
