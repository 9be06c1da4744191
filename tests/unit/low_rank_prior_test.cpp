// The inducing-point prior K~ = diag(Lambda) + U U^T and its posterior algebra against the
// same matrices formed densely; inducing-input selection (docs/large_n.md).
#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "kernels.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/errors.h"
#include "quench/inducing_points.h"
#include "quench/low_rank_evidence.h"
#include "quench/low_rank_prior.h"
#include "quench/memory_budget.h"

namespace quench::low_rank_prior_test {
namespace {

Eigen::MatrixXd random_inputs(Eigen::Index n, Eigen::Index d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd X(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j) X(i, j) = normal(rng);
  return X;
}

/// The gaussian kernel exp(-|x - x'|^2 / l2) on d inputs, prepared.
std::unique_ptr<Kernel> gaussian(Eigen::Index d, double l2 = 2.0) {
  auto k = kernels::make_gaussian(
      Params(kernels::gaussian_schema(), {{"l2", l2}, {"scaling", std::string("none")}}));
  k->prepare(Eigen::MatrixXd::Zero(2, d));
  return k;
}

InducingInputs chosen(const Kernel& k, const Eigen::MatrixXd& X, Eigen::Index m,
                      InducingMethod method, LowRankForm form, std::uint64_t seed = 7) {
  InducingSpec spec;
  spec.count = m;
  spec.method = method;
  spec.form = form;
  return select_inducing_inputs(k, X, spec, seed);
}

double relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / b.norm();
}

TEST(DiagonalPlusLowRank, ProductsEqualTheDenseMatrix) {
  const Eigen::MatrixXd W = random_inputs(4100, 6, 1);  // spans two row blocks
  const Eigen::VectorXd e = random_inputs(4100, 1, 2).col(0).cwiseAbs();
  const Eigen::VectorXd v = random_inputs(4100, 1, 3).col(0);
  const DiagonalPlusLowRank G(e, W);
  const Eigen::MatrixXd D = G.dense();
  // Round-off of O(N) sums: 1e-12 relative.
  EXPECT_LT(relative(G.diagonal(), D.diagonal()), 1e-12);
  EXPECT_LT(relative(G.times(v), D * v), 1e-12);
  EXPECT_LT(relative(G.hadamard_square_times(v), D.cwiseAbs2() * v), 1e-12);
}

TEST(LowRankPrior, PosteriorCovarianceEqualsTheDenseInverse) {
  const Eigen::MatrixXd X = random_inputs(150, 3, 4);
  const auto k = gaussian(X.cols());
  Eigen::VectorXd d = random_inputs(150, 1, 5).col(0).cwiseAbs();
  d.head(10).setZero();  // sites with no data (dl = 0) included
  for (LowRankForm form : {LowRankForm::fitc, LowRankForm::sor}) {
    const LowRankPrior prior(*k, X, chosen(*k, X, 30, InducingMethod::greedy_variance, form));
    const Eigen::MatrixXd Kt = prior.dense();
    // G = (K~^-1 + D)^-1 = K~ (I + D K~)^-1, which holds for a singular K~ (SoR) too.
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(150, 150);
    const Eigen::MatrixXd reference =
        (I + d.asDiagonal() * Kt).transpose().partialPivLu().solve(Kt.transpose()).transpose();
    const DiagonalPlusLowRank G = prior.posterior_covariance(d);
    // Both are O(cond) round-offs of the same matrix; cond(I + D K~) < 1e3 here.
    EXPECT_LT(relative(G.dense(), reference), 1e-10) << to_string(form);
    if (form == LowRankForm::fitc)
      EXPECT_LT(
          (prior.diagonal_correction() - (k->diagonal(X) - prior.factor().rowwise().squaredNorm()))
              .norm(),
          1e-12);
    else
      EXPECT_EQ(prior.diagonal_correction().norm(), 0.0);
  }
}

TEST(LowRankPrior, AllInputsAsInducingInputsGiveTheExactKernel) {
  const Eigen::MatrixXd X = random_inputs(80, 2, 6);
  const auto k = gaussian(2, 4.0);
  InducingInputs all;
  all.Z = X;
  all.form = LowRankForm::sor;
  const LowRankPrior prior(*k, X, all);
  // Q = K (K + j I)^-1 K differs from K by about j = 1e-8 of the mean variance (relative), plus
  // round-off amplified by cond(K_mm) ~ 1e8 at this length scale.
  const Eigen::MatrixXd K = k->cross(X, X);
  EXPECT_LT((prior.dense() - K).cwiseAbs().maxCoeff(), 1e-6);
  const Eigen::MatrixXd Xnew = random_inputs(5, 2, 7);
  EXPECT_LT(
      (prior.features(Xnew) * prior.factor().transpose() - k->cross(Xnew, X)).cwiseAbs().maxCoeff(),
      1e-6);
}

TEST(InducingInputs, GreedyVarianceIsDeterministicDecreasingAndBeatsKmeans) {
  const Eigen::MatrixXd X = random_inputs(2000, 3, 8), Xtest = random_inputs(500, 3, 9);
  // Greedy variance leaves the least variance once M is large enough for the approximation
  // to be good (here trace(K - Q) < 0.2 % of trace K on the test inputs). With too few inputs
  // (M = 30-60 at this length scale, 10-40 % left) it picks outlying inputs first and k-means
  // leaves less (docs/large_n.md, "Choosing the inducing inputs").
  const auto k = gaussian(3, 4.0);
  const auto a = chosen(*k, X, 150, InducingMethod::greedy_variance, LowRankForm::fitc, 11);
  const auto b = chosen(*k, X, 150, InducingMethod::greedy_variance, LowRankForm::fitc, 11);
  EXPECT_EQ(a.Z, b.Z);
  ASSERT_EQ(a.residual_trace.size(), 150);
  for (Eigen::Index j = 1; j < 150; ++j) EXPECT_LE(a.residual_trace(j), a.residual_trace(j - 1));
  const auto c1 = chosen(*k, X, 150, InducingMethod::kmeans, LowRankForm::fitc, 11);
  const auto c2 = chosen(*k, X, 150, InducingMethod::kmeans, LowRankForm::fitc, 11);
  EXPECT_EQ(c1.Z, c2.Z);
  const auto r = chosen(*k, X, 150, InducingMethod::random, LowRankForm::fitc, 11);
  // trace(K - Q) on held-out inputs: the variance each choice leaves unexplained.
  const auto residual = [&](const InducingInputs& z) {
    return LowRankPrior(*k, Xtest, z).residual_variance().sum();
  };
  const double greedy = residual(a), km = residual(c1), rnd = residual(r);
  EXPECT_LT(greedy, 2e-3 * static_cast<double>(Xtest.rows()));
  EXPECT_LE(greedy, km);
  EXPECT_LT(greedy, rnd);
  EXPECT_NE(chosen(*k, X, 150, InducingMethod::kmeans, LowRankForm::fitc, 12).Z, c1.Z);
}

TEST(InducingInputs, BadCountsAndDuplicateInputs) {
  const auto k = gaussian(2);
  Eigen::MatrixXd X = random_inputs(20, 2, 10);
  EXPECT_THROW(chosen(*k, X, 0, InducingMethod::kmeans, LowRankForm::fitc), ConfigError);
  EXPECT_THROW(chosen(*k, X, 21, InducingMethod::greedy_variance, LowRankForm::fitc), ConfigError);
  // Ten distinct inputs, each twice: greedy stops at the ten (the rest have no residual
  // variance), random refuses more than ten, and every K_mm factorizes.
  X.bottomRows(10) = X.topRows(10);
  const auto g = chosen(*k, X, 15, InducingMethod::greedy_variance, LowRankForm::fitc);
  EXPECT_EQ(g.Z.rows(), 10);
  EXPECT_NO_THROW(LowRankPrior(*k, X, g));
  EXPECT_THROW(chosen(*k, X, 11, InducingMethod::random, LowRankForm::fitc), ConfigError);
  EXPECT_EQ(chosen(*k, X, 10, InducingMethod::random, LowRankForm::fitc).Z.rows(), 10);
  // Duplicates given on purpose as inducing inputs: K_mm is singular, the jitter makes it
  // positive definite and is reported.
  InducingInputs twice;
  twice.Z = X;
  const LowRankPrior prior(*k, X, twice);
  EXPECT_GT(prior.jitter(), 0.0);
  EXPECT_TRUE(prior.factor().allFinite());
}

/// A "kernel" whose matrices are negative definite: no jitter rescues K_mm.
class NegativeKernel final : public Kernel {
 public:
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    return -inner_->cross(A, B) - Eigen::MatrixXd::Constant(A.rows(), B.rows(), 0.0);
  }
  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override {
    return Eigen::VectorXd::Ones(X.rows());  // claims positive variances
  }

 private:
  std::unique_ptr<Kernel> inner_ = gaussian(2);
};

TEST(LowRankPrior, NotACovarianceIsANumericalError) {
  const Eigen::MatrixXd X = random_inputs(30, 2, 11);
  const NegativeKernel k;
  InducingInputs z;
  z.Z = X.topRows(5);
  EXPECT_THROW(LowRankPrior(k, X, z), NumericalError);
}

TEST(LowRankPrior, RefusesAnArrayLargerThanMemoryBeforeAllocating) {
  const Eigen::Index n = 1000000;
  const Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n, 1);
  const auto m = static_cast<Eigen::Index>(physical_memory_bytes() / (24.0 * n)) + 1;
  InducingInputs z;
  z.Z = random_inputs(m, 1, 12);
  try {
    LowRankPrior prior(*gaussian(1), X, z);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("GB"), std::string::npos) << what;
    EXPECT_NE(
        what.find(
            "M = " + std::to_string(LowRankPrior::largest_count(n, 0.8 * physical_memory_bytes())) +
            " fits"),
        std::string::npos)
        << what;
  }
}

/// An ARD gaussian kernel with amplitude and bias, prepared.
std::unique_ptr<Kernel> ard_kernel() {
  auto k = kernels::make_gaussian(Params(
      kernels::gaussian_schema(),
      {{"length_scales", std::vector<double>{0.8, 1.5, 2.5}}, {"amplitude", 1.3}, {"bias", 0.2}}));
  k->prepare(Eigen::MatrixXd::Zero(2, 3));
  return k;
}

/// The value of low_rank_gaussian_evidence formed densely: log N(y | 0, K~ + diag phi) - t tr.
double dense_evidence(const LowRankPrior& prior, const Eigen::VectorXd& y,
                      const Eigen::VectorXd& phi, double t) {
  Eigen::MatrixXd C = prior.dense();
  C.diagonal() += phi;
  const Eigen::LLT<Eigen::MatrixXd> llt(C);
  const double logdet = 2.0 * Eigen::MatrixXd(llt.matrixL()).diagonal().array().log().sum();
  return -0.5 * y.dot(llt.solve(y)) - 0.5 * logdet -
         0.5 * static_cast<double>(y.size()) * std::log(2 * M_PI) -
         t * prior.residual_variance().sum();
}

TEST(LowRankEvidence, ValueAndGradientsAgainstDenseAndFiniteDifferences) {
  const Eigen::MatrixXd X = random_inputs(120, 3, 13);
  const Eigen::VectorXd y = random_inputs(120, 1, 14).col(0);
  Eigen::VectorXd phi = 0.1 + random_inputs(120, 1, 15).col(0).cwiseAbs().array() * 0.2;
  auto k = ard_kernel();
  for (LowRankForm form : {LowRankForm::fitc, LowRankForm::vfe}) {
    const double t = form == LowRankForm::vfe ? 1.7 : 0.0;
    InducingInputs z = chosen(*k, X, 25, InducingMethod::kmeans, form);
    z.jitter = 1e-3;  // large enough that its dependence on the amplitude shows in the gradient
    const LowRankPrior prior(*k, X, z);
    const LowRankEvidence e = low_rank_gaussian_evidence(*k, X, prior, y, phi, t);
    // Two computations of one log density of 120 points: round-off only.
    EXPECT_NEAR(e.value, dense_evidence(prior, y, phi, t), 1e-9 * std::abs(e.value));
    // Central differences with step h: truncation O(h^2) ~ 1e-8 relative at h = 1e-4 (and the
    // prior is rebuilt at each point with the same inducing inputs and relative jitter).
    const auto blocks = k->hyperparameters();
    Eigen::Index j = 0;
    for (const Hyperparameter& h : blocks) {
      for (Eigen::Index c = 0; c < h.value.size(); ++c, ++j) {
        if (h.name == "noise") continue;
        const double step = 1e-4 * h.value(c);
        double f[2];
        for (int s = 0; s < 2; ++s) {
          auto kk = ard_kernel();
          Eigen::VectorXd v = h.value;
          v(c) += s == 0 ? step : -step;
          kk->set_hyperparameter(h.name, v);
          const LowRankPrior p(*kk, X, z);
          f[s] = dense_evidence(p, y, phi, t);
        }
        const double fd = (f[0] - f[1]) / (2 * step);
        EXPECT_NEAR(e.kernel_gradient(j), fd, 1e-6 * std::max(1.0, std::abs(fd)))
            << to_string(form) << " " << h.name << "[" << c << "]";
      }
    }
    for (Eigen::Index i : {0, 7, 60}) {
      Eigen::VectorXd p1 = phi, p2 = phi;
      p1(i) += 1e-5, p2(i) -= 1e-5;
      const double fd = (dense_evidence(prior, y, p1, t) - dense_evidence(prior, y, p2, t)) / 2e-5;
      EXPECT_NEAR(e.noise_gradient(i), fd, 1e-7 * std::max(1.0, std::abs(fd)));
    }
  }
}

// The shared-noise fast path (K(X, Z) only, no U) against its definition, the general
// low_rank_gaussian_evidence on the LowRankPrior with phi = sigma2 on every row: the same
// quantities by different algebra, round-off apart (measured: value and noise gradient 4e-15,
// kernel gradient 1e-11 relative).
TEST(LowRankEvidence, SharedNoisePathIsTheGeneralEvidence) {
  const Eigen::MatrixXd X = random_inputs(2500, 3, 21);  // two row blocks of the product
  const Eigen::VectorXd y = random_inputs(2500, 1, 22).col(0);
  auto k = ard_kernel();
  const double s2 = 0.07;
  for (LowRankForm form : {LowRankForm::vfe, LowRankForm::sor}) {
    const double t = form == LowRankForm::vfe ? 0.5 / s2 : 0.0;
    InducingInputs z = chosen(*k, X, 30, InducingMethod::kmeans, form);
    z.jitter = 1e-3;  // the jitter term of the gradient exercised
    const LowRankPrior prior(*k, X, z);
    const LowRankEvidence general =
        low_rank_gaussian_evidence(*k, X, prior, y, Eigen::VectorXd::Constant(2500, s2), t);
    const SharedNoiseEvidence fast = shared_noise_evidence(*k, X, z, y, s2, t);
    EXPECT_NEAR(fast.value, general.value, 1e-10 * std::abs(general.value)) << to_string(form);
    EXPECT_LT(relative(fast.kernel_gradient, general.kernel_gradient), 1e-9) << to_string(form);
    EXPECT_NEAR(fast.noise_gradient, general.noise_gradient.sum(),
                1e-9 * std::abs(general.noise_gradient.sum()));
    EXPECT_NEAR(fast.residual_trace, general.residual_trace, 1e-9 * general.residual_trace);
    EXPECT_DOUBLE_EQ(fast.jitter, prior.jitter());
  }
  InducingInputs fitc = chosen(*k, X, 30, InducingMethod::kmeans, LowRankForm::fitc);
  EXPECT_THROW(shared_noise_evidence(*k, X, fitc, y, s2, 0.0), std::invalid_argument);
  InducingInputs vfe = chosen(*k, X, 30, InducingMethod::kmeans, LowRankForm::vfe);
  EXPECT_THROW(shared_noise_evidence(*k, X, vfe, y, 0.0, 0.0), NumericalError);
}

}  // namespace
}  // namespace quench::low_rank_prior_test
