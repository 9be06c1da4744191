// The WBB's fitted models (wbb_model.h): saved to a file and loaded back they predict bitwise
// what they predicted before; they reproduce the engine's own test-row outputs exactly; their
// mean and quantile columns equal an independent computation from the draws; the trend
// filter's discrete spline reproduces the fitted values at the training inputs, is linear
// interpolation for order 1 and equals the falling factorial basis expansion for order k; a
// file with a missing or misshapen entry is refused by name.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "adam_optimizer.h"
#include "coordinate_descent.h"
#include "discrete_spline.h"
#include "exponential_weights.h"
#include "model_round_trip.h"
#include "quench/dataset.h"
#include "quench/mlp.h"
#include "quench/model_archive.h"
#include "quench/rng.h"
#include "trend_filter_admm.h"
#include "wbb_engine.h"
#include "wbb_model.h"

namespace quench::wbb::wbb_model_test {
namespace {

std::shared_ptr<resamplers::ExponentialWeights> weights(Eigen::Index n) {
  auto r = std::make_shared<resamplers::ExponentialWeights>(
      Params(resamplers::ExponentialWeights::schema(), {}));
  r->prepare(n);
  return r;
}

Eigen::MatrixXd normal_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  RngStream rng(seed, 0);
  Eigen::MatrixXd X(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) X(i, j) = rng.normal();
  return X;
}

// Type-7 quantile by its definition (Hyndman & Fan 1996): sorted v, h = (T - 1) q,
// v[floor h] + (h - floor h) (v[floor h + 1] - v[floor h]).
double type7(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1) * q;
  const auto lo = static_cast<std::size_t>(h);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double relative(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

void expect_bitwise_equal(const Predictions& a, const Predictions& b) {
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.units, b.units);
  ASSERT_EQ(a.values.rows(), b.values.rows());
  ASSERT_EQ(a.values.cols(), b.values.cols());
  for (Eigen::Index j = 0; j < a.values.cols(); ++j)
    for (Eigen::Index i = 0; i < a.values.rows(); ++i)
      ASSERT_EQ(a.values(i, j), b.values(i, j)) << a.columns[j] << " row " << i;
}

const std::vector<std::string> kRegressionColumns = {"mean", "variance", "q0.025", "q0.5",
                                                     "q0.975"};

// read_model throws ModelFileError naming `entry`.
void expect_refused(const WbbEngine& engine, ModelArchive archive, const ModelParts& parts,
                    const std::string& entry) {
  try {
    engine.read_model(archive, parts);
    ADD_FAILURE() << "no error for " << entry;
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + entry + "'"), std::string::npos) << e.what();
  }
}

// Every entry of `archive` missing, and replaced by each of `wrong`, is refused by name.
void expect_entries_checked(const WbbEngine& engine, const ModelArchive& archive,
                            const ModelParts& parts,
                            const std::vector<std::pair<std::string, ModelArchive::Entry>>& wrong) {
  for (const auto& [name, value] : archive.entries()) {
    ModelArchive missing;
    for (const auto& [other, v] : archive.entries())
      if (other != name) missing.put(other, v);
    expect_refused(engine, missing, parts, name);
  }
  for (const auto& [name, value] : wrong) {
    ModelArchive misshapen = archive;
    misshapen.put(name, value);
    expect_refused(engine, misshapen, parts, name);
  }
}

// ---- linear (diabetes: 400 training rows, 42 test rows) ----

struct Linear {
  Dataset data;
  Problem problem;
  ModelParts parts;
  WbbEngine engine{Params(WbbEngine::schema(), {{"draws", std::int64_t(200)}, {"lambda", 500.0}})};
  Results r;
  Linear() {
    DataSpec spec;
    spec.train_file = std::string(QUENCH_TEST_DATA) + "/diabetes.csv";
    spec.standardize_inputs = true;
    spec.split = SplitRule::first_train;
    spec.count = 400;
    data = load_dataset(spec);
    problem.data = &data;
    problem.resampler = weights(400);
    problem.optimizer = std::make_shared<weighted_solvers::CoordinateDescent>(
        Params(weighted_solvers::CoordinateDescent::schema(), {}));
    problem.seed = 5;
    problem.make_model = true;
    parts.X_train = &data.X_train;
    r = engine.run(problem);
  }
};

TEST(WbbLinearModel, SavedAndLoadedPredictsBitwiseTheSame) {
  Linear f;
  ASSERT_TRUE(f.r.model);
  EXPECT_EQ(f.r.model->kind(), "wbb_linear");
  EXPECT_EQ(f.r.model->input_dimension(), 10);
  const auto loaded = testing::through_file(f.engine, *f.r.model, f.parts);
  const Eigen::MatrixXd X = normal_matrix(1100, 10, 1);  // three blocks of new inputs
  const Predictions a = f.r.model->predict(X);
  EXPECT_EQ(a.columns, kRegressionColumns);
  EXPECT_EQ(a.units, (std::vector<PredictionUnit>{
                         PredictionUnit::target, PredictionUnit::target_variance,
                         PredictionUnit::target, PredictionUnit::target, PredictionUnit::target}));
  expect_bitwise_equal(a, loaded->predict(X));
}

TEST(WbbLinearModel, EqualsTheEnginesOwnPredictions) {
  Linear f;
  const Predictions test = f.r.model->predict(f.data.X_test);
  const Predictions train = f.r.model->predict(f.data.X_train);
  const char* outputs[] = {"mean", "variance", "lower", "median", "upper"};
  for (std::size_t j = 0; j < 5; ++j) {
    EXPECT_EQ(test.column(kRegressionColumns[j]),
              f.r.vectors.at(std::string("prediction_") + outputs[j]));
    EXPECT_EQ(train.column(kRegressionColumns[j]),
              f.r.vectors.at(std::string("train_prediction_") + outputs[j]));
  }
}

TEST(WbbLinearModel, ColumnsEqualTheDrawsSummarizedIndependently) {
  Linear f;
  const Eigen::MatrixXd& beta = f.r.matrices.at("posterior_draws");  // T x p
  const Eigen::VectorXd& b = f.r.vectors.at("intercept_draws");
  const Eigen::MatrixXd X = normal_matrix(300, 10, 2);
  const Predictions p = f.r.model->predict(X);
  // The mean is linear in the draws: X mean(beta) + mean(b).
  const Eigen::VectorXd mean =
      X * beta.colwise().mean().transpose() + Eigen::VectorXd::Constant(300, b.mean());
  EXPECT_LT(relative(p.column("mean"), mean), 1e-12);
  // Variance and quantiles row by row from the draws' values, each a dot product.
  Eigen::VectorXd var(300), lo(300), med(300), hi(300);
  for (Eigen::Index i = 0; i < 300; ++i) {
    std::vector<double> v;
    double s = 0, s2 = 0;
    for (Eigen::Index t = 0; t < beta.rows(); ++t) {
      v.push_back(b(t) + X.row(i).dot(beta.row(t)));
      s += v.back();
    }
    for (const double x : v) s2 += (x - s / 200) * (x - s / 200);
    var(i) = s2 / 199;
    lo(i) = type7(v, 0.025);
    med(i) = type7(v, 0.5);
    hi(i) = type7(v, 0.975);
  }
  // 1e-10: the draws' values differ from the GEMM's in the last bits (another summation
  // order), and the variance subtracts the mean.
  EXPECT_LT(relative(p.column("variance"), var), 1e-10);
  EXPECT_LT(relative(p.column("q0.025"), lo), 1e-12);
  EXPECT_LT(relative(p.column("q0.5"), med), 1e-12);
  EXPECT_LT(relative(p.column("q0.975"), hi), 1e-12);
}

TEST(WbbLinearModel, NoModelUnlessAsked) {
  Linear f;
  f.problem.make_model = false;
  EXPECT_FALSE(f.engine.run(f.problem).model);
}

TEST(WbbLinearModel, MissingOrMisshapenEntriesAreNamed) {
  Linear f;
  ModelArchive archive;
  f.r.model->write(archive);
  expect_entries_checked(
      f.engine, archive, f.parts,
      {{"posterior/coefficients", Eigen::MatrixXd(Eigen::MatrixXd::Ones(200, 9))},
       {"posterior/coefficients", Eigen::MatrixXd(0, 10)},
       {"posterior/intercepts", Eigen::VectorXd(Eigen::VectorXd::Ones(199))},
       {"posterior/quantile_levels", Eigen::VectorXd(Eigen::VectorXd::Constant(3, 1.5))},
       {"posterior/quantile_levels", 0.5}});
}

// ---- trend filter ----

// y_i = sin(x_i / 4) + noise on x = 1..n (or scaled), an ADMM-solved trend filter.
struct Trend {
  Dataset data;
  Problem problem;
  ModelParts parts;
  WbbEngine engine;
  Results r;
  explicit Trend(int order, Eigen::Index n = 60, double spacing = 1.0)
      : engine(Params(WbbEngine::schema(), {{"model", std::string("trend_filter")},
                                            {"order", std::int64_t(order)},
                                            {"lambda", 5.0},
                                            {"draws", std::int64_t(40)},
                                            {"penalty_weights", std::string("common")}})) {
    RngStream rng(9, 0);
    data.X_train.resize(n, 1);
    data.y_train.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      data.X_train(i, 0) = 3.0 + spacing * static_cast<double>(i);
      data.y_train(i) = std::sin(static_cast<double>(i) / 4) + 0.3 * rng.normal();
    }
    // Between design points, on them, and beyond both ends.
    data.X_test.resize(5, 1);
    data.X_test << 3.0 + 0.5 * spacing, 3.0 + 10 * spacing, 3.0 + 30.25 * spacing, 1.0,
        3.0 + spacing * static_cast<double>(n + 1);
    data.y_test = Eigen::VectorXd::Zero(5);
    problem.data = &data;
    problem.resampler = weights(n);
    problem.optimizer = std::make_shared<weighted_solvers::TrendFilterAdmm>(
        Params(weighted_solvers::TrendFilterAdmm::schema(), {}));
    problem.seed = 6;
    problem.make_model = true;
    parts.X_train = &data.X_train;
    r = engine.run(problem);
  }
};

TEST(WbbTrendFilterModel, SavedAndLoadedPredictsBitwiseTheSameAndEqualsTheEngine) {
  for (const int order : {0, 1, 3}) {
    Trend f(order);
    ASSERT_TRUE(f.r.model);
    EXPECT_EQ(f.r.model->kind(), "wbb_trend_filter");
    Eigen::MatrixXd X = (70 * normal_matrix(1100, 1, 3).array().abs()).matrix();  // some outside
    X.topRows(60) = f.data.X_train;
    const Predictions a = f.r.model->predict(X);
    EXPECT_EQ(a.columns, kRegressionColumns);
    expect_bitwise_equal(a, testing::through_file(f.engine, *f.r.model, f.parts)->predict(X));
    const Predictions test = f.r.model->predict(f.data.X_test);
    const char* outputs[] = {"mean", "variance", "lower", "median", "upper"};
    for (std::size_t j = 0; j < 5; ++j)
      EXPECT_EQ(test.column(kRegressionColumns[j]),
                f.r.vectors.at(std::string("prediction_") + outputs[j]));
  }
}

TEST(WbbTrendFilterModel, ReproducesTheFittedValuesAtTheTrainingInputs) {
  for (const int order : {0, 1, 2, 3}) {
    Trend f(order);
    const Predictions p = f.r.model->predict(f.data.X_train);
    // Each draw's spline passes through its fitted values, so the columns are the summaries of
    // the engine's draws: the quantiles exactly, the mean to rounding (another summation order).
    EXPECT_EQ(p.column("q0.025"), f.r.vectors.at("posterior_lower")) << order;
    EXPECT_EQ(p.column("q0.5"), f.r.vectors.at("posterior_median")) << order;
    EXPECT_EQ(p.column("q0.975"), f.r.vectors.at("posterior_upper")) << order;
    EXPECT_LT(relative(p.column("mean"), f.r.vectors.at("posterior_mean")), 1e-12) << order;
    // One spline through arbitrary values, at the design points: the values (1e-9).
    const Eigen::VectorXd theta = normal_matrix(60, 1, 4).col(0);
    const DiscreteSpline spline(f.data.X_train.col(0), order);
    for (Eigen::Index i = 0; i < 60; ++i) {
      const SplineStencil s = spline.stencil(f.data.X_train(i, 0));
      EXPECT_NEAR(s.weights.dot(theta.segment(s.first, order + 1)), theta(i), 1e-9);
    }
  }
}

TEST(WbbTrendFilterModel, OrderOneIsLinearInterpolation) {
  // Design points 0.5 apart from 3; draw-wise linear interpolation between neighbours, and
  // the end segments' lines beyond the ends.
  const Eigen::Index n = 60;
  Trend f(1, n, 0.5);
  ModelArchive archive;
  f.r.model->write(archive);
  const Eigen::MatrixXd theta = archive.matrix("posterior/fitted_values");  // T x n
  const Eigen::VectorXd x = f.data.X_train.col(0);
  Eigen::VectorXd t(200);
  RngStream rng(10, 0);
  for (Eigen::Index i = 0; i < 200; ++i) t(i) = 1.0 + 33.0 * rng.uniform();  // [1, 34]
  const Predictions p = f.r.model->predict(t);
  for (Eigen::Index i = 0; i < 200; ++i) {
    // The segment [x_j, x_j+1] around t(i), clamped to the first and last.
    const Eigen::Index j = std::clamp<Eigen::Index>(
        static_cast<Eigen::Index>(std::floor((t(i) - 3.0) / 0.5)), 0, n - 2);
    const double u = (t(i) - x(j)) / (x(j + 1) - x(j));
    std::vector<double> v;
    double sum = 0;
    for (Eigen::Index d = 0; d < theta.rows(); ++d) {
      v.push_back((1 - u) * theta(d, j) + u * theta(d, j + 1));
      sum += v.back();
    }
    const double scale = theta.cwiseAbs().maxCoeff();
    EXPECT_NEAR(p.column("mean")(i), sum / static_cast<double>(v.size()), 1e-12 * scale) << t(i);
    EXPECT_NEAR(p.column("q0.025")(i), type7(v, 0.025), 1e-12 * scale) << t(i);
    EXPECT_NEAR(p.column("q0.975")(i), type7(v, 0.975), 1e-12 * scale) << t(i);
  }
}

TEST(WbbTrendFilterModel, EqualsTheFallingFactorialBasisExpansion) {
  // Wang, Smola & Tibshirani 2014: h_j(x) = prod_{l<j} (x - x_l) (j <= k + 1) and
  // h_{k+1+j}(x) = prod_{l=1..k} (x - x_{j+l}) 1{x > x_{j+k}}; H alpha = theta at the design
  // points (lower triangular), f(x) = sum_j alpha_j h_j(x). Unequally spaced points too (the
  // spline itself does not need equal spacing).
  const Eigen::Index n = 25;
  RngStream rng(11, 0);
  Eigen::VectorXd x(n), theta(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    x(i) = (i == 0 ? 0.0 : x(i - 1)) + 0.5 + rng.uniform();
    theta(i) = rng.normal();
  }
  for (const int k : {0, 1, 2, 3, 4}) {
    auto basis = [&](Eigen::Index j, double t) {  // h_{j+1}, j 0-based
      double h = 1;
      if (j <= k) {
        for (Eigen::Index l = 0; l < j; ++l) h *= t - x(l);
        return h;
      }
      const Eigen::Index jj = j - k;  // 1-based j of the second family
      if (!(t > x(jj + k - 1))) return 0.0;
      for (Eigen::Index l = 1; l <= k; ++l) h *= t - x(jj + l - 1);
      return h;
    };
    Eigen::MatrixXd H(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j) H(i, j) = basis(j, x(i));
    ASSERT_EQ(H.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(), 0);
    const Eigen::VectorXd alpha = H.triangularView<Eigen::Lower>().solve(theta);
    const DiscreteSpline spline(x, k);
    for (int s = 0; s < 300; ++s) {
      const double t = -1.0 + (x(n - 1) + 2.0) * rng.uniform();  // one beyond each end
      double expansion = 0;
      for (Eigen::Index j = 0; j < n; ++j) expansion += alpha(j) * basis(j, t);
      const SplineStencil st = spline.stencil(t);
      const double local = st.weights.dot(theta.segment(st.first, k + 1));
      EXPECT_NEAR(local, expansion, 1e-9 * (1 + std::abs(expansion))) << "k " << k << " x " << t;
    }
  }
}

TEST(WbbTrendFilterModel, InputsThatAreNoGridAreRefused) {
  Trend f(1);
  Dataset bad = f.data;
  bad.X_train(7, 0) += 0.25;
  f.problem.data = &bad;
  try {
    f.engine.run(f.problem);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("equally spaced"), std::string::npos) << e.what();
  }
  bad.X_train = Eigen::MatrixXd::Ones(60, 2);
  try {
    f.engine.run(f.problem);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("one input column"), std::string::npos) << e.what();
  }
  // Without test rows and without a model the engine fits as before.
  bad.X_test.resize(0, 2);
  f.problem.make_model = false;
  EXPECT_NO_THROW(f.engine.run(f.problem));
}

TEST(WbbTrendFilterModel, MissingOrMisshapenEntriesAreNamed) {
  Trend f(2);
  ModelArchive archive;
  f.r.model->write(archive);
  expect_entries_checked(
      f.engine, archive, f.parts,
      {{"posterior/fitted_values", Eigen::MatrixXd(Eigen::MatrixXd::Ones(40, 59))},
       {"posterior/order", std::int64_t(-1)},
       {"posterior/order", std::int64_t(60)},
       {"posterior/order", 2.0}});
}

// ---- network ----

struct Network {
  Dataset data;
  Problem problem;
  ModelParts parts;
  WbbEngine engine;
  Results r;
  // Two classes: the sign of x_0 + x_1 on 80 training and 30 test rows of 2 inputs; or the
  // digits (ten classes) on 150 + 40 rows.
  explicit Network(bool digits)
      : engine(Params(WbbEngine::schema(), {{"model", std::string("network")},
                                            {"lambda", 1e-4},
                                            {"draws", std::int64_t(5)},
                                            {"hidden1", std::int64_t(6)},
                                            {"hidden2", std::int64_t(4)},
                                            {"penalty_weights", std::string("common")}})) {
    if (digits) {
      DataSpec spec;
      spec.train_file = std::string(QUENCH_TEST_DATA) + "/digits.csv";
      spec.split = SplitRule::first_train;
      spec.count = 150;
      data = load_dataset(spec);
      data.X_test = data.X_test.topRows(40).eval();
      data.y_test = data.y_test.head(40).eval();
    } else {
      const Eigen::MatrixXd X = normal_matrix(110, 2, 12);
      const Eigen::VectorXd y =
          (X.col(0) + X.col(1)).unaryExpr([](double v) { return v > 0 ? 1.0 : 0.0; });
      data.X_train = X.topRows(80);
      data.y_train = y.head(80);
      data.X_test = X.bottomRows(30);
      data.y_test = y.tail(30);
    }
    problem.data = &data;
    problem.resampler = weights(data.X_train.rows());
    problem.optimizer = std::make_shared<optimizers::AdamOptimizer>(Params(
        optimizers::AdamOptimizer::schema(),
        {{"epochs", std::int64_t(5)}, {"learning_rate", 0.01}, {"batch_size", std::int64_t(20)}}));
    problem.seed = 7;
    problem.make_model = true;
    parts.X_train = &data.X_train;
    r = engine.run(problem);
  }
};

TEST(WbbNetworkModel, SavedAndLoadedPredictsBitwiseTheSameAndEqualsTheEngine) {
  for (const bool digits : {false, true}) {
    Network f(digits);
    ASSERT_TRUE(f.r.model);
    EXPECT_EQ(f.r.model->kind(), "wbb_network");
    const Eigen::MatrixXd X = normal_matrix(600, f.data.X_train.cols(), 13);  // two blocks
    const Predictions a = f.r.model->predict(X);
    expect_bitwise_equal(a, testing::through_file(f.engine, *f.r.model, f.parts)->predict(X));
    EXPECT_EQ(a.columns.size(), digits ? 10u * 4 + 1 : 4u + 1);
    EXPECT_EQ(a.columns.back(), "label");
    const Predictions test = f.r.model->predict(f.data.X_test);
    EXPECT_EQ(test.column("label"), f.r.vectors.at("test_class"));
    if (!digits) {
      EXPECT_EQ(a.columns,
                (std::vector<std::string>{"probability", "probability_q0.025", "probability_q0.5",
                                          "probability_q0.975", "label"}));
      EXPECT_EQ(test.column("probability"), f.r.vectors.at("test_probability"));
    } else {
      EXPECT_EQ(a.columns[4], "probability_1");
      EXPECT_EQ(a.columns[7], "probability_1_q0.975");
    }
    const Eigen::VectorXd label = test.column("label");
    EXPECT_EQ(f.r.scalars.at("test_accuracy_of_mean_probability"),
              (label.array() == f.data.y_test.array()).cast<double>().mean());
  }
}

TEST(WbbNetworkModel, ColumnsEqualTheDrawsSummarizedIndependently) {
  Network f(false);
  ModelArchive archive;
  f.r.model->write(archive);
  const Eigen::MatrixXd& theta = archive.matrix("posterior/parameters");
  const Mlp net(2, 6, 4, 2);
  const Eigen::MatrixXd X = normal_matrix(50, 2, 14);
  const Predictions p = f.r.model->predict(X);
  for (Eigen::Index i = 0; i < 50; ++i) {
    // p_t(1 | x) = 1 / (1 + exp(f_0 - f_1)), the two-class softmax.
    std::vector<double> v;
    double sum = 0;
    for (Eigen::Index t = 0; t < theta.rows(); ++t) {
      const Eigen::MatrixXd F = net.forward(theta.row(t).transpose(), X.row(i));
      v.push_back(1 / (1 + std::exp(F(0, 0) - F(0, 1))));
      sum += v.back();
    }
    const double mean = sum / static_cast<double>(v.size());
    EXPECT_NEAR(p.column("probability")(i), mean, 1e-12);
    EXPECT_NEAR(p.column("probability_q0.025")(i), type7(v, 0.025), 1e-12);
    EXPECT_NEAR(p.column("probability_q0.975")(i), type7(v, 0.975), 1e-12);
    EXPECT_EQ(p.column("label")(i), p.column("probability")(i) > 0.5 ? 1.0 : 0.0);
  }
}

TEST(WbbNetworkModel, MissingOrMisshapenEntriesAreNamed) {
  Network f(false);
  ModelArchive archive;
  f.r.model->write(archive);
  expect_entries_checked(f.engine, archive, f.parts,
                         {{"posterior/parameters", Eigen::MatrixXd(Eigen::MatrixXd::Ones(5, 3))},
                          {"posterior/hidden1", 6.0},
                          {"posterior/hidden2", std::int64_t(0)},
                          {"posterior/classes", std::int64_t(1)}});
}

TEST(QuantileColumn, NamesTheLevelWithoutTrailingDigits) {
  EXPECT_EQ(quantile_column((1 - 0.95) / 2), "q0.025");
  EXPECT_EQ(quantile_column((1 + 0.95) / 2), "q0.975");
  EXPECT_EQ(quantile_column(0.5), "q0.5");
  EXPECT_EQ(quantile_column((1 - 0.9999) / 2), "q0.00005");
  EXPECT_EQ(quantile_column(1.0), "q1");
}

}  // namespace
}  // namespace quench::wbb::wbb_model_test
