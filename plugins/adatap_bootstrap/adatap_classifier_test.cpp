// The ADATAP bootstrap of a GP classifier through the engine (probit likelihood): against the
// Monte-Carlo bootstrap of EP retrained on Poisson occupation counts (mc_bootstrap, the k-fold
// sites of the `ep` engine), against the `ep` engine's own retrain for a deterministic occupation,
// and its model at new inputs against eqs 19 and 21 computed densely.
#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include "toy_models.h"

#include "adatap_bootstrap.h"
#include "bootstrap_resamplers.h"
#include "ep.h"
#include "mc_bootstrap.h"
#include "probit_likelihood.h"
#include "quench/normal.h"

namespace quench::adatap {
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
      return std::make_shared<gp_classification::EpEngine>(
          Params(gp_classification::EpEngine::schema(), {}));
    };
  }
};

Results adatap(const Problem& p) {
  return AdatapBootstrap(Params(AdatapBootstrap::schema(), {{"site_tolerance", 1e-9}})).run(p);
}

// The analytical bootstrap against 1500 Monte-Carlo retrains of EP with k-fold sites at S = N.
// Budgets: 4.5 MC standard errors plus what the approximation is allowed (the Sonar, Pima and
// Crabs comparisons of docs/adatap_classification.md: |d eps| <= 0.01, bootstrap means within
// ~1 standard error, variances within ~5 %): 0.02 in eps, 0.05 of the spread of the means,
// 25 % per variance (MC: 1500 samples, variance standard error ~ 4 % for Gaussian predictors).
TEST(AdatapClassifier, AgreesWithTheMonteCarloBootstrapOfEp) {
  Fixture f(30, 8, 1.0);
  const Results a = adatap(f.problem);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  const Results mc = mc_bootstrap::McBootstrap(
                         Params(mc_bootstrap::McBootstrap::schema(),
                                {{"samples", std::int64_t{1500}}, {"inner", std::string("ep")}}))
                         .run(f.problem);
  const double se = mc.scalars.at("bootstrap_error_stderr");
  EXPECT_NEAR(a.scalars.at("bootstrap_error"), mc.scalars.at("bootstrap_error"), 4.5 * se + 0.02);
  for (const std::string prefix : {"train_prediction_", "prediction_"}) {
    const VectorXd am = a.vectors.at(prefix + "mean"), mm = mc.vectors.at(prefix + "mean");
    const VectorXd mse = mc.vectors.at(prefix + "mean_stderr");
    const VectorXd av = a.vectors.at(prefix + "variance"), mv = mc.vectors.at(prefix + "variance");
    const double spread = mm.cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < am.size(); ++i) {
      EXPECT_NEAR(am(i), mm(i), 4.5 * mse(i) + 0.05 * spread) << prefix << i;
      EXPECT_NEAR(av(i), mv(i), 0.25 * mv(i) + 4.5 * mv(i) * std::sqrt(2.0 / 1500)) << prefix << i;
    }
  }
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
  const auto path = std::filesystem::temp_directory_path() /
                    ("quench_adatap_classifier_" + std::to_string(::getpid()) + ".h5");
  save_archive(archive, path.string());
  ModelArchive read = load_archive(path.string());
  std::filesystem::remove(path);
  const AdatapBootstrap engine(Params(AdatapBootstrap::schema(), {}));
  const auto loaded =
      engine.read_model(read, {f.problem.kernel, f.problem.likelihood, nullptr, &f.data.X_train});
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

}  // namespace
}  // namespace quench::adatap
