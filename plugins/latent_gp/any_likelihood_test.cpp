// The latent-GP engines on targets other than +-1 labels (Poisson and negative binomial counts,
// Student-t noise, binomial proportions), each against a different computation of the same
// quantity: EP's marginals against elliptical slice sampling of the exact posterior, the TAP
// solver's Newton steps against EP's sweeps, EP on the inducing-point prior against EP on K~
// formed densely, the built-in leave-one-out against retraining without each point.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "binomial_likelihood.h"
#include "elliptical_slice.h"
#include "ep.h"
#include "exact_loo.h"
#include "mean_field.h"
#include "negative_binomial_likelihood.h"
#include "poisson_likelihood.h"
#include "quench/site_prior.h"
#include "student_t_likelihood.h"
#include "test_engines.h"
#include "toy_models.h"

namespace quench::latent_gp::any_likelihood_test {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// A 1-D latent f(x) = 1.2 sin(2x) + 0.5 on n training and n_test test inputs, its targets drawn
// by `kind`: Poisson counts of e^f, or f plus Student-t noise (3 dof, scale 0.3) with every
// seventh training target moved by +6 (gross outliers), or successes of 6 trials at logit f.
enum class Target { counts, outliers, proportions };

Dataset toy_targets(Target kind, int n, int n_test, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::student_t_distribution<double> t(3.0);
  auto fill = [&](MatrixXd& X, VectorXd& y, VectorXd& size, int rows, bool train) {
    X.resize(rows, 1);
    y.resize(rows);
    size = VectorXd::Constant(rows, 6.0);
    for (int i = 0; i < rows; ++i) {
      X(i, 0) = u(gen);
      const double f = 1.2 * std::sin(2.0 * X(i, 0)) + 0.5;
      switch (kind) {
        case Target::counts:
          y(i) = std::poisson_distribution<int>(std::exp(f))(gen);
          break;
        case Target::outliers:
          y(i) = f + 0.3 * t(gen) + (train && i % 7 == 3 ? 6.0 : 0.0);
          break;
        case Target::proportions:
          y(i) = std::binomial_distribution<int>(6, 1.0 / (1.0 + std::exp(-f)))(gen);
          break;
      }
    }
  };
  Dataset d;
  fill(d.X_train, d.y_train, d.size_train, n, true);
  fill(d.X_test, d.y_test, d.size_test, n_test, false);
  if (kind != Target::proportions) {
    d.size_train.resize(0);
    d.size_test.resize(0);
  }
  return d;
}

std::shared_ptr<Likelihood> likelihood_for(const std::string& name) {
  if (name == "poisson")
    return std::make_shared<likelihoods::PoissonLikelihood>(
        Params(likelihoods::PoissonLikelihood::schema(), {}));
  if (name == "negative_binomial")
    return std::make_shared<likelihoods::NegativeBinomialLikelihood>(
        Params(likelihoods::NegativeBinomialLikelihood::schema(), {{"dispersion", 0.5}}));
  if (name == "student_t")
    return std::make_shared<likelihoods::StudentTLikelihood>(
        Params(likelihoods::StudentTLikelihood::schema(), {{"dof", 3.0}, {"scale", 0.3}}));
  return std::make_shared<likelihoods::BinomialLikelihood>(
      Params(likelihoods::BinomialLikelihood::schema(), {{"trials", std::string("size")}}));
}

Target target_of(const std::string& likelihood) {
  if (likelihood == "student_t") return Target::outliers;
  if (likelihood == "binomial") return Target::proportions;
  return Target::counts;
}

struct Fixture {
  Dataset data;
  Problem problem;
  Observations y;
  MatrixXd C;
  Fixture(const std::string& likelihood, int n, int n_test, unsigned seed = 3)
      : data(toy_targets(target_of(likelihood), n, n_test, seed)) {
    problem.data = &data;
    problem.kernel = std::make_shared<testing::UnitSquaredExponential>();
    problem.likelihood = likelihood_for(likelihood);
    problem.context.threads = 2;
    problem.context.make_engine = latent_gp_engines();
    y = observations(data, DataPart::train, *problem.likelihood->target_kind(), "test");
    C = problem.kernel->gram(data.X_train);
  }
};

// Two converged fits of one fixed point: mean field and cavities within 1e-8.
void expect_same_fixed_point(const MeanFieldFit& a, const MeanFieldFit& b) {
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  ASSERT_EQ(b.status.code, RunStatus::ok) << b.status.message;
  EXPECT_LT((a.mean_field - b.mean_field).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((a.cavity_mean - b.cavity_mean).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((a.cavity_variance - b.cavity_variance).cwiseAbs().maxCoeff(), 1e-8);
}

class EveryLikelihood : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Latent, EveryLikelihood,
                         ::testing::Values("poisson", "negative_binomial", "student_t",
                                           "binomial"));

// Non-log-concave sites (Student-t): EP's Gaussian sites can be negative and the exact
// marginals skewed, so EP is a coarser approximation there (Jylanki, Vanhatalo & Vehtari 2011).
bool log_concave(const std::string& likelihood) { return likelihood != "student_t"; }

// EP's posterior marginals against 200 000 elliptical-slice draws of the exact posterior
// (N = 12, so the chain is long and cheap). The difference is EP's approximation error plus the
// Monte-Carlo error: allowed 4 batch-means standard errors plus 0.05 posterior standard
// deviations for the means, and for the variances 10 % with log-concave sites (EP's marginals
// are known to be this close: Kuss & Rasmussen 2005, Nickisch & Rasmussen 2008; measured here
// at most 0.016 sd and 4.3 %) or 35 % with Student-t noise and two gross outliers (measured:
// means within 0.037 sd, variances up to 25 % above the exact ones, at the ends of the inputs'
// range where few neighbours pin f down).
TEST_P(EveryLikelihood, EpMarginalsMatchEllipticalSliceSampling) {
  Fixture f(GetParam(), 12, 0);
  const MeanFieldFit fit = solve_ep(f.C, f.y, *f.problem.likelihood, EpOptions{});
  ASSERT_EQ(fit.status.code, RunStatus::ok) << fit.status.message;
  const DenseSitePrior prior = DenseSitePrior::viewing(f.C);
  const PosteriorCovariance post =
      prior.marginals(fit.tau,
                      fit.tau.cwiseProduct(fit.cavity_mean) +
                          fit.slope.cwiseProduct(VectorXd::Ones(fit.tau.size()) +
                                                 fit.cavity_variance.cwiseProduct(fit.tau)),
                      Precision::full);
  const VectorXd variance = post.lambda.cwiseProduct(post.b);
  const testing::EllipticalSliceResult mc = testing::elliptical_slice(
      f.C, *f.problem.likelihood, f.y,
      {.seed = 17, .burn_in = 2000, .kept = 200000, .thin = 1, .batches = 50});
  for (Eigen::Index i = 0; i < f.y.rows(); ++i) {
    const double sd = std::sqrt(mc.variance(i));
    EXPECT_NEAR(fit.mean_field(i), mc.mean(i), 4 * mc.mean_se(i) + 0.05 * sd) << i;
    EXPECT_NEAR(post.mean(i), fit.mean_field(i), 1e-8) << i;
    const double allowed = log_concave(GetParam()) ? 0.1 : 0.35;
    EXPECT_NEAR(variance(i), mc.variance(i), 4 * mc.variance_se(i) + allowed * mc.variance(i)) << i;
  }
}

// The TAP solver's joint Newton steps (mean_field.h) and plain EP sweeps solve the same fixed
// point equations (eqs 19, 23, 26, 28-30 with the likelihood's tilted moments): both to 1e-12,
// the fixed points agree to 1e-8.
TEST_P(EveryLikelihood, NewtonStepsReachTheSweepsFixedPoint) {
  Fixture f(GetParam(), 30, 0);
  EpOptions sweeps;
  sweeps.newton = false;
  const MeanFieldFit a = solve_ep(f.C, f.y, *f.problem.likelihood, sweeps);
  const MeanFieldFit b = solve_ep(f.C, f.y, *f.problem.likelihood, EpOptions{});
  expect_same_fixed_point(a, b);
}

// Student-t sites with gross outliers where parallel sweeps cycle at damping 1 (stalled at a
// change of 29 per sweep: such cycles were common in a scan of seeds, amplitudes and scales and
// ended a Boston fit): the default solver takes smaller steps, then Newton's, and reaches the
// fixed point that damped sweeps alone reach (tolerance as above).
TEST(StudentTEp, SweepsThatCycleTakeSmallerSteps) {
  const Dataset d = toy_targets(Target::outliers, 60, 0, 2);
  const likelihoods::StudentTLikelihood lik(
      Params(likelihoods::StudentTLikelihood::schema(), {{"dof", 3.0}, {"scale", 0.1}}));
  const Observations y(d.y_train);
  const MatrixXd C = 4.0 * testing::UnitSquaredExponential().gram(d.X_train);
  EpOptions undamped;
  undamped.tol = 0.1;
  EXPECT_NE(
      solve_ep(DenseSitePrior::viewing(C), likelihood_tilted_moments(lik, y), undamped).status.code,
      RunStatus::ok);
  EpOptions damped_sweeps;
  damped_sweeps.newton = false;
  damped_sweeps.damping = 0.5;
  const MeanFieldFit a = solve_ep(C, y, lik, damped_sweeps);
  const MeanFieldFit b = solve_ep(C, y, lik, EpOptions{});
  expect_same_fixed_point(a, b);
}

// TAP's joint Newton steps from u = 0 find no decrease on most Student-t problems with gross
// outliers (a scan of 29 seeds x 3 amplitudes x 3 scales x 2 dof: all but a few); the tap
// engine then reaches its fixed point, EP's, by EP's guarded sweeps: its run equals the ep
// engine's (the same fit, 1e-12) and says how it got there.
TEST(StudentTTap, NewtonStepsThatFailFallBackToEpsSweeps) {
  const Dataset d = toy_targets(Target::outliers, 60, 5, 1);
  Problem p;
  p.data = &d;
  p.kernel = std::make_shared<testing::ArdSquaredExponential>(VectorXd::Ones(1), 4.0, 0.0);
  p.likelihood = std::make_shared<likelihoods::StudentTLikelihood>(
      Params(likelihoods::StudentTLikelihood::schema(), {{"dof", 3.0}, {"scale", 0.3}}));
  const Observations y(d.y_train);
  MeanFieldOptions tap;
  ASSERT_NE(solve_mean_field(p.kernel->gram(d.X_train), y, *p.likelihood, tap).status.code,
            RunStatus::ok);
  const Results t = TapEngine(Params(TapEngine::schema(), {})).run(p);
  const Results e = EpEngine(Params(EpEngine::schema(), {})).run(p);
  ASSERT_EQ(t.status.code, RunStatus::ok) << t.status.message;
  ASSERT_EQ(e.status.code, RunStatus::ok) << e.status.message;
  EXPECT_NE(t.info.at("fixed_point").find("no decrease"), std::string::npos);
  for (const char* v : {"cavity_mean", "cavity_variance", "loo_mean", "test_log_predictive_density",
                        "test_mean_field"})
    EXPECT_LT((t.vectors.at(v) - e.vectors.at(v)).cwiseAbs().maxCoeff(), 1e-12) << v;
  for (const auto& [name, value] : e.scalars)
    if (name != "iterations") {
      EXPECT_NEAR(t.scalars.at(name), value, 1e-9 * (1 + std::fabs(value))) << name;
    }
}

// EP on the inducing-point prior (FITC: K~ = Q + diag(K - Q), never formed) against EP on the
// same K~ formed as a dense matrix: one fixed point, so the marginals agree to the solvers'
// tolerance (1e-12 sweeps; 1e-8 allowed for the different factorizations' rounding).
TEST_P(EveryLikelihood, InducingPriorIsTheDensePriorOnItsMatrix) {
  Fixture f(GetParam(), 40, 0);
  InducingInputs inducing;
  inducing.Z = f.data.X_train.topRows(8);
  inducing.form = LowRankForm::fitc;
  const InducingSitePrior sparse(*f.problem.kernel, f.data.X_train, inducing);
  const MatrixXd formed = sparse.formed();
  const DenseSitePrior dense = DenseSitePrior::viewing(formed);
  const SiteTiltedMoments tilted = likelihood_tilted_moments(*f.problem.likelihood, f.y);
  EpOptions o;
  o.newton = false;
  const MeanFieldFit a = solve_ep(sparse, tilted, o), b = solve_ep(dense, tilted, o);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  ASSERT_EQ(b.status.code, RunStatus::ok) << b.status.message;
  EXPECT_LT((a.mean_field - b.mean_field).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((a.cavity_variance - b.cavity_variance).cwiseAbs().maxCoeff(), 1e-8);
}

// The built-in leave-one-out (the cavity N(m_i, lambda_i) of each training point, 001 eqs
// 26-28) against EP retrained without each point (exact_loo). The cavity is EP's own
// approximation of the retrained posterior, exact only to first order in the left-out site's
// influence: with log-concave sites the per-row log predictive densities within 0.05 and their
// mean absolute difference within 0.01 (the target on doctorvisits; measured here at
// most 0.018 per row); with Student-t noise and outliers within 0.2 and 0.03 (measured 0.145
// and 0.016, the built-in one lower on every row: EP's wider marginals above).
TEST_P(EveryLikelihood, BuiltInLooMatchesRetraining) {
  Fixture f(GetParam(), 40, 10);
  const Results builtin = make_classifier("ep")->run(f.problem);
  ASSERT_EQ(builtin.status.code, RunStatus::ok) << builtin.status.message;
  const Results exact = exact_loo::ExactLooEngine(Params(exact_loo::ExactLooEngine::schema(),
                                                         {{"inner", std::string("ep")}}))
                            .run(f.problem);
  ASSERT_EQ(exact.status.code, RunStatus::ok) << exact.status.message;
  const VectorXd& a = builtin.vectors.at("loo_log_predictive_density");
  const VectorXd& b = exact.vectors.at("exact_loo_log_predictive_density");
  ASSERT_EQ(a.size(), b.size());
  const bool concave = log_concave(GetParam());
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), concave ? 0.05 : 0.2);
  EXPECT_LT((a - b).cwiseAbs().mean(), concave ? 0.01 : 0.03);
  EXPECT_LT(
      (builtin.vectors.at("loo_mean") - exact.vectors.at("exact_loo_mean")).cwiseAbs().maxCoeff(),
      0.05 * f.y.y.cwiseAbs().maxCoeff());
  EXPECT_NEAR(exact.scalars.at("loo_log_predictive_difference"), (a - b).cwiseAbs().mean(), 1e-12);
  // rows: 7 leaves out rows 0, 5, 11, 17, 22, 28, 34 (floor(j 40 / 7)) only, each retrain the
  // same as in the full run.
  const Results some =
      exact_loo::ExactLooEngine(Params(exact_loo::ExactLooEngine::schema(),
                                       {{"inner", std::string("ep")}, {"rows", std::int64_t{7}}}))
          .run(f.problem);
  const std::vector<Eigen::Index> rows{0, 5, 11, 17, 22, 28, 34};
  ASSERT_EQ(some.vectors.at("exact_loo_rows").size(), 7);
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const auto k = static_cast<Eigen::Index>(j);
    EXPECT_EQ(some.vectors.at("exact_loo_rows")(k), static_cast<double>(rows[j]));
    EXPECT_EQ(some.vectors.at("exact_loo_log_predictive_density")(k), b(rows[j]));
  }
  EXPECT_NEAR(some.scalars.at("loo_log_predictive_difference"),
              (a(rows) - b(rows)).cwiseAbs().mean(), 1e-12);
  // The test outputs are those of the target: a density per test row, finite.
  EXPECT_EQ(builtin.vectors.at("test_log_predictive_density").size(), 10);
  EXPECT_TRUE(builtin.vectors.at("test_log_predictive_density").allFinite());
}

}  // namespace
}  // namespace quench::latent_gp::any_likelihood_test
