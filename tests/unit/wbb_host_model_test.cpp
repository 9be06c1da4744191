// The WBB's fitted models in a host program (docs/models.md): a pipeline run through the C++
// API with outputs: {models: true} keeps a FittedModel per wbb run; at the raw test inputs it
// predicts the run's own test outputs, and saved and loaded with the real plugins
// (load_model(path, registry)) it predicts bitwise the same numbers.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "quench/dataset.h"
#include "quench/fitted_model.h"
#include "quench/pipeline.h"
#include "quench/registry.h"
#include "quench/registry_models.h"

namespace quench::wbb_host_model_test {
namespace {

// The inputs of the model, in its order, from the rows [first, first + count) of the CSV file.
Eigen::MatrixXd raw_inputs(const FittedModel& model, const std::string& file, Eigen::Index first,
                           Eigen::Index count) {
  const CsvTable table = read_csv(file);
  const Eigen::MatrixXd values = to_numbers(table);
  Eigen::MatrixXd X(count, static_cast<Eigen::Index>(model.card().input_names.size()));
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    X.col(j) = values.col(table.column_index(model.card().input_names[j])).segment(first, count);
  return X;
}

// Runs `yaml` (data in QUENCH_TEST_DATA); the one run's results.
Results run(const std::string& yaml, const Registry& registry) {
  const auto pipeline = Pipeline::from_string(yaml, "host", QUENCH_TEST_DATA);
  std::vector<Results> runs = pipeline.run(registry);
  EXPECT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status.code, RunStatus::ok) << runs[0].status.message;
  return runs[0];
}

void expect_saved_and_loaded_predicts_bitwise(const FittedModel& model, const Eigen::MatrixXd& X,
                                              const Registry& registry) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("wbb_host_model_test_" + std::to_string(::getpid()) + ".h5");
  model.save(path.string());
  const FittedModel loaded = load_model(path.string(), registry);
  std::filesystem::remove(path);
  EXPECT_EQ(loaded.card().kind, model.card().kind);
  const Predictions a = model.predict(X), b = loaded.predict(X);
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_TRUE(a.values == b.values);
}

TEST(WbbHostModel, LinearModelPredictsTheRunsTestRowsAndSurvivesTheFile) {
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  const Results r = run(R"(name: host_wbb
seed: 3
data:
  file: diabetes.csv
  target: y
  split: {rule: first_train, count: 400}
  standardize_inputs: true
components:
  resampler: {plugin: exponential_weights}
  optimizer: {plugin: coordinate_descent}
engines:
  - {name: wbb, plugin: wbb, draws: 100, lambda: 500}
outputs: {models: true}
)",
                        registry);
  ASSERT_TRUE(r.fitted_model);
  const FittedModel& model = *r.fitted_model;
  EXPECT_EQ(model.card().kind, "wbb_linear");
  const Eigen::MatrixXd X =
      raw_inputs(model, std::string(QUENCH_TEST_DATA) + "/diabetes.csv", 400, 42);
  const Predictions p = model.predict(X);
  // The host standardizes the raw inputs again: equal to rounding, the target not standardized.
  const char* outputs[] = {"prediction_mean", "prediction_lower", "prediction_upper"};
  const char* columns[] = {"mean", "q0.025", "q0.975"};
  for (int j = 0; j < 3; ++j) {
    const Eigen::VectorXd& engine = r.vectors.at(outputs[j]);
    EXPECT_LT((p.column(columns[j]) - engine).cwiseAbs().maxCoeff(),
              1e-12 * engine.cwiseAbs().maxCoeff())
        << columns[j];
  }
  expect_saved_and_loaded_predicts_bitwise(model, X, registry);
}

TEST(WbbHostModel, NetworkModelPredictsTheRunsTestClassesAndSurvivesTheFile) {
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  const Results r = run(R"(name: host_wbb_network
seed: 3
data:
  file: digits.csv
  target: y
  split: {rule: first_train, count: 200}
components:
  resampler: {plugin: exponential_weights}
  optimizer: {plugin: adam, epochs: 3, batch_size: 50, learning_rate: 0.01}
engines:
  - {name: net, plugin: wbb, model: network, lambda: 1.0e-4, draws: 3, hidden1: 8,
     hidden2: 4, penalty_weights: common}
outputs: {models: true}
)",
                        registry);
  ASSERT_TRUE(r.fitted_model);
  const FittedModel& model = *r.fitted_model;
  EXPECT_EQ(model.card().kind, "wbb_network");
  const Eigen::MatrixXd X =
      raw_inputs(model, std::string(QUENCH_TEST_DATA) + "/digits.csv", 200, 1597);
  const Predictions p = model.predict(X);
  // No standardization: the same inputs, the same classes.
  EXPECT_TRUE(p.column("label") == r.vectors.at("test_class"));
  expect_saved_and_loaded_predicts_bitwise(model, X, registry);
}

}  // namespace
}  // namespace quench::wbb_host_model_test
