// Saved vboot models in a host program (the C++ API of docs/models.md): a pipeline built from
// YAML text and run in-process with outputs: {models: true} leaves a FittedModel per run that,
// given the raw test rows, predicts the run's own class probabilities and their spread; saved
// and loaded through the registry it predicts bitwise the same at every row of the data.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "quench/dataset.h"
#include "quench/fitted_model.h"
#include "quench/pipeline.h"
#include "quench/registry.h"
#include "quench/registry_models.h"

namespace quench::vboot_host_model_test {
namespace {

namespace fs = std::filesystem;

const char* const kPipeline = R"(name: host_vboot
seed: 11
data:
  file: sonar.csv
  target: y
  split: {rule: column, column: train}
  standardize_inputs: true
components:
  kernel: {plugin: gaussian, width: 0.5, amplitude: 4, bias: 25, random_features: 200, feature_seed: 1}
  likelihood: {plugin: dirichlet, alpha_epsilon: 0.01}
  resampler: {plugin: perturbation}
  optimizer: {plugin: adam, epochs: 30, batch_size: 0, learning_rate: 0.01}
engines:
  - {name: rff, plugin: vboot, model: rff, particles: 12}
  - {name: mlp, plugin: vboot, model: mlp, particles: 3, hidden_units: 8}
outputs: {models: true}
)";

TEST(HostModel, VbootModelsPredictTheRunsNumbersAndSurviveTheFile) {
  const auto pipeline = Pipeline::from_string(kPipeline, "host", QUENCH_TEST_DATA);
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  RunOptions options;
  options.threads = 2;
  const std::vector<Results> runs = pipeline.run(registry, options);
  ASSERT_EQ(runs.size(), 2u);

  const CsvTable table = read_csv(std::string(QUENCH_TEST_DATA) + "/sonar.csv");
  const Eigen::MatrixXd values = to_numbers(table);
  const Eigen::Index split = table.column_index("train");
  std::vector<Eigen::Index> test_rows;
  for (Eigen::Index i = 0; i < values.rows(); ++i)
    if (values(i, split) == 0) test_rows.push_back(i);
  ASSERT_EQ(test_rows.size(), 104u);

  for (const Results& r : runs) {
    SCOPED_TRACE(r.engine);
    ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
    ASSERT_TRUE(r.fitted_model);
    const FittedModel& model = *r.fitted_model;
    EXPECT_EQ(model.card().kind, "vboot");
    Eigen::MatrixXd X(values.rows(), Eigen::Index(model.card().input_names.size()));
    for (Eigen::Index j = 0; j < X.cols(); ++j)
      X.col(j) = values.col(table.column_index(model.card().input_names[std::size_t(j)]));
    Eigen::MatrixXd X_test(Eigen::Index(test_rows.size()), X.cols());
    for (std::size_t t = 0; t < test_rows.size(); ++t)
      X_test.row(Eigen::Index(t)) = X.row(test_rows[t]);

    // Raw test rows in: the standardization is applied as the loader applied it, and the rows
    // are predicted in the same block as in the run, so the numbers are the run's exactly.
    const Predictions p = model.predict(X_test);
    EXPECT_EQ(p.column("probability"),
              Eigen::VectorXd(r.matrices.at("class_probabilities").col(1)));
    EXPECT_EQ(p.column("probability_sd"),
              Eigen::VectorXd(r.matrices.at("class_probability_sd").col(1)));
    const Eigen::VectorXd& predicted = r.vectors.at("predicted_class");
    for (Eigen::Index t = 0; t < predicted.size(); ++t)
      EXPECT_EQ(p.column("label")(t), predicted(t) == 1 ? 1.0 : -1.0);

    const fs::path file = fs::temp_directory_path() / ("quench_host_model_" + r.engine + ".h5");
    model.save(file.string());
    const FittedModel loaded = load_model(file.string(), registry);
    fs::remove(file);
    const Predictions a = model.predict(X), b = loaded.predict(X);
    EXPECT_EQ(a.columns, b.columns);
    EXPECT_EQ(a.values, b.values);
  }
}

}  // namespace
}  // namespace quench::vboot_host_model_test
