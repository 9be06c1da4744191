// The "gp_regression" model: written and read back it predicts bitwise what it predicted
// before; its predictions equal the dense textbook formulas (R&W eqs 2.25-2.26) and the
// engine's own test outputs; a file with a missing or misshapen entry is refused by name.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include "toy_models.h"

#include "exact_gp_regression.h"
#include "gp_regression_model.h"

namespace quench::gp_regression::gp_regression_model_test {
namespace {

Eigen::MatrixXd random_inputs(int rows, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> z;
  Eigen::MatrixXd X(rows, 2);
  for (int i = 0; i < rows; ++i) X.row(i) << z(gen), z(gen);
  return X;
}

struct Fixture {
  Dataset data;
  Problem problem;
  ModelParts parts;
  Fixture() {
    data.X_train = random_inputs(15, 3);
    data.y_train = data.X_train.col(0).array().sin() + 0.3 * data.X_train.col(1).array();
    data.X_test = random_inputs(6, 4);
    problem.data = &data;
    problem.kernel = std::make_shared<testing::ArdSquaredExponential>(
        Eigen::Vector2d(0.8, 1.3), 1.7, 0.01);  // diagonal noise v2 = 0.01
    problem.likelihood = std::make_shared<testing::NoiseOnlyGaussian>(0.04);
    problem.make_model = true;
    parts = {problem.kernel, problem.likelihood, nullptr, &data.X_train};
  }
};

ExactGpRegression engine(bool predictive_variance = false) {
  return ExactGpRegression(
      Params(ExactGpRegression::schema(), {{"predictive_variance", predictive_variance}}));
}

TEST(GpRegressionModel, WrittenAndReadBackPredictsBitwiseTheSame) {
  Fixture f;
  const Results r = engine().run(f.problem);
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), "gp_regression");
  EXPECT_EQ(r.model->input_dimension(), 2);
  ModelArchive archive;
  r.model->write(archive);
  const auto loaded = engine().read_model(archive, f.parts);
  const Eigen::MatrixXd X = random_inputs(1100, 5);  // three blocks of new inputs
  const Predictions a = r.model->predict(X), b = loaded->predict(X);
  EXPECT_EQ(a.columns, (std::vector<std::string>{"mean", "variance", "predictive_variance"}));
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.units,
            (std::vector<PredictionUnit>{PredictionUnit::target, PredictionUnit::target_variance,
                                         PredictionUnit::target_variance}));
  EXPECT_EQ(a.units, b.units);
  ASSERT_EQ(a.values.rows(), 1100);
  ASSERT_EQ(b.values.rows(), 1100);
  for (Eigen::Index j = 0; j < a.values.cols(); ++j)
    for (Eigen::Index i = 0; i < a.values.rows(); ++i)
      EXPECT_EQ(a.values(i, j), b.values(i, j)) << a.columns[j] << " row " << i;
}

TEST(GpRegressionModel, EqualsDenseFormulas) {
  Fixture f;
  const auto model = engine().run(f.problem).model;
  const Eigen::MatrixXd X = random_inputs(700, 6);
  const Predictions p = model->predict(X);
  // R&W eqs 2.25-2.26 with an LDLT of K + sigma^2 I, sigma^2 = 0.04 + v2.
  const double noise = 0.04 + 0.01;
  const Kernel& k = *f.problem.kernel;
  Eigen::MatrixXd Ky = k.cross(f.data.X_train, f.data.X_train);
  Ky.diagonal().array() += noise;
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(Ky);
  const Eigen::MatrixXd Ks = k.cross(X, f.data.X_train);
  const Eigen::VectorXd mean = Ks * ldlt.solve(f.data.y_train);
  const Eigen::VectorXd var =
      k.cross(X, X).diagonal() - (Ks * ldlt.solve(Eigen::MatrixXd(Ks.transpose()))).diagonal();
  auto relative = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
  };
  EXPECT_LT(relative(p.column("mean"), mean), 1e-10);
  EXPECT_LT(relative(p.column("variance"), var), 1e-10);
  EXPECT_LT(relative(p.column("predictive_variance"), (var.array() + noise).matrix()), 1e-10);
}

TEST(GpRegressionModel, EqualsTheEnginesTestOutputs) {
  Fixture f;
  for (const bool predictive : {false, true}) {
    const Results r = engine(predictive).run(f.problem);
    const Predictions p = r.model->predict(f.data.X_test);
    const Eigen::VectorXd variance = p.column(predictive ? "predictive_variance" : "variance");
    for (Eigen::Index i = 0; i < f.data.X_test.rows(); ++i) {
      EXPECT_EQ(p.column("mean")(i), r.vectors.at("test_mean")(i));
      EXPECT_EQ(variance(i), r.vectors.at("test_variance")(i));
    }
  }
}

TEST(GpRegressionModel, NoModelUnlessAsked) {
  Fixture f;
  f.problem.make_model = false;
  EXPECT_FALSE(engine().run(f.problem).model);
}

// read_model throws ModelFileError naming `entry` (and nothing else).
void expect_refused(ModelArchive archive, const ModelParts& parts, const std::string& entry) {
  try {
    engine().read_model(archive, parts);
    ADD_FAILURE() << "no error for " << entry;
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + entry + "'"), std::string::npos) << e.what();
  }
}

TEST(GpRegressionModel, MissingOrMisshapenEntriesAreNamed) {
  Fixture f;
  ModelArchive archive;
  engine().run(f.problem).model->write(archive);
  const ModelArchive::Entry wrong[] = {Eigen::VectorXd(Eigen::VectorXd::Ones(14)),
                                       Eigen::MatrixXd(Eigen::MatrixXd::Identity(15, 14)),
                                       Eigen::VectorXd(Eigen::VectorXd::Ones(1))};
  const char* entries[] = {"posterior/alpha", "posterior/cholesky_lower",
                           "posterior/noise_variance"};
  for (int e = 0; e < 3; ++e) {
    ModelArchive missing;
    for (const auto& [name, value] : archive.entries())
      if (name != entries[e]) missing.put(name, value);
    expect_refused(missing, f.parts, entries[e]);
    ModelArchive misshapen = archive;
    misshapen.put(entries[e], wrong[e]);
    expect_refused(misshapen, f.parts, entries[e]);
  }
  ModelArchive singular = archive;
  singular.put("posterior/cholesky_lower", Eigen::MatrixXd(Eigen::MatrixXd::Zero(15, 15)));
  expect_refused(singular, f.parts, "posterior/cholesky_lower");
}

}  // namespace
}  // namespace quench::gp_regression::gp_regression_model_test
