// ADATAP against Monte-Carlo on a small data set, speed-up paths against the plain iteration,
// and limits with known answers.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/LU>

#include "model_round_trip.h"
#include "toy_models.h"

#include "adatap_bootstrap.h"
#include "adatap_model.h"
#include "bernoulli_subsample.h"
#include "bootstrap_resamplers.h"
#include "exact_gp_regression.h"
#include "mc_bootstrap.h"
#include "quench/cholesky.h"
#include "quench/losses.h"

namespace quench::adatap::adatap_bootstrap_test {
namespace {

class Rbf final : public Kernel {
 public:
  explicit Rbf(double l2) : l2_(l2) {}
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    Eigen::MatrixXd K(A.rows(), B.rows());
    for (int i = 0; i < A.rows(); ++i)
      for (int j = 0; j < B.rows(); ++j)
        K(i, j) = std::exp(-(A.row(i) - B.row(j)).squaredNorm() / l2_);
    return K;
  }

 private:
  double l2_;
};

std::shared_ptr<Resampler> poisson(double ratio, Eigen::Index n) {
  auto r = std::make_shared<resamplers::PoissonBootstrap>(
      Params(resamplers::PoissonBootstrap::schema(), {{"ratio", ratio}}));
  r->prepare(n);
  return r;
}

// A 2-D toy regression problem: smooth function, noise, N training and M test inputs.
struct Fixture {
  Dataset data;
  Problem problem;
  Fixture(int n, int m, double ratio, double s2 = 0.01, double l2 = 1.0, int d = 2) {
    std::mt19937 gen(7);
    std::normal_distribution<double> z;
    std::uniform_real_distribution<double> u(-2, 2);
    data.X_train.resize(n, d);
    data.y_train.resize(n);
    data.X_test.resize(m, d);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < d; ++j) data.X_train(i, j) = u(gen);
      data.y_train(i) =
          std::sin(1.5 * data.X_train(i, 0)) * std::cos(data.X_train(i, 1)) + 0.2 * z(gen);
    }
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < d; ++j) data.X_test(i, j) = u(gen);
    data.y_test = Eigen::VectorXd::Zero(m);
    problem.data = &data;
    problem.kernel = std::make_shared<Rbf>(l2);
    problem.likelihood = std::make_shared<testing::NoiseOnlyGaussian>(s2);
    problem.resampler = poisson(ratio, n);
    problem.seed = 3;
    // The Monte-Carlo reference retrains the real exact GP on each resample.
    problem.context.make_engine = [](const std::string&) {
      return std::make_shared<gp_regression::ExactGpRegression>(
          Params(gp_regression::ExactGpRegression::schema(), {}));
    };
  }
};

Results adatap(const Problem& p, std::map<std::string, ParamValue> values = {}) {
  return AdatapBootstrap(Params(AdatapBootstrap::schema(), std::move(values))).run(p);
}

Results monte_carlo(const Problem& p, std::int64_t samples) {
  return mc_bootstrap::McBootstrap(
             Params(mc_bootstrap::McBootstrap::schema(), {{"samples", samples}}))
      .run(p);
}

// ADATAP is an approximation (000 Sec. 5 reports agreement with simulation within a few per
// cent); each check allows 4.5 Monte-Carlo standard errors (false alarm ~1e-5 per check) plus
// an approximation budget: 5 % of the test error; 3 % of the spread of y for the means; 20 % for
// the variances at test inputs (000 Fig. 2 shows deviations of this size). At training inputs
// the predictor distribution is a mixture over s_i (eq 67) that the Gaussian cavity models less
// well (000 Fig. 4: 20 % of the points); there the budget is 40 % per point and 15 % for the
// average variance. Data: 8-D inputs, N = 100 (a small mean-field-friendly problem; in 1-2-D
// toy problems with N < 100 ADATAP underestimates the training-point variances by 30-40 %).
void expect_agrees_with_monte_carlo(double ratio, bool subsample = false) {
  Fixture f(100, 10, ratio, 0.01, 16.0, 8);
  if (subsample) {  // each point kept with probability p = ratio (footnote 2)
    auto r = std::make_shared<resamplers::BernoulliSubsample>(
        Params(resamplers::BernoulliSubsample::schema(), {{"ratio", ratio}}));
    r->prepare(100);
    f.problem.resampler = r;
  }
  const Results a = adatap(f.problem);
  const Results mc = monte_carlo(f.problem, 8000);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  for (const char* name : {"test_error_square", "test_error_eps_insensitive"}) {
    const double ref = mc.scalars.at(name), se = mc.scalars.at(std::string(name) + "_stderr");
    EXPECT_NEAR(a.scalars.at(name), ref, 4.5 * se + 0.05 * ref) << name << " at S/N " << ratio;
  }
  const double spread = std::sqrt((f.data.y_train.array() - f.data.y_train.mean()).square().mean());
  for (const std::string prefix : {"train_prediction_", "prediction_"}) {
    const double budget = prefix == "prediction_" ? 0.2 : 0.4;
    const Eigen::VectorXd am = a.vectors.at(prefix + "mean"), mm = mc.vectors.at(prefix + "mean");
    const Eigen::VectorXd se = mc.vectors.at(prefix + "mean_stderr");
    const Eigen::VectorXd av = a.vectors.at(prefix + "variance"),
                          mv = mc.vectors.at(prefix + "variance");
    for (Eigen::Index i = 0; i < am.size(); ++i) {
      EXPECT_NEAR(am(i), mm(i), 4.5 * se(i) + 0.03 * spread) << prefix << i;
      // Var of a sample variance ~ 2 sigma^4 / T for near-Gaussian predictors.
      const double vse = mv(i) * std::sqrt(2.0 / 8000);
      EXPECT_NEAR(av(i), mv(i), 4.5 * vse + budget * mv(i)) << prefix << i;
    }
    EXPECT_NEAR(av.mean(), mv.mean(), 0.15 * mv.mean()) << prefix << "average variance";
  }
}

TEST(adatap, AgreesWithMonteCarloAtHalfN) { expect_agrees_with_monte_carlo(0.5); }
TEST(adatap, AgreesWithMonteCarloAtN) { expect_agrees_with_monte_carlo(1.0); }
TEST(adatap, AgreesWithMonteCarloAtOneAndAHalfN) { expect_agrees_with_monte_carlo(1.5); }

TEST(adatap, AgreesWithMonteCarloForBernoulliSubsampling) {
  expect_agrees_with_monte_carlo(0.5, true);
  expect_agrees_with_monte_carlo(0.8, true);
}

TEST(adatap, EqFiftyFourWithSquareLossIsEqFiftyThree) {
  Fixture f(30, 0, 1.0);
  const Eigen::MatrixXd K = f.problem.kernel->cross(f.data.X_train, f.data.X_train);
  const Solution s =
      solve(K, f.data.y_train, 0.01, occupation_of(*f.problem.resampler, 1e-12), SolverOptions{});
  // Simpson with 2000 intervals on [-10, 10] integrates a quadratic times the Gaussian to
  // ~1e-12 relative.
  EXPECT_NEAR(test_error(s, f.data.y_train, square_loss), test_error_square(s, f.data.y_train),
              1e-9);
}

// Each speed-up path (A.2 start values, A.3 Woodbury, A.4 approximate steps) converges to the
// plain iteration's fixed point; both are within the 1e-3 relative tolerance of it, so they
// agree to 2e-3 (dl) and the derived outputs to a few 1e-3.
TEST(adatap, SpeedUpPathsReachThePlainSolution) {
  Fixture f(120, 0, 1.0);
  const Eigen::MatrixXd K = f.problem.kernel->cross(f.data.X_train, f.data.X_train);
  const Occupation occ = occupation_of(*f.problem.resampler, 1e-12);
  SolverOptions plain;
  plain.init = SolverOptions::Init::constant;
  plain.tolerance = 1e-6;  // the reference fixed point, tighter than the paths under test
  const Solution ref = solve(K, f.data.y_train, 0.01, occ, plain);
  ASSERT_TRUE(ref.converged);
  const double err_ref = test_error_square(ref, f.data.y_train);
  struct Path {
    const char* name;
    SolverOptions o;
  };
  std::vector<Path> paths;
  SolverOptions o;
  o.init = SolverOptions::Init::constant;
  paths.push_back({"plain", o});
  o.init = SolverOptions::Init::eigen;
  paths.push_back({"A.2 eigen", o});
  o.init = SolverOptions::Init::subset;
  paths.push_back({"A.2 subset", o});
  o.init = SolverOptions::Init::eigen;
  o.woodbury = true;
  paths.push_back({"A.3 woodbury", o});
  o.woodbury = false;
  o.approximate_steps = 3;
  paths.push_back({"A.4 approximate steps", o});
  o.woodbury = true;
  paths.push_back({"A.3 + A.4", o});
  o = SolverOptions{};
  o.init = SolverOptions::Init::subset;
  o.anderson_depth = 3;
  paths.push_back({"Anderson", o});
  o.mixed_precision = true;
  paths.push_back({"Anderson + mixed precision", o});
  o.anderson_depth = 0;
  paths.push_back({"mixed precision", o});
  o.newton = true;
  paths.push_back({"Newton + mixed precision", o});
  o.mixed_precision = false;
  paths.push_back({"Newton", o});
  // A.3 with a looser activity threshold, so that eq 72 is really used (checked below).
  o = SolverOptions{};
  o.woodbury = true;
  o.active_threshold = 5e-4;
  paths.push_back({"A.3 woodbury (threshold 5e-4)", o});
  int woodbury_used = 0;
  for (const auto& p : paths) {
    const Solution s = solve(K, f.data.y_train, 0.01, occ, p.o);
    woodbury_used += s.woodbury_updates;
    EXPECT_TRUE(s.converged) << p.name << ": " << s.message;
    if (p.o.mixed_precision) {
      EXPECT_GT(s.single_evaluations, 0) << p.name;
      EXPECT_GE(s.exact_g, 1) << p.name;  // the fixed point is confirmed in double
    }
    for (Eigen::Index i = 0; i < K.rows(); ++i) {
      EXPECT_NEAR(s.dl(i), ref.dl(i), 2e-3 * ref.dl(i)) << p.name << " site " << i;
      EXPECT_NEAR(s.dlc(i), ref.dlc(i), 2e-3 * ref.dlc(i)) << p.name << " site " << i;
    }
    EXPECT_NEAR(test_error_square(s, f.data.y_train), err_ref, 5e-3 * err_ref) << p.name;
  }
  EXPECT_GT(woodbury_used, 0);  // eq 72 was exercised
}

// N = 1: the theory is exact (the cavity of the only site is the prior, and the predictor
// y k11 s / (s k11 + s2) depends on s alone).
TEST(adatap, SingleDataPointIsExact) {
  Fixture f(1, 1, 1.3, 0.2);
  f.data.y_train(0) = 0.8;
  const Results a = adatap(f.problem, {{"tolerance", 1e-10}});
  const Occupation occ = occupation_of(*f.problem.resampler, 1e-14);
  const double k11 = 1.0, y = 0.8, s2 = 0.2;
  double mean = 0, second = 0;
  for (Eigen::Index k = 0; k < occ.pmf.size(); ++k) {
    const double f_k = y * k11 * static_cast<double>(k) / (static_cast<double>(k) * k11 + s2);
    mean += occ.pmf(k) * f_k;
    second += occ.pmf(k) * f_k * f_k;
  }
  EXPECT_NEAR(a.scalars.at("test_error_square"), y * y, 1e-9);  // out of bag: predictor 0
  EXPECT_NEAR(a.vectors.at("train_prediction_mean")(0), mean, 1e-7);
  EXPECT_NEAR(a.vectors.at("train_prediction_variance")(0), second - mean * mean, 1e-7);
}

// S/N -> infinity: every point is in every resample many times; the bootstrap mean tends to
// the full-data GP prediction and the variance to zero (both O(N/S)).
TEST(adatap, LargeSampleLimitIsTheFullDataGp) {
  Fixture f(30, 5, 200.0);
  const Results a = adatap(f.problem);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  // With nu = 200 the effective noise is s2/nu; the GP with noise s2 differs by O(1/nu).
  Problem q = f.problem;
  q.likelihood = std::make_shared<testing::NoiseOnlyGaussian>(0.01 / 200.0);
  const Results gp_nu =
      gp_regression::ExactGpRegression(Params(gp_regression::ExactGpRegression::schema(), {}))
          .run(q);
  for (Eigen::Index i = 0; i < 5; ++i) {
    EXPECT_NEAR(a.vectors.at("prediction_mean")(i), gp_nu.vectors.at("test_mean")(i), 2e-3);
    EXPECT_LT(a.vectors.at("prediction_variance")(i), 1e-3);
  }
  for (Eigen::Index i = 0; i < 30; ++i)
    EXPECT_NEAR(a.vectors.at("train_prediction_mean")(i), gp_nu.vectors.at("train_mean")(i), 2e-3);
}

// sigma^2 -> infinity: the predictor s-linearizes, f_i = sum_j K_ij s_j y_j / s2 + O(s2^-2),
// so with Poisson(nu) counts E f = nu K y / s2, Var f_i = nu sum_j K_ij^2 y_j^2 / s2^2, and
// the out-of-bag error of point i drops j = i from both sums.
TEST(adatap, LargeNoiseLimitIsLinear) {
  const double s2 = 1e4, nu = 1.5;
  Fixture f(20, 0, nu, s2);
  const Results a = adatap(f.problem, {{"tolerance", 1e-9}});
  const Eigen::MatrixXd K = f.problem.kernel->cross(f.data.X_train, f.data.X_train);
  const Eigen::VectorXd& y = f.data.y_train;
  const Eigen::VectorXd mean = nu * K * y / s2;
  const Eigen::VectorXd var = nu * K.cwiseAbs2() * y.cwiseAbs2() / (s2 * s2);
  double err = 0;
  for (Eigen::Index i = 0; i < 20; ++i) {
    const double mi = mean(i) - nu * K(i, i) * y(i) / s2;
    const double vi = var(i) - nu * K(i, i) * K(i, i) * y(i) * y(i) / (s2 * s2);
    err += ((mi - y(i)) * (mi - y(i)) + vi) / 20;
  }
  const Eigen::VectorXd am = a.vectors.at("train_prediction_mean");
  const Eigen::VectorXd av = a.vectors.at("train_prediction_variance");
  // Relative corrections are O(K y / s2) ~ 1e-3.
  for (Eigen::Index i = 0; i < 20; ++i) {
    EXPECT_NEAR(am(i), mean(i), 1e-2 * mean.cwiseAbs().maxCoeff());
    EXPECT_NEAR(av(i), var(i), 1e-2 * var.maxCoeff());
  }
  EXPECT_NEAR(a.scalars.at("test_error_square"), err, 1e-6 * err);
}

TEST(adatap, NonConvergenceIsReported) {
  Fixture f(30, 0, 1.0);
  const Results a =
      adatap(f.problem, {{"max_iterations", std::int64_t{1}}, {"init", std::string("constant")}});
  EXPECT_EQ(a.status.code, RunStatus::not_converged);
  EXPECT_FALSE(a.status.message.empty());
  EXPECT_EQ(a.status.iterations, 1);
}

// Eq 67 is a probability density: the binned masses sum to 1 and its mean is the bootstrap
// mean m_i of eq 61 (both follow from eqs 60-61 at the fixed point).
TEST(adatap, PredictorDensityIsNormalizedWithTheBootstrapMean) {
  Fixture f(60, 0, 2.0, 0.01, 4.0);
  const Results a = adatap(f.problem, {{"tolerance", 1e-9}});
  const Eigen::MatrixXd P = a.matrices.at("predictor_density_bins");
  const Eigen::MatrixXd M = a.matrices.at("predictor_density_means");
  const Eigen::VectorXd w = a.vectors.at("predictor_density_weights");
  const Eigen::MatrixXd V = a.matrices.at("predictor_density_variances");
  for (Eigen::Index i = 0; i < P.rows(); ++i) {
    // Eq 62 (the mixture's variance) equals eq 40 at the fixed point (eq 65 is their equality).
    const double mean = M.row(i).dot(w);
    const double var = (V.row(i) + M.row(i).cwiseAbs2()).dot(w) - mean * mean;
    EXPECT_NEAR(var, a.vectors.at("train_prediction_variance")(i), 1e-6 * (1 + var)) << i;
    EXPECT_NEAR(P.row(i).sum(), 1.0, 1e-8);
    EXPECT_NEAR(M.row(i).dot(w), a.vectors.at("train_prediction_mean")(i), 1e-6);
  }
}

TEST(adatap, ApproximateMethodRunsWithoutIteration) {
  Fixture f(40, 0, 1.0);
  const Results a = adatap(f.problem, {{"method", std::string("approximate")}});
  const Results full = adatap(f.problem);
  EXPECT_EQ(a.scalars.at("iterations"), 0);
  EXPECT_EQ(a.scalars.at("exact_g_computations"), 1);
  // Same order of magnitude as the full solution (000 Fig. 1: a few per cent to ~20 % off).
  EXPECT_NEAR(a.scalars.at("test_error_square"), full.scalars.at("test_error_square"),
              0.5 * full.scalars.at("test_error_square"));
}

// The model at new inputs: written to a model file and read back it predicts bitwise what it
// did, and the engine's test outputs are its predictions.
TEST(adatap, ModelSavedAndLoadedPredictsBitwiseTheSame) {
  Fixture f(40, 7, 1.0);
  f.problem.make_model = true;
  const Results r = adatap(f.problem);
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), "adatap_bootstrap");
  const auto loaded =
      testing::through_file(AdatapBootstrap(Params(AdatapBootstrap::schema(), {})), *r.model,
                            {f.problem.kernel, f.problem.likelihood, nullptr, &f.data.X_train});
  std::mt19937 gen(9);
  std::uniform_real_distribution<double> u(-3, 3);
  Eigen::MatrixXd X(1100, 2);  // three blocks of new inputs
  for (Eigen::Index i = 0; i < X.size(); ++i) X(i) = u(gen);
  const Predictions a = r.model->predict(X), b = loaded->predict(X);
  EXPECT_EQ(a.columns, (std::vector<std::string>{"bootstrap_mean", "bootstrap_variance"}));
  EXPECT_EQ(a.units,
            (std::vector<PredictionUnit>{PredictionUnit::target, PredictionUnit::target_variance}));
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_TRUE(a.values == b.values);
  const Predictions t = r.model->predict(f.data.X_test);
  EXPECT_TRUE(t.column("bootstrap_mean") == r.vectors.at("prediction_mean"));
  EXPECT_TRUE(t.column("bootstrap_variance") == r.vectors.at("prediction_variance"));
  f.problem.make_model = false;
  EXPECT_FALSE(adatap(f.problem).model);
}

// Eq 57 at any input, computed densely with T = (I + diag(Delta lambda) K)^{-1} from an LU
// inverse (the model goes through G instead); at the training inputs it is eq 39's mean and
// eq 40's variance, which the solver computes from G. 1e-10: both are O(N^3)-flop evaluations
// of the same expressions in double precision with a well-conditioned T (condition ~1e3 here).
TEST(adatap, ModelIsEqFiftySevenAtAnyInput) {
  Fixture f(60, 0, 0.8);
  f.problem.make_model = true;
  const Results r = adatap(f.problem);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  ModelArchive archive;
  r.model->write(archive);
  const Eigen::VectorXd& dl = archive.vector("posterior/delta_lambda");
  const Eigen::VectorXd& gamma = archive.vector("posterior/gamma");
  const Eigen::VectorXd& lambda = archive.vector("posterior/lambda");
  EXPECT_TRUE(dl == r.vectors.at("delta_lambda"));
  const Kernel& k = *f.problem.kernel;
  const Eigen::MatrixXd K = k.cross(f.data.X_train, f.data.X_train);
  const Eigen::Index n = K.rows();
  const Eigen::MatrixXd T =
      (Eigen::MatrixXd::Identity(n, n) + dl.asDiagonal() * K).partialPivLu().inverse();
  std::mt19937 gen(10);
  std::uniform_real_distribution<double> u(-2.5, 2.5);
  Eigen::MatrixXd X(25, 2);
  for (Eigen::Index i = 0; i < X.size(); ++i) X(i) = u(gen);
  const Eigen::MatrixXd Kx = k.cross(f.data.X_train, X);
  const Eigen::VectorXd mean = Kx.transpose() * T * gamma;
  const Eigen::VectorXd var =
      -(Kx.transpose() * T * lambda.asDiagonal() * T.transpose() * Kx).diagonal();
  const Predictions p = r.model->predict(X);
  auto relative = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
  };
  EXPECT_LT(relative(p.column("bootstrap_mean"), mean), 1e-10);
  EXPECT_LT(relative(p.column("bootstrap_variance"), var), 1e-10);
  EXPECT_GT(var.minCoeff(), 0.0);
  const Predictions train = r.model->predict(f.data.X_train);
  EXPECT_LT(relative(train.column("bootstrap_mean"), r.vectors.at("train_prediction_mean")), 1e-10);
  EXPECT_LT(relative(train.column("bootstrap_variance"), r.vectors.at("train_prediction_variance")),
            1e-10);
}

}  // namespace
}  // namespace quench::adatap::adatap_bootstrap_test
