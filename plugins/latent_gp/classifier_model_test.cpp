// The classifier models: written and read back they predict bitwise what they predicted
// before; at the test rows they are exactly the engine's own outputs, which equal an
// independent dense evaluation of eqs 12, 27 (001); a file with a missing or misshapen entry is
// refused by name.
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include "toy_models.h"

#include "classifier_model.h"
#include "ep.h"
#include "exact_loo.h"
#include "mean_field.h"
#include "probit_likelihood.h"
#include "svm_limit.h"
#include "test_engines.h"

namespace quench::latent_gp::classifier_model_test {
namespace {

using exact_loo::ExactLooEngine;

Eigen::MatrixXd random_inputs(int rows, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> z;
  Eigen::MatrixXd X(rows, 2);
  for (int i = 0; i < rows; ++i) X.row(i) << z(gen), z(gen);
  return X;
}

// Classes by the sign of x_1 + x_2 / 2, two training labels flipped: with label noise
// kappa > 0 their sites get tau_i < 0 (the likelihood is not log-concave), the LU form.
struct Fixture {
  Dataset data;
  Problem problem;
  ModelParts parts;
  explicit Fixture(double kappa, double noise = 0.1, int n = 30) {
    data.X_train = random_inputs(n, 1);
    data.X_test = random_inputs(9, 2);
    auto label = [](const Eigen::MatrixXd& X) {
      return Eigen::VectorXd(
          (X.col(0) + 0.5 * X.col(1)).unaryExpr([](double v) { return v >= 0 ? 1.0 : -1.0; }));
    };
    data.y_train = label(data.X_train);
    data.y_train(0) *= -1;
    data.y_train(5) *= -1;
    data.y_test = label(data.X_test);
    problem.data = &data;
    problem.kernel =
        std::make_shared<testing::ArdSquaredExponential>(Eigen::Vector2d(1.0, 1.5), 2.0, noise);
    problem.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(0.0, kappa);
    problem.make_model = true;
    problem.context.make_engine = latent_gp_engines();
    parts = {problem.kernel, problem.likelihood, nullptr, &data.X_train, latent_gp_engines()};
  }
};

const char* const kEngines[] = {"tap", "ep", "naive_mean_field"};

void expect_bitwise_equal(const Predictions& a, const Predictions& b) {
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.units, b.units);
  ASSERT_EQ(a.values.rows(), b.values.rows());
  ASSERT_EQ(a.values.cols(), b.values.cols());
  for (Eigen::Index j = 0; j < a.values.cols(); ++j)
    for (Eigen::Index i = 0; i < a.values.rows(); ++i)
      EXPECT_EQ(a.values(i, j), b.values(i, j)) << a.columns[j] << " row " << i;
}

TEST(ClassifierModel, WrittenAndReadBackPredictsBitwiseTheSame) {
  std::set<std::string> forms;
  for (const double kappa : {0.0, 0.2})
    for (const char* name : kEngines) {
      Fixture f(kappa);
      const auto engine = make_classifier(name);
      const Results r = engine->run(f.problem);
      ASSERT_EQ(r.status.code, RunStatus::ok) << name << ": " << r.status.message;
      ASSERT_TRUE(r.model) << name;
      EXPECT_EQ(r.model->kind(), "gp_classifier");
      EXPECT_EQ(r.model->input_dimension(), 2);
      ModelArchive archive;
      r.model->write(archive);
      forms.insert(archive.text("posterior/latent_variance"));
      const auto loaded = engine->read_model(archive, f.parts);
      const Eigen::MatrixXd X = random_inputs(1100, 3);  // three blocks of new inputs
      const Predictions a = r.model->predict(X);
      EXPECT_EQ(a.columns, (std::vector<std::string>{"latent_mean", "latent_variance",
                                                     "probability", "label"}));
      EXPECT_EQ(a.units, std::vector<PredictionUnit>(4, PredictionUnit::none));
      expect_bitwise_equal(a, loaded->predict(X));
    }
  // Label noise makes the flipped sites negative (LU form): every form is covered.
  EXPECT_EQ(forms, (std::set<std::string>{"prior", "cholesky", "inverse"}));
}

TEST(ClassifierModel, IsTheEnginesTestOutputsAndEquation27) {
  for (const double kappa : {0.0, 0.2})
    for (const char* name : kEngines) {
      Fixture f(kappa);
      const Results r = make_classifier(name)->run(f.problem);
      const Predictions p = r.model->predict(f.data.X_test);
      const std::pair<const char*, const char*> same[] = {{"latent_mean", "test_mean_field"},
                                                          {"latent_variance", "test_variance"},
                                                          {"probability", "test_probability"},
                                                          {"label", "test_class"}};
      for (const auto& [column, result] : same)
        for (Eigen::Index i = 0; i < f.data.X_test.rows(); ++i)
          EXPECT_EQ(p.column(column)(i), r.vectors.at(result)(i)) << name << " " << column;

      // Independently: the sites tau_i = 1/Omega_i from the cavity moments (eqs 29-30), then
      // eq 27 with a dense (Omega + C)^{-1} = T (I + C T)^{-1} and eq 12 for the probit with
      // label noise, p = kappa + (1 - 2 kappa) Phi(<h> / sqrt(lambda)).
      const Eigen::VectorXd t = f.data.y_train, alpha = r.vectors.at("alpha");
      const Eigen::MatrixXd C = f.problem.kernel->gram(f.data.X_train);
      const Eigen::MatrixXd K = f.problem.kernel->cross(f.data.X_test, f.data.X_train);
      Eigen::VectorXd lambda =
          (f.problem.kernel->cross(f.data.X_test, f.data.X_test).diagonal()).array() + 0.1;
      if (std::string(name) != "naive_mean_field") {
        Eigen::VectorXd tau(t.size());
        for (Eigen::Index i = 0; i < t.size(); ++i)
          tau(i) = site_moments(*f.problem.likelihood, {t(i)}, r.vectors.at("cavity_mean")(i),
                                r.vectors.at("cavity_variance")(i))
                       .tau;
        const Eigen::MatrixXd M =
            Eigen::MatrixXd::Identity(t.size(), t.size()) + C * tau.asDiagonal();
        const Eigen::MatrixXd W = tau.asDiagonal() * M.fullPivLu().inverse();
        lambda -= (K * W * K.transpose()).diagonal();
      }
      const Eigen::VectorXd h = K * t.cwiseProduct(alpha);
      for (Eigen::Index i = 0; i < h.size(); ++i) {
        EXPECT_NEAR(p.column("latent_mean")(i), h(i), 1e-12 * std::max(1.0, std::fabs(h(i))));
        EXPECT_NEAR(p.column("latent_variance")(i), lambda(i), 1e-10 * lambda(i)) << name;
        const double prob =
            kappa + (1 - 2 * kappa) * 0.5 * std::erfc(-h(i) / std::sqrt(2 * lambda(i)));
        EXPECT_NEAR(p.column("probability")(i), prob, 1e-10) << name;
        EXPECT_EQ(p.column("label")(i), h(i) >= 0 ? 1.0 : -1.0);
      }
    }
}

TEST(SvmModel, WrittenAndReadBackIsTheDecisionOfTheRun) {
  Fixture f(0.0, 0.0);
  SvmLimitEngine engine(Params(SvmLimitEngine::schema(), {}));
  const Results r = engine.run(f.problem);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), "svm_classifier");
  ModelArchive archive;
  r.model->write(archive);
  const Eigen::MatrixXd X = random_inputs(600, 4);
  const Predictions a = r.model->predict(X);
  EXPECT_EQ(a.columns, (std::vector<std::string>{"decision", "label"}));
  expect_bitwise_equal(a, engine.read_model(archive, f.parts)->predict(X));
  const Predictions p = r.model->predict(f.data.X_test);
  const Eigen::VectorXd h = f.problem.kernel->cross(f.data.X_test, f.data.X_train) *
                            f.data.y_train.cwiseProduct(r.vectors.at("alpha"));
  for (Eigen::Index i = 0; i < h.size(); ++i) {
    EXPECT_EQ(p.column("decision")(i), r.vectors.at("test_mean_field")(i));
    EXPECT_EQ(p.column("label")(i), r.vectors.at("test_class")(i));
    EXPECT_NEAR(p.column("decision")(i), h(i), 1e-12 * std::max(1.0, std::fabs(h(i))));
  }
}

TEST(ExactLooModel, IsTheInnerEnginesFullDataModel) {
  Fixture f(0.0, 0.1, 12);
  ExactLooEngine loo(Params(ExactLooEngine::schema(), {}));
  const Results r = loo.run(f.problem);
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->kind(), "gp_classifier");
  ModelArchive archive;
  r.model->write(archive);
  const Eigen::MatrixXd X = random_inputs(50, 5);
  expect_bitwise_equal(r.model->predict(X), loo.read_model(archive, f.parts)->predict(X));
}

// read_model throws ModelFileError naming `entry`.
void expect_refused(const InferenceEngine& engine, ModelArchive archive, const ModelParts& parts,
                    const std::string& entry) {
  try {
    engine.read_model(archive, parts);
    ADD_FAILURE() << "no error for " << entry;
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + entry + "'"), std::string::npos) << e.what();
  }
}

// Every entry of the archive missing, and replaced by a vector or matrix of the wrong shape.
void expect_every_entry_checked(const InferenceEngine& engine, const ModelArchive& archive,
                                const ModelParts& parts) {
  const Eigen::Index n = parts.X_train->rows();
  for (const auto& [name, value] : archive.entries()) {
    ModelArchive missing;
    for (const auto& [other, v] : archive.entries())
      if (other != name) missing.put(other, v);
    expect_refused(engine, missing, parts, name);
    ModelArchive misshapen = archive;
    if (std::holds_alternative<Eigen::VectorXd>(value))
      misshapen.put(name, Eigen::VectorXd(Eigen::VectorXd::Ones(n + 1)));
    else if (std::holds_alternative<Eigen::MatrixXd>(value))
      misshapen.put(name, Eigen::MatrixXd(Eigen::MatrixXd::Identity(n, n - 1)));
    else
      misshapen.put(name, std::string("unknown"));
    expect_refused(engine, misshapen, parts, name);
  }
}

TEST(ClassifierModel, MissingOrMisshapenEntriesAreNamed) {
  std::set<std::string> checked;
  for (const double kappa : {0.0, 0.2})
    for (const char* name : kEngines) {
      Fixture f(kappa);
      const auto engine = make_classifier(name);
      ModelArchive archive;
      engine->run(f.problem).model->write(archive);
      expect_every_entry_checked(*engine, archive, f.parts);
      for (const auto& [entry, value] : archive.entries()) checked.insert(entry);
    }
  EXPECT_EQ(checked, (std::set<std::string>{"posterior/t_alpha", "posterior/latent_variance",
                                            "posterior/sqrt_tau", "posterior/cholesky_lower",
                                            "posterior/omega_plus_c_inverse"}));
}

TEST(SvmModel, MissingOrMisshapenEntriesAreNamed) {
  Fixture f(0.0, 0.0);
  SvmLimitEngine engine(Params(SvmLimitEngine::schema(), {}));
  ModelArchive archive;
  engine.run(f.problem).model->write(archive);
  EXPECT_EQ(archive.entries().size(), 1u);
  expect_every_entry_checked(engine, archive, f.parts);
}

}  // namespace
}  // namespace quench::latent_gp::classifier_model_test
