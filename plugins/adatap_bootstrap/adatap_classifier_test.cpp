// The ADATAP bootstrap of a GP classifier through the engine (probit likelihood): against the
// Monte-Carlo bootstrap of EP retrained on Poisson occupation counts (mc_bootstrap, the k-fold
// sites of the `ep` engine), against the `ep` engine's own retrain for a deterministic occupation,
// and its model at new inputs against eqs 19 and 21 computed densely.
#include <cmath>
#include <optional>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include "model_round_trip.h"
#include "toy_models.h"

#include "adatap_bootstrap.h"
#include "adatap_svm.h"
#include "bootstrap_resamplers.h"
#include "ep.h"
#include "mc_bootstrap.h"
#include "poisson_likelihood.h"
#include "probit_likelihood.h"
#include "quench/normal.h"
#include "svm_limit.h"

namespace quench::adatap::adatap_classifier_test {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Two overlapping classes in 2-D, labels -1/+1, N training and M test points.
struct Fixture {
  Dataset data;
  Problem problem;
  Fixture(int n, int m, double ratio, unsigned seed = 4) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> z;
    auto draw = [&](MatrixXd& X, VectorXd& y, int rows) {
      X.resize(rows, 2);
      y.resize(rows);
      for (int i = 0; i < rows; ++i) {
        y(i) = i % 2 == 0 ? 1.0 : -1.0;
        X(i, 0) = 0.9 * y(i) + z(gen);
        X(i, 1) = z(gen);
      }
    };
    draw(data.X_train, data.y_train, n);
    draw(data.X_test, data.y_test, m);
    problem.data = &data;
    problem.kernel = std::make_shared<testing::UnitSquaredExponential>();
    problem.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(0.1, 0.0);
    auto r = std::make_shared<resamplers::PoissonBootstrap>(
        Params(resamplers::PoissonBootstrap::schema(), {{"ratio", ratio}}));
    r->prepare(n);
    problem.resampler = r;
    problem.seed = 11;
    problem.context.threads = 2;
    problem.context.make_engine = [](const std::string&) {
      return std::make_shared<latent_gp::EpEngine>(Params(latent_gp::EpEngine::schema(), {}));
    };
  }
};

// An analytical bootstrap `a` against its Monte-Carlo reference `mc`: the bootstrap error
// within 4.5 MC standard errors + budget.error; the bootstrap means at training and test inputs
// within 4.5 standard errors + budget.mean of their largest magnitude; each variance within the
// relative budget.variance, and (when set) the average variance within budget.average and
// E[p(+1 | x)] at the test inputs (eq 21 against the average of the retrains' predictive
// probabilities) within 4.5 standard errors + budget.probability.
struct Budget {
  double error, mean, variance;
  std::optional<double> average, probability;
};
// The bootstrap means and variances of the predictor at training and test inputs (any target).
void expect_moments_agree(const Results& a, const Results& mc, const Budget& budget) {
  for (const std::string prefix : {"train_prediction_", "prediction_"}) {
    const VectorXd am = a.vectors.at(prefix + "mean"), mm = mc.vectors.at(prefix + "mean");
    const VectorXd mse = mc.vectors.at(prefix + "mean_stderr");
    const VectorXd av = a.vectors.at(prefix + "variance"), mv = mc.vectors.at(prefix + "variance");
    const double spread = mm.cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < am.size(); ++i) {
      EXPECT_NEAR(am(i), mm(i), 4.5 * mse(i) + budget.mean * spread) << prefix << i;
      EXPECT_NEAR(av(i), mv(i), budget.variance * mv(i)) << prefix << i;
    }
    if (budget.average) {
      EXPECT_NEAR(av.mean(), mv.mean(), *budget.average * mv.mean()) << prefix;
    }
  }
}

void expect_agrees_with_monte_carlo(const Results& a, const Results& mc, const Budget& budget) {
  const double se = mc.scalars.at("bootstrap_error_stderr");
  EXPECT_NEAR(a.scalars.at("bootstrap_error"), mc.scalars.at("bootstrap_error"),
              4.5 * se + budget.error);
  expect_moments_agree(a, mc, budget);
  if (budget.probability) {
    const VectorXd ap = a.vectors.at("prediction_probability"),
                   mp = mc.vectors.at("prediction_probability"),
                   pse = mc.vectors.at("prediction_probability_stderr");
    for (Eigen::Index x = 0; x < ap.size(); ++x)
      EXPECT_NEAR(ap(x), mp(x), 4.5 * pse(x) + *budget.probability) << "probability " << x;
  }
}

Results adatap(const Problem& p) {
  return AdatapBootstrap(Params(AdatapBootstrap::schema(), {{"site_tolerance", 1e-9}})).run(p);
}

// `samples` Monte-Carlo retrains of EP.
Results monte_carlo(const Problem& p, std::int64_t samples) {
  return mc_bootstrap::McBootstrap(Params(mc_bootstrap::McBootstrap::schema(),
                                          {{"samples", samples}, {"inner", std::string("ep")}}))
      .run(p);
}

// The analytical bootstrap against 1500 Monte-Carlo retrains of EP with k-fold sites at S = N.
// Budgets: 4.5 MC standard errors plus what the approximation is allowed (the Sonar, Pima and
// Crabs comparisons of docs/adatap_classification.md: |d eps| <= 0.01, bootstrap means within
// ~1 standard error, variances within ~5 %): 0.02 in eps, 0.05 of the spread of the means,
// 25 % per variance (MC: 1500 samples, variance standard error ~ 4 % for Gaussian predictors),
// the 0.03 in E[p(+1 | x)].
TEST(AdatapClassifier, AgreesWithTheMonteCarloBootstrapOfEp) {
  Fixture f(30, 8, 1.0);
  const Results a = adatap(f.problem);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  const Results mc = monte_carlo(f.problem, 1500);
  expect_agrees_with_monte_carlo(a, mc, {0.02, 0.05, 0.25 + 4.5 * std::sqrt(2.0 / 1500), {}, 0.03});
}

// p_k = delta_{k,2}: every resample is the data with each point twice, so the replica fixed
// point is EP with every site Phi(y f / sigma)^2 — the `ep` engine's retrain on counts 2.
TEST(AdatapClassifier, DeterministicOccupationIsTheEpEnginesRetrain) {
  Fixture f(25, 0, 1.0);
  class Twice final : public Resampler {
    void do_prepare(Eigen::Index n) override { n_ = n; }
    double do_occupation_pmf(int k) const override { return k == 2 ? 1.0 : 0.0; }
    int do_max_occupation(double) const override { return 2; }
    VectorXd do_sample(RngStream&) const override { return VectorXd::Constant(n_, 2.0); }
    double do_expected_size() const override { return 2.0 * static_cast<double>(n_); }
    Eigen::Index n_ = 0;
  };
  auto twice = std::make_shared<Twice>();
  twice->prepare(25);
  f.problem.resampler = twice;
  const Results a = adatap(f.problem);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  const auto retrain = f.problem.context.make_engine("ep")->prepare_resampling(f.problem);
  const VectorXd ep = retrain->predict(VectorXd::Constant(25, 2.0));
  EXPECT_LT((a.vectors.at("train_prediction_mean") - ep.head(25)).cwiseAbs().maxCoeff(), 1e-7);
  EXPECT_LT(a.vectors.at("train_prediction_variance").cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT(a.vectors.at("lambda_c").cwiseAbs().maxCoeff(), 1e-9);  // no between-sample spread
}

// The classifier model: file round trip bitwise, the engine's test outputs are its predictions,
// and eq 21 with G_xx = K(x, x) - k^T D^1/2 (I + D^1/2 K D^1/2)^-1 D^1/2 k formed densely.
TEST(AdatapClassifier, ModelIsEqsNineteenAndTwentyOne) {
  Fixture f(30, 6, 1.0);
  f.problem.make_model = true;
  const Results r = adatap(f.problem);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), "adatap_classifier");
  ModelArchive archive;
  r.model->write(archive);
  const auto loaded =
      testing::through_file(AdatapBootstrap(Params(AdatapBootstrap::schema(), {})), *r.model,
                            {f.problem.kernel, f.problem.likelihood, nullptr, &f.data.X_train});
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-3, 3);
  MatrixXd X(600, 2);  // two blocks of new inputs
  for (Eigen::Index i = 0; i < X.size(); ++i) X(i) = u(gen);
  const Predictions p = r.model->predict(X), q = loaded->predict(X);
  EXPECT_EQ(p.columns,
            (std::vector<std::string>{"bootstrap_mean", "bootstrap_variance",
                                      "within_sample_variance", "probability", "label"}));
  EXPECT_TRUE(p.values == q.values);
  const Predictions t = r.model->predict(f.data.X_test);
  EXPECT_TRUE(t.column("probability") == r.vectors.at("prediction_probability"));
  EXPECT_TRUE(t.column("bootstrap_mean") == r.vectors.at("prediction_mean"));

  const VectorXd dl = archive.vector("posterior/delta_lambda");
  const Kernel& k = *f.problem.kernel;
  const MatrixXd K = k.cross(f.data.X_train, f.data.X_train);
  const VectorXd s = dl.cwiseSqrt();
  MatrixXd B = s.asDiagonal() * K * s.asDiagonal();
  B.diagonal().array() += 1.0;
  const Eigen::LLT<MatrixXd> llt(B);
  const MatrixXd Kx = k.cross(f.data.X_train, X);
  const MatrixXd SK = s.asDiagonal() * Kx;
  const VectorXd within =
      (k.cross(X, X).diagonal() - (SK.transpose() * llt.solve(SK)).diagonal()).cwiseMax(0.0);
  const VectorXd mean = p.column("bootstrap_mean"), var = p.column("bootstrap_variance");
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    EXPECT_NEAR(p.column("within_sample_variance")(i), within(i), 1e-10) << i;
    EXPECT_NEAR(p.column("probability")(i),
                normal_cdf(mean(i) / std::sqrt(0.1 + within(i) + var(i))), 1e-10)
        << i;
    EXPECT_EQ(p.column("label")(i), mean(i) >= 0 ? 1.0 : -1.0);
  }
}

// Counts (a Poisson likelihood, log link): the analytical bootstrap against 1000 Monte-Carlo
// retrains of EP, with the losses of a count target — the negative log predictive density of a
// left-out point and the squared error of its predicted mean — and the bootstrap mean and
// variance of the latent predictor. Budgets as above (4.5 MC standard errors plus 2 % of each
// loss, 0.05 of the spread of the means, 25 % per variance). Measured at N = 80: 0.2 % in the
// log predictive loss, 1.9 % in the squared error (E[y] = e^(f + v/2) at one averaged cavity
// variance, where each retrain has its own); at N = 30 the squared error is 7.7 % high, so the
// approximation wants more than a few dozen points for a log link.
TEST(AdatapClassifier, AgreesWithTheMonteCarloBootstrapOfEpOnCounts) {
  Fixture f(80, 8, 1.0);
  std::mt19937 gen(9);
  for (VectorXd* y : {&f.data.y_train, &f.data.y_test})
    for (Eigen::Index i = 0; i < y->size(); ++i)  // counts of rate e^(x_0 / 2)
      (*y)(i) = std::poisson_distribution<int>(
          std::exp(0.5 * (y == &f.data.y_train ? f.data.X_train : f.data.X_test)(i, 0)))(gen);
  f.problem.likelihood = std::make_shared<likelihoods::PoissonLikelihood>(
      Params(likelihoods::PoissonLikelihood::schema(), {}));
  const Results a = adatap(f.problem);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  const Results mc = monte_carlo(f.problem, 1000);
  ASSERT_EQ(mc.status.code, RunStatus::ok) << mc.status.message;
  for (const std::string loss : {"test_error_log_predictive", "test_error_square"})
    EXPECT_NEAR(a.scalars.at(loss), mc.scalars.at(loss),
                4.5 * mc.scalars.at(loss + "_stderr") + 0.02 * mc.scalars.at(loss))
        << loss;
  expect_moments_agree(a, mc, {0.0, 0.05, 0.25 + 4.5 * std::sqrt(2.0 / 1000), {}, {}});
}

TEST(AdatapClassifier, KernelNoiseIsRefusedWithTheReason) {
  Fixture f(10, 0, 1.0);
  f.problem.kernel =
      std::make_shared<testing::ArdSquaredExponential>(Eigen::Vector2d(1.0, 1.0), 1.0, 0.05);
  try {
    adatap(f.problem);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("not on the kernel diagonal"), std::string::npos)
        << e.what();
  }
}

// Eq 23 of the note against its definition integrated densely: X ~ N(x, s^2), a point left out
// (k = 0, probability p0) keeps the cavity mean y X, a drawn one the clamped y max(X, 1) with
// beta x variance Theta(X - 1) / Delta lambda_c. Trapezoid over +-12 sd in 1e5 steps on each
// side of X = 1 (where max has its kink and Theta its jump): its error is below 1e-9 here.
TEST(AdatapSvm, ClosedFormSiteIsItsDefinition) {
  for (const double y : {1.0, -1.0})
    for (const double gamma_c : {-2.0, 0.3, 1.9, 4.0})
      for (const double lambda_c : {0.0, -0.5, -3.0}) {
        const double dlc = 1.7, p0 = 0.37;
        const AveragedSite a = svm_limit_site(y, dlc, gamma_c, lambda_c, p0);
        const double x = y * gamma_c / dlc, sd = std::sqrt(-lambda_c) / dlc;
        double mean = 0, variance = 0, second = 0;
        if (sd == 0) {
          mean = p0 * x + (1 - p0) * std::max(x, 1.0);
          variance = (p0 + (1 - p0) * (x > 1 ? 1.0 : 0.0)) / dlc;
          second = p0 * x * x + (1 - p0) * std::pow(std::max(x, 1.0), 2);
        } else {  // trapezoid pieces split at the kink / jump X = 1
          auto add = [&](double from, double to) {
            if (!(to > from)) return;
            const int steps = 100000;
            const double h = (to - from) / steps;
            for (int j = 0; j <= steps; ++j) {
              const double X = from + j * h;
              const double w =
                  (j == 0 || j == steps ? 0.5 : 1.0) * h * normal_pdf((X - x) / sd) / sd;
              const bool drawn_above = X > 1 || (X == 1 && j == 0);  // the upper piece's side
              const double clamped = std::max(X, 1.0);
              mean += w * (p0 * X + (1 - p0) * clamped);
              variance += w * (p0 + (1 - p0) * (drawn_above ? 1.0 : 0.0)) / dlc;
              second += w * (p0 * X * X + (1 - p0) * clamped * clamped);
            }
          };
          const double lo = x - 12 * sd, hi = x + 12 * sd;
          add(lo, std::min(1.0, hi));
          add(std::max(1.0, lo), hi);
        }
        EXPECT_NEAR(a.mean, y * mean, 1e-8) << gamma_c << " " << lambda_c;
        EXPECT_NEAR(a.variance, variance, 1e-8) << gamma_c << " " << lambda_c;
        EXPECT_NEAR(a.second_moment, second, 1e-8) << gamma_c << " " << lambda_c;
      }
}

Results adatap_svm(const Problem& p) {
  return AdatapSvm(Params(AdatapSvm::schema(), {{"site_tolerance", 1e-9}})).run(p);
}

// The SVM limit against the Monte-Carlo bootstrap of the Adatron (svm_limit retrained on every
// drawn subset; 1500 Poisson samples at S = N) on Sonar (001 Sec. 8.1: Gaussian kernel with
// sigma^2 = 0.2, i.e. length scale sqrt(0.2 d), inputs standardized; 104 training, 104 test
// rows). The hard-margin posterior is maximally non-Gaussian (a point is a support vector or
// not), so the budgets beyond 4.5 MC standard errors are wider than the probit's, set from
// docs/adatap_classification.md's Sonar runs (|d eps| 0.005-0.007, bootstrap means within ~5
// standard errors, variances within 40 % per point and 6 % on average): 0.01 in eps, 5 % of
// the spread of the means, 50 % per variance, 10 % for the average variance.
TEST(AdatapSvm, AgreesWithTheMonteCarloBootstrapOfTheAdatronOnSonar) {
  DataSpec spec;
  spec.train_file = std::string(QUENCH_TEST_DATA) + "/sonar.csv";
  spec.split = SplitRule::column;
  spec.standardize_inputs = true;
  Dataset data = load_dataset(spec);
  Problem problem;
  problem.data = &data;
  const double length = std::sqrt(0.2 * static_cast<double>(data.X_train.cols()));
  problem.kernel = std::make_shared<testing::ArdSquaredExponential>(
      Eigen::VectorXd::Constant(data.X_train.cols(), length), 1.0, 0.0);
  auto poisson = std::make_shared<resamplers::PoissonBootstrap>(
      Params(resamplers::PoissonBootstrap::schema(), {{"ratio", 1.0}}));
  poisson->prepare(data.X_train.rows());
  problem.resampler = poisson;
  problem.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(0.0, 0.0);  // unused
  problem.seed = 17;
  problem.context.threads = 2;
  problem.make_model = true;
  const Results a = adatap_svm(problem);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  Problem mc_problem = problem;
  mc_problem.make_model = false;
  mc_problem.context.make_engine = [](const std::string&) {
    return std::make_shared<latent_gp::SvmLimitEngine>(
        Params(latent_gp::SvmLimitEngine::schema(), {}));
  };
  const Results mc = mc_bootstrap::McBootstrap(Params(mc_bootstrap::McBootstrap::schema(),
                                                      {{"samples", std::int64_t{1500}},
                                                       {"inner", std::string("svm_limit")}}))
                         .run(mc_problem);
  expect_agrees_with_monte_carlo(a, mc, {0.01, 0.05, 0.5, 0.1, {}});
  // The model (kind adatap_svm): the engine's test outputs are its predictions.
  ASSERT_TRUE(a.model);
  EXPECT_EQ(a.model->kind(), "adatap_svm");
  const Predictions t = a.model->predict(data.X_test);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"bootstrap_mean", "bootstrap_variance", "label"}));
  EXPECT_TRUE(t.column("bootstrap_mean") == a.vectors.at("prediction_mean"));
  ModelArchive archive;
  a.model->write(archive);
  const auto loaded = AdatapSvm(Params(AdatapSvm::schema(), {}))
                          .read_model(archive, {problem.kernel, nullptr, nullptr, &data.X_train});
  EXPECT_TRUE(loaded->predict(data.X_test).values == t.values);
}

}  // namespace
}  // namespace quench::adatap::adatap_classifier_test
