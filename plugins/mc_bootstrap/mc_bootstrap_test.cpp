// The Monte-Carlo bootstrap against an exact enumeration of every resample of a tiny data
// set, its error formula against a hand computation, and thread-count invariance; for GP
// regression and (with the 0/1 loss) for the GP classifiers.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include "model_round_trip.h"
#include "toy_models.h"

#include "bernoulli_subsample.h"
#include "bootstrap_resamplers.h"
#include "ep.h"
#include "exact_gp_regression.h"
#include "mc_bootstrap.h"
#include "mc_bootstrap_model.h"
#include "multiclass_ep.h"
#include "multinomial_probit_likelihood.h"
#include "probit_likelihood.h"
#include "quench/losses.h"
#include "quench/normal.h"
#include "quench/rng.h"
#include "test_engines.h"

namespace quench::mc_bootstrap {
namespace {

struct Fixture {
  Dataset data;
  Problem problem;
  Fixture(int n, int m, double ratio) {
    std::mt19937 gen(11);
    std::normal_distribution<double> z;
    data.X_train.resize(n, 1);
    data.y_train.resize(n);
    data.X_test.resize(m, 1);
    for (int i = 0; i < n; ++i) {
      data.X_train(i, 0) = 0.7 * i;
      data.y_train(i) = std::sin(data.X_train(i, 0)) + 0.3 * z(gen);
    }
    for (int i = 0; i < m; ++i) data.X_test(i, 0) = 0.5 + i;
    data.y_test = Eigen::VectorXd::Zero(m);
    problem.data = &data;
    problem.kernel = std::make_shared<testing::UnitSquaredExponential>();
    problem.likelihood = std::make_shared<testing::NoiseOnlyGaussian>(0.1);
    auto r = std::make_shared<resamplers::MultinomialBootstrap>(
        Params(resamplers::MultinomialBootstrap::schema(), {{"ratio", ratio}}));
    r->prepare(n);
    problem.resampler = r;
    problem.seed = 5;
    problem.context.make_engine = [](const std::string&) {
      return std::make_shared<gp_regression::ExactGpRegression>(
          Params(gp_regression::ExactGpRegression::schema(), {}));
    };
  }
};

Results run(const Problem& p, std::int64_t samples, int threads) {
  Problem q = p;
  q.context.threads = threads;
  return McBootstrap(Params(McBootstrap::schema(), {{"samples", samples}})).run(q);
}

TEST(McBootstrap, OutOfBagErrorMatchesHandComputation) {
  Eigen::MatrixXd F(2, 3), O(2, 3);
  F << 1, 2, 3, 0, 0, 4;
  O << 1, 0, 1, 0, 0, 1;
  Eigen::VectorXd y(2);
  y << 0, 1;
  // Point 0: out of bag in samples 0 and 2: (1 + 9)/2 = 5. Point 1: sample 2: 9. Mean 7.
  const auto e = out_of_bag_error(F, O, y, [](double f, double t) { return square_loss(f - t); });
  EXPECT_DOUBLE_EQ(e.value, 7.0);
  EXPECT_EQ(e.points, 2);
  EXPECT_GT(e.standard_error, 0.0);
}

TEST(McBootstrap, AgreesWithExactEnumerationOfAllResamples) {
  const int n = 4;
  Fixture f(n, 2, 1.0);
  const auto model = f.problem.context.make_engine("")->prepare_resampling(f.problem);
  // Every sequence of S = N draws is equally likely: 4^4 resamples.
  Eigen::VectorXd num = Eigen::VectorXd::Zero(n), den = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd mean_test = Eigen::VectorXd::Zero(2);
  std::vector<Eigen::VectorXd> test_predictions;
  const int total = 256;
  for (int code = 0; code < total; ++code) {
    Eigen::VectorXd counts = Eigen::VectorXd::Zero(n);
    for (int d = 0, c = code; d < n; ++d, c /= n) counts(c % n) += 1;
    const Eigen::VectorXd pred = model->predict(counts);
    for (int i = 0; i < n; ++i)
      if (counts(i) == 0) {
        num(i) += square_loss(pred(i) - f.data.y_train(i));
        den(i) += 1;
      }
    mean_test += pred.tail(2);
    test_predictions.push_back(pred.tail(2));
  }
  const double exact = (num.array() / den.array()).mean();
  mean_test /= total;
  // Exact central moments of the test predictions over all resamples.
  Eigen::VectorXd var_test = Eigen::VectorXd::Zero(2), m4_test = Eigen::VectorXd::Zero(2);
  for (const auto& p : test_predictions) {
    var_test += (p - mean_test).cwiseAbs2() / total;
    m4_test += (p - mean_test).array().pow(4).matrix() / total;
  }

  const Results r = run(f.problem, 20000, 2);
  const double se = r.scalars.at("test_error_square_stderr");
  EXPECT_GT(se, 0.0);
  // A 4.5-sigma band: fails with probability ~1e-5 if the estimator and its error are right.
  EXPECT_NEAR(r.scalars.at("test_error_square"), exact, 4.5 * se);
  const Eigen::VectorXd mean_se = r.vectors.at("prediction_mean_stderr");
  for (int j = 0; j < 2; ++j) {
    EXPECT_NEAR(r.vectors.at("prediction_mean")(j), mean_test(j), 4.5 * mean_se(j));
    // The sample variance of T draws has standard error sqrt((mu4 - sigma^4) / T).
    const double var_se = std::sqrt((m4_test(j) - var_test(j) * var_test(j)) / 20000);
    EXPECT_NEAR(r.vectors.at("prediction_variance")(j), var_test(j), 4.5 * var_se);
  }
}

TEST(McBootstrap, ResultsDoNotDependOnTheThreadCount) {
  Fixture f(30, 3, 1.0);
  const Results one = run(f.problem, 64, 1), two = run(f.problem, 64, 2);
  EXPECT_EQ(one.scalars.at("test_error_square"), two.scalars.at("test_error_square"));
  EXPECT_EQ(one.matrices.at("predictor_samples"), two.matrices.at("predictor_samples"));
  EXPECT_EQ(one.vectors.at("prediction_variance"), two.vectors.at("prediction_variance"));
}

Eigen::MatrixXd new_inputs(Eigen::Index rows, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 22.0);
  Eigen::MatrixXd X(rows, 1);
  for (Eigen::Index i = 0; i < rows; ++i) X(i, 0) = u(gen);
  return X;
}

// The model keeps the retrains: written to a model file and read back it predicts bitwise what
// it did, and the engine's test outputs are its predictions.
TEST(McBootstrap, ModelSavedAndLoadedPredictsBitwiseTheSame) {
  Fixture f(30, 4, 1.0);
  f.problem.make_model = true;
  const Results r = run(f.problem, 40, 2);
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), "mc_bootstrap");
  ModelArchive archive;
  r.model->write(archive);
  EXPECT_EQ(archive.matrix("posterior/coefficients").cols(), 40);
  const auto loaded =
      testing::through_file(McBootstrap(Params(McBootstrap::schema(), {})), *r.model,
                            {f.problem.kernel, f.problem.likelihood, nullptr, &f.data.X_train});
  const Eigen::MatrixXd X = new_inputs(600, 4);  // three blocks of new inputs
  const Predictions a = r.model->predict(X), b = loaded->predict(X);
  EXPECT_EQ(a.columns, (std::vector<std::string>{"bootstrap_mean", "bootstrap_variance"}));
  EXPECT_EQ(a.units,
            (std::vector<PredictionUnit>{PredictionUnit::target, PredictionUnit::target_variance}));
  EXPECT_TRUE(a.values == b.values);
  const Predictions t = r.model->predict(f.data.X_test);
  EXPECT_TRUE(t.column("bootstrap_mean") == r.vectors.at("prediction_mean"));
  EXPECT_TRUE(t.column("bootstrap_variance") == r.vectors.at("prediction_variance"));
  // Neither the thread count nor asking for the model changes the numbers.
  Problem no_model = f.problem;
  no_model.make_model = false;
  const Results plain = run(no_model, 40, 1);
  EXPECT_FALSE(plain.model);
  EXPECT_TRUE(plain.vectors.at("prediction_mean") == r.vectors.at("prediction_mean"));
}

// The model's mean and variance at new inputs are those of T retrains done here independently:
// the same resamples (one RNG stream per sample), each GP solved densely with an LDLT of
// K_AA + sigma^2 diag(1/s_A) and evaluated at the inputs. 1e-10: two double-precision solves of
// systems with condition number ~1e4 (unit-length RBF, sigma^2 = 0.1).
TEST(McBootstrap, ModelIsTheMeanAndVarianceOfIndependentRetrains) {
  Fixture f(25, 0, 0.7);
  f.problem.make_model = true;
  const std::int64_t T = 30;
  const Results r = run(f.problem, T, 2);
  ASSERT_TRUE(r.model);
  const Eigen::MatrixXd X = new_inputs(40, 5);
  const testing::UnitSquaredExponential k;
  Eigen::MatrixXd F(X.rows(), T);
  for (std::int64_t t = 0; t < T; ++t) {
    RngStream rng(f.problem.seed, static_cast<std::uint64_t>(t));
    const Eigen::VectorXd w = f.problem.resampler->sample(rng);
    std::vector<Eigen::Index> kept;
    for (Eigen::Index i = 0; i < w.size(); ++i)
      if (w(i) > 0) kept.push_back(i);
    const auto m = static_cast<Eigen::Index>(kept.size());
    Eigen::MatrixXd XA(m, 1), A(m, m);
    Eigen::VectorXd yA(m);
    for (Eigen::Index a = 0; a < m; ++a) {
      XA(a, 0) = f.data.X_train(kept[std::size_t(a)], 0);
      yA(a) = f.data.y_train(kept[std::size_t(a)]);
    }
    A = k.cross(XA, XA);
    for (Eigen::Index a = 0; a < m; ++a) A(a, a) += 0.1 / w(kept[std::size_t(a)]);
    F.col(t) = k.cross(X, XA) * A.ldlt().solve(yA);
  }
  const Eigen::VectorXd mean = F.rowwise().mean();
  const Eigen::VectorXd var = (F.colwise() - mean).rowwise().squaredNorm() / double(T - 1);
  const Predictions p = r.model->predict(X);
  auto relative = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
  };
  EXPECT_LT(relative(p.column("bootstrap_mean"), mean), 1e-10);
  EXPECT_LT(relative(p.column("bootstrap_variance"), var), 1e-10);
}

// An inner engine whose retrains are not kernel expansions: the run still gives its results,
// makes no model and says why.
class OpaqueRetrains final : public ResampledModel {
 public:
  explicit OpaqueRetrains(Eigen::Index rows) : rows_(rows) {}
  Eigen::VectorXd predict(const Eigen::VectorXd& w, Eigen::VectorXd*) const override {
    return Eigen::VectorXd::Constant(rows_, w.sum());
  }

 private:
  Eigen::Index rows_;
};
class OpaqueEngine final : public InferenceEngine {
 public:
  Results run(const Problem&) const override { return {}; }
  std::unique_ptr<ResampledModel> prepare_resampling(const Problem& p) const override {
    return std::make_unique<OpaqueRetrains>(p.data->X_train.rows() + p.data->X_test.rows());
  }
  Retraining retraining() const override { return {true, true, true, false}; }
};

TEST(McBootstrap, NoModelWithAReasonWhenRetrainsAreNotKernelExpansions) {
  Fixture f(10, 2, 1.0);
  f.problem.make_model = true;
  f.problem.context.make_engine = [](const std::string&) {
    return std::make_shared<OpaqueEngine>();
  };
  const Results r = run(f.problem, 8, 1);
  EXPECT_FALSE(r.model);
  EXPECT_NE(r.info.at("model_refused").find("not kernel expansions"), std::string::npos);
  EXPECT_EQ(r.vectors.at("prediction_mean").size(), 2);
}

// --- Classification: the 0/1 loss of the sign of the retrained classifier's latent mean ---

// The classification guide's model: probit (noise 0.3) on the noise-free latent of a unit
// RBF kernel; 1-D inputs with labels that alternate, so that left-out points are often wrong.
struct ClassFixture {
  Dataset data;
  Problem problem;
  ClassFixture(int n, int m, double ratio) {
    data.X_train.resize(n, 1);
    data.y_train.resize(n);
    for (int i = 0; i < n; ++i) {
      data.X_train(i, 0) = 0.6 * i + 0.1 * std::sin(7.0 * i);
      data.y_train(i) = (i % 3 == 1) ? 1.0 : -1.0;
    }
    data.X_test.resize(m, 1);
    data.y_test.resize(m);
    for (int j = 0; j < m; ++j) {
      data.X_test(j, 0) = 0.3 + 0.7 * j;
      data.y_test(j) = j % 2 ? -1.0 : 1.0;
    }
    problem.data = &data;
    problem.kernel = std::make_shared<testing::UnitSquaredExponential>();
    problem.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(0.3, 0.0);
    auto r = std::make_shared<resamplers::BernoulliSubsample>(
        Params(resamplers::BernoulliSubsample::schema(), {{"ratio", ratio}}));
    r->prepare(n);
    problem.resampler = r;
    problem.seed = 9;
    problem.context.make_engine = [](const std::string& name) -> std::shared_ptr<InferenceEngine> {
      if (name == "multiclass_ep")
        return std::make_shared<multiclass::MulticlassEpEngine>(
            Params(multiclass::MulticlassEpEngine::schema(), {}));
      return latent_gp::make_classifier(name);
    };
  }
};

Results run_inner(const Problem& p, const std::string& inner, std::int64_t samples, int threads) {
  Problem q = p;
  q.context.threads = threads;
  return McBootstrap(Params(McBootstrap::schema(), {{"samples", samples}, {"inner", inner}}))
      .run(q);
}

double theta_error(double t, double f) { return t * f <= 0.0 ? 1.0 : 0.0; }

// Bernoulli subsampling at p = 0.5 makes all 2^N subsets equally likely: the exact bootstrap
// averages are plain means over the 16 subsets, each fitted by the inner engine's retrain.
TEST(McBootstrapClassification, AgreesWithExactEnumerationOfAllSubsets) {
  const int n = 4, m = 2, subsets = 16;
  const std::int64_t T = 20000;
  for (const char* inner : {"ep", "svm_limit"}) {
    SCOPED_TRACE(inner);
    ClassFixture f(n, m, 0.5);
    const auto model = f.problem.context.make_engine(inner)->prepare_resampling(f.problem);
    Eigen::VectorXd left_out = Eigen::VectorXd::Zero(n);  // sum over subsets without point i
    double test_error = 0.0;
    Eigen::MatrixXd F(n + m, subsets);
    for (int code = 0; code < subsets; ++code) {
      Eigen::VectorXd counts(n);
      for (int i = 0; i < n; ++i) counts(i) = (code >> i) & 1;
      F.col(code) = model->predict(counts);
      for (int i = 0; i < n; ++i)
        if (counts(i) == 0) left_out(i) += theta_error(f.data.y_train(i), F(i, code));
      for (int j = 0; j < m; ++j)
        test_error += theta_error(f.data.y_test(j), F(n + j, code)) / (m * subsets);
    }
    left_out /= subsets / 2;  // every point is out of half the subsets
    const Eigen::VectorXd mean = F.rowwise().mean();
    const Eigen::VectorXd var = (F.colwise() - mean).rowwise().squaredNorm() / subsets;
    const Eigen::VectorXd m4 = (F.colwise() - mean).array().pow(4).rowwise().mean();
    ASSERT_GT(left_out.mean(), 0.05);  // a problem where the error is neither 0 nor 1
    ASSERT_LT(left_out.mean(), 0.95);

    const Results r = run_inner(f.problem, inner, T, 2);
    EXPECT_EQ(r.info.at("loss"), "zero_one");
    EXPECT_EQ(r.scalars.count("test_error_square"), 0u);
    const double se = r.scalars.at("bootstrap_error_stderr");
    EXPECT_GT(se, 0.0);
    // 4.5-sigma bands: each fails with probability ~1e-5 if the estimator and its error are right.
    EXPECT_NEAR(r.scalars.at("bootstrap_error"), left_out.mean(), 4.5 * se);
    const Eigen::VectorXd& per_point = r.vectors.at("left_out_error");
    for (int i = 0; i < n; ++i) {  // a binomial proportion over the ~T/2 samples without i
      const double p = left_out(i);
      EXPECT_NEAR(per_point(i), p, 4.5 * std::sqrt(p * (1 - p) / (0.45 * T)) + 1e-15);
    }
    const double test_se = r.scalars.at("test_bootstrap_error_stderr");
    EXPECT_NEAR(r.scalars.at("test_bootstrap_error"), test_error, 4.5 * test_se);
    const Eigen::VectorXd mc_mean((Eigen::VectorXd(n + m) << r.vectors.at("train_prediction_mean"),
                                   r.vectors.at("prediction_mean"))
                                      .finished());
    const Eigen::VectorXd mc_var(
        (Eigen::VectorXd(n + m) << r.vectors.at("train_prediction_variance"),
         r.vectors.at("prediction_variance"))
            .finished());
    for (int i = 0; i < n + m; ++i) {
      EXPECT_NEAR(mc_mean(i), mean(i), 4.5 * std::sqrt(var(i) / T));
      EXPECT_NEAR(mc_var(i), var(i), 4.5 * std::sqrt((m4(i) - var(i) * var(i)) / T));
    }
  }
}

TEST(McBootstrapClassification, ResultsDoNotDependOnTheThreadCount) {
  for (const char* inner : {"ep", "tap", "svm_limit"}) {
    SCOPED_TRACE(inner);
    ClassFixture f(20, 5, 0.632);
    const Results one = run_inner(f.problem, inner, 64, 1),
                  two = run_inner(f.problem, inner, 64, 2);
    EXPECT_EQ(one.scalars.at("bootstrap_error"), two.scalars.at("bootstrap_error"));
    EXPECT_EQ(one.scalars.at("test_bootstrap_error"), two.scalars.at("test_bootstrap_error"));
    EXPECT_EQ(one.vectors.at("left_out_error"), two.vectors.at("left_out_error"));
    EXPECT_EQ(one.matrices.at("predictor_samples"), two.matrices.at("predictor_samples"));
    EXPECT_EQ(one.vectors.at("prediction_mean"), two.vectors.at("prediction_mean"));
    EXPECT_EQ(one.vectors.at("prediction_variance"), two.vectors.at("prediction_variance"));
    if (std::string(inner) == "svm_limit")  // no latent posterior: no probabilities
      EXPECT_EQ(one.vectors.count("prediction_probability"), 0u);
    else
      EXPECT_EQ(one.vectors.at("prediction_probability"), two.vectors.at("prediction_probability"));
  }
}

// Each retrain's predictive probability at the test inputs, averaged (the Monte-Carlo
// E[p(+1 | x, D)] of the classification guide's eq 21): against the retrains redone here on the
// same Poisson draws, EP by solve_ep and the latent variance at x from a dense inverse of the
// joint posterior precision of (f at the drawn points, f(x)) -- not the engine's
// B = I + S C S form -- with p = Phi(<f(x)> / sqrt(sigma^2 + lambda(x))) for the probit.
// 1e-10: the same EP fits, the variance by another factorization of a system with
// condition < 1e5.
TEST(McBootstrapClassification, TestProbabilitiesAreTheRetrainsPredictiveProbabilities) {
  const int n = 16, m = 5;
  const std::int64_t T = 30;
  ClassFixture f(n, m, 0.632);
  auto poisson = std::make_shared<resamplers::PoissonBootstrap>(
      Params(resamplers::PoissonBootstrap::schema(), {{"ratio", 1.0}}));
  poisson->prepare(n);
  f.problem.resampler = poisson;
  const double noise = 0.3;  // the fixture's probit
  const Eigen::MatrixXd K = f.problem.kernel->cross(f.data.X_train, f.data.X_train);
  const Eigen::MatrixXd Kx = f.problem.kernel->cross(f.data.X_train, f.data.X_test);
  const Eigen::VectorXd kxx = f.problem.kernel->diagonal(f.data.X_test);
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(m);
  int repeated = 0;  // samples with a point drawn more than once (k-fold sites)
  for (std::int64_t s = 0; s < T; ++s) {
    RngStream rng(f.problem.seed, static_cast<std::uint64_t>(s));
    const Eigen::VectorXd w = f.problem.resampler->sample(rng);
    std::vector<Eigen::Index> kept;
    for (Eigen::Index i = 0; i < n; ++i)
      if (w(i) > 0) kept.push_back(i);
    const auto a = static_cast<Eigen::Index>(kept.size());
    ASSERT_GT(a, 0);
    repeated += (w.array() > 1.0).any();
    Eigen::MatrixXd C(a, a);
    Eigen::VectorXd t(a);
    Eigen::VectorXi k(a);
    for (Eigen::Index b = 0; b < a; ++b) {
      for (Eigen::Index c = 0; c < a; ++c) C(b, c) = K(kept[b], kept[c]);
      t(b) = f.data.y_train(kept[b]);
      k(b) = static_cast<int>(w(kept[b]));
    }
    const latent_gp::MeanFieldFit fit =
        latent_gp::solve_ep(C, t, k, *f.problem.likelihood, latent_gp::EpOptions{});
    ASSERT_EQ(fit.status.code, RunStatus::ok);
    for (Eigen::Index x = 0; x < m; ++x) {
      Eigen::MatrixXd joint(a + 1, a + 1);  // prior covariance of (f_A, f(x))
      joint.topLeftCorner(a, a) = C;
      for (Eigen::Index b = 0; b < a; ++b) joint(b, a) = joint(a, b) = Kx(kept[b], x);
      joint(a, a) = kxx(x);
      Eigen::MatrixXd precision = joint.fullPivLu().inverse();
      precision.diagonal().head(a) += fit.tau;
      const double variance = precision.fullPivLu().inverse()(a, a);
      double mean = 0;
      for (Eigen::Index b = 0; b < a; ++b) mean += Kx(kept[b], x) * fit.slope(b);
      expected(x) += normal_cdf(mean / std::sqrt(noise + variance)) / static_cast<double>(T);
    }
  }
  ASSERT_GT(repeated, 0);
  const Results r = run_inner(f.problem, "ep", T, 2);
  const Eigen::VectorXd& p = r.vectors.at("prediction_probability");
  EXPECT_LT((p - expected).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_EQ(r.vectors.at("prediction_probability_stderr").size(), m);
  EXPECT_GT(r.vectors.at("prediction_probability_stderr").minCoeff(), 0.0);
}

// The kept retrains (kernel expansions t o alpha) give the per-sample latent means at the test
// inputs: K(x, X) a against the retrain's own test outputs, and the run's test moments (from
// the kept coefficients) against the moments of the retrains redone here with the same draws.
// 1e-10: the same numbers summed in a different order (a GEMM of N-term sums, |a| ~ 1).
TEST(McBootstrapClassification, KeptRetrainsReproduceTheTestLatentMeans) {
  const int n = 20, m = 7;
  const std::int64_t T = 40;
  ClassFixture f(n, m, 0.632);
  const auto model = f.problem.context.make_engine("ep")->prepare_resampling(f.problem);
  const Eigen::MatrixXd Kx = f.problem.kernel->cross(f.data.X_test, f.data.X_train);
  Eigen::MatrixXd G(m, T);
  for (std::int64_t t = 0; t < T; ++t) {
    RngStream rng(f.problem.seed, static_cast<std::uint64_t>(t));
    Eigen::VectorXd a;
    const Eigen::VectorXd pred = model->predict(f.problem.resampler->sample(rng), &a);
    EXPECT_LT((Kx * a - pred.tail(m)).cwiseAbs().maxCoeff(), 1e-10);
    G.col(t) = pred.tail(m);
  }
  const Eigen::VectorXd mean = G.rowwise().mean();
  const Eigen::VectorXd var = (G.colwise() - mean).rowwise().squaredNorm() / double(T - 1);
  Problem q = f.problem;
  q.make_model = true;
  const Results r = run_inner(q, "ep", T, 2);
  ASSERT_TRUE(r.model);
  EXPECT_LT((r.vectors.at("prediction_mean") - mean).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((r.vectors.at("prediction_variance") - var).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(McBootstrapClassification, LossFollowsTheTargetsOrTheParameter) {
  ClassFixture f(10, 0, 0.632);
  Problem q = f.problem;
  const auto with_loss = [&](const char* loss) {
    return McBootstrap(
               Params(McBootstrap::schema(), {{"samples", 8}, {"inner", "ep"}, {"loss", loss}}))
        .run(q);
  };
  // Forced regression on +-1 labels: the square loss of f - y.
  const Results reg = with_loss("regression");
  EXPECT_EQ(reg.info.at("loss"), "regression");
  EXPECT_EQ(reg.scalars.count("bootstrap_error"), 0u);
  EXPECT_GT(reg.scalars.at("test_error_square"), 0.0);
  // 0/1 labels are class labels too (0 -> -1): the same errors as with -1/+1.
  const Results pm = with_loss("auto");
  f.data.y_train = (f.data.y_train.array() + 1.0) / 2.0;
  const Results zo = with_loss("auto");
  EXPECT_EQ(pm.scalars.at("bootstrap_error"), zo.scalars.at("bootstrap_error"));
  // Regression targets with the 0/1 loss are refused.
  Fixture g(10, 0, 1.0);
  EXPECT_THROW(McBootstrap(Params(McBootstrap::schema(), {{"samples", 8}, {"loss", "zero_one"}}))
                   .run(g.problem),
               ConfigError);
}

}  // namespace
// --- Multi-class: the classes of the retrained joint classifier (multiclass_ep) ---

// Bernoulli subsampling at p = 0.5 on 5 points of 3 classes: the exact bootstrap averages are
// plain means over the 32 subsets (the empty one predicts the prior's uniform probabilities),
// each retrained by the engine's own ResampledModel.
TEST(McBootstrapMulticlass, AgreesWithExactEnumerationOfAllSubsets) {
  const int n = 5, m = 2, C = 3, subsets = 32;
  const std::int64_t T = 4000;
  ClassFixture f(n, m, 0.5);
  for (int i = 0; i < n; ++i) f.data.y_train(i) = i % C;
  f.data.y_test << 0, 2;
  f.data.classes = C;
  f.problem.likelihood = std::make_shared<likelihoods::MultinomialProbitLikelihood>(
      Params(likelihoods::MultinomialProbitLikelihood::schema(), {}));
  const auto model = f.problem.context.make_engine("multiclass_ep")->prepare_resampling(f.problem);
  ASSERT_EQ(model->classes(), C);
  Eigen::VectorXd left_out = Eigen::VectorXd::Zero(n);       // errors over subsets without point i
  Eigen::VectorXd left_out_loss = Eigen::VectorXd::Zero(n);  // and log losses
  Eigen::MatrixXd probability = Eigen::MatrixXd::Zero(m, C);
  double test_error = 0.0;
  for (int code = 0; code < subsets; ++code) {
    Eigen::VectorXd counts(n);
    for (int i = 0; i < n; ++i) counts(i) = (code >> i) & 1;
    const Eigen::VectorXd p = model->predict(counts);
    ASSERT_EQ(p.size(), (n + m) * C);
    const auto label = [&](int input) {
      Eigen::Index best = 0;
      p.segment(input * C, C).maxCoeff(&best);
      return best;
    };
    for (int i = 0; i < n; ++i)
      if (counts(i) == 0) {
        left_out(i) += label(i) != f.data.y_train(i);
        left_out_loss(i) -= std::log(p(i * C + static_cast<Eigen::Index>(f.data.y_train(i))));
      }
    for (int j = 0; j < m; ++j) {
      test_error += (label(n + j) != f.data.y_test(j)) / double(m * subsets);
      probability.row(j) += p.segment((n + j) * C, C).transpose() / subsets;
    }
  }
  left_out /= subsets / 2;
  left_out_loss /= subsets / 2;
  ASSERT_GT(left_out.mean(), 0.05);
  ASSERT_LT(left_out.mean(), 0.95);
  const Results r = run_inner(f.problem, "multiclass_ep", T, 2);
  EXPECT_EQ(r.info.at("loss"), "zero_one");
  const double se = r.scalars.at("bootstrap_error_stderr");
  EXPECT_GT(se, 0.0);
  // 4.5-sigma bands, as the binary test above.
  EXPECT_NEAR(r.scalars.at("bootstrap_error"), left_out.mean(), 4.5 * se);
  EXPECT_NEAR(r.scalars.at("bootstrap_log_loss"), left_out_loss.mean(),
              4.5 * r.scalars.at("bootstrap_log_loss_stderr"));
  EXPECT_NEAR(r.scalars.at("test_bootstrap_error"), test_error,
              4.5 * r.scalars.at("test_bootstrap_error_stderr") + 1e-12);
  const Eigen::MatrixXd& mean = r.matrices.at("prediction_probability");
  const Eigen::MatrixXd& stderr_ = r.matrices.at("prediction_probability_stderr");
  for (int j = 0; j < m; ++j)
    for (int c = 0; c < C; ++c)
      EXPECT_NEAR(mean(j, c), probability(j, c), 4.5 * stderr_(j, c) + 1e-12);
  // The same draws on one thread: the same bits.
  const Results one = run_inner(f.problem, "multiclass_ep", T, 1);
  EXPECT_EQ(one.scalars.at("bootstrap_error"), r.scalars.at("bootstrap_error"));
  EXPECT_EQ(one.matrices.at("prediction_probability"), mean);
}

}  // namespace quench::mc_bootstrap
