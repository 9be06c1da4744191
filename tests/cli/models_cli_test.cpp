// Saved models end to end (docs/models.md): `quench run` with outputs: {models: true} writes
// models/<run>.h5 named in results.json; `quench predict` reproduces the run's own test
// predictions from the file; Python (h5py, no quench) reproduces a prediction from the file;
// `quench info` describes it; bad inputs and damaged files are refused with their reason.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_program.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

// A positive number as quench writes it back (shortest round trip for these halves).
std::string format_days(double days) {
  std::ostringstream out;
  out << days;
  return out.str();
}

// Rows of a CSV file without quoting (as `quench predict` writes numbers), header included.
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

const std::string kData = QUENCH_TEST_DATA;

// The rows of sonar.csv (index into csv_rows, header = 0) of its test split: train == 0.
std::vector<std::size_t> sonar_test_rows(const std::vector<std::vector<std::string>>& data) {
  const std::size_t train_column = 60;
  EXPECT_EQ(data[0][train_column], "train");
  std::vector<std::size_t> rows;
  for (std::size_t i = 1; i < data.size(); ++i)
    if (data[i][train_column] == "0") rows.push_back(i);
  return rows;
}

// Predicted column `column` at the test rows equals the run's test output `values` (1e-12
// relative to 1 + |value|); the label column (last) the sign of `labels`.
void expect_test_outputs(const std::vector<std::vector<std::string>>& predicted,
                         const std::vector<std::size_t>& test_rows,
                         const std::vector<std::pair<std::size_t, json>>& columns,
                         const json& labels) {
  for (const auto& [column, values] : columns) {
    ASSERT_EQ(values.size(), test_rows.size()) << predicted[0][column];
    for (std::size_t t = 0; t < test_rows.size(); ++t) {
      const double value = std::stod(predicted[test_rows[t]][column]);
      EXPECT_NEAR(value, values[t].get<double>(), 1e-12 * (1 + std::abs(value)))
          << predicted[0][column] << " row " << test_rows[t];
    }
  }
  for (std::size_t t = 0; t < test_rows.size(); ++t)
    EXPECT_EQ(predicted[test_rows[t]].back(), labels[t].get<double>() > 0 ? "1" : "-1")
        << "row " << test_rows[t];
}

class ModelsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("QUENCH_PLUGIN_PATH");
    std::string pattern = (fs::temp_directory_path() / "quench-models-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    work_ = root_ / "work";
    fs::create_directory(work_);
    fs::copy_file(kData + "/boston.csv", work_ / "boston.csv");
    // The GP on the first 456 Boston rows (inputs standardized, target not: the run's
    // test_mean is in the target's units) with an ARD kernel and a bias.
    write_file(work_ / "gp.yaml", R"(name: gp_model
data:
  file: boston.csv
  target: y
  split: {rule: first_train, count: 456}
  standardize_inputs: true
components:
  kernel: {plugin: gaussian, length_scales: [3, 9, 4, 20, 2, 2, 3, 3, 4, 2, 4, 6, 2], amplitude: 50, bias: 500}
  likelihood: {plugin: gaussian, noise: 10}
engines:
  - {name: gp, plugin: exact_gp_regression}
outputs: {models: true, plots: false}
)");
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  quench_test::ProgramOutcome quench(const std::vector<std::string>& args) const {
    return quench_test::run_program(QUENCH_CLI, args, work_, root_);
  }
  // h5py alone (read_model.py, the layout of docs/models.md): what it prints for `model` at the
  // first row of `data` (both below the working directory).
  std::string python_reads(const std::string& model, const std::string& data) const {
    const auto py = quench_test::run_program(
        "/usr/bin/python3",
        {QUENCH_READ_MODEL_PY, (work_ / model).string(), (work_ / data).string()}, work_, root_);
    EXPECT_EQ(py.exit_code, 0) << py.err;
    return py.out;
  }
  // `quench predict model data --out p.csv` (and --ignore-extra-columns), which must succeed:
  // the rows of p.csv, header first.
  std::vector<std::vector<std::string>> predicted_rows(const std::string& model,
                                                       const std::string& data,
                                                       bool ignore_extra = false) const {
    std::vector<std::string> args{"predict", model, data, "--out", "p.csv"};
    if (ignore_extra) args.push_back("--ignore-extra-columns");
    const auto r = quench(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return csv_rows(read_file(work_ / "p.csv"));
  }
  // `quench args` must fail with `code`, say `reason` and leave no p.csv behind.
  void expect_refused(const std::vector<std::string>& args, int code,
                      const std::string& reason) const {
    const auto r = quench(args);
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(work_ / "p.csv"));
  }
  // Runs the pipeline; returns its results.json.
  json run_gp() const {
    const auto r = quench({"run", "gp.yaml", "--out", "out", "--no-progress"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("model:   out/models/gp.h5"), std::string::npos) << r.out;
    return json::parse(read_file(work_ / "out" / "results.json"));
  }

  fs::path root_, work_;
};

TEST_F(ModelsCli, PredictReproducesTheRunsOwnTestPredictionsFromTheFile) {
  const json results = run_gp();
  const json& run = results["runs"][0];
  ASSERT_EQ(run["model"], "models/gp.h5");
  ASSERT_TRUE(fs::exists(work_ / "out" / "models" / "gp.h5"));
  const auto r = quench({"predict", "out/models/gp.h5", "boston.csv", "--out", "p.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(506 rows; mean, variance, predictive_variance)"), std::string::npos);
  const auto rows = csv_rows(read_file(work_ / "p.csv"));
  ASSERT_EQ(rows.size(), 507u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"y", "mean", "variance", "predictive_variance"}));
  const auto data = csv_rows(read_file(work_ / "boston.csv"));
  EXPECT_EQ(rows[1][0], data[1].back());  // the target carried as written
  // Rows 457-506 are the run's test rows: results.json (17 digits) vs the predictions.
  const json& mean = run["vectors"]["test_mean"];
  const json& variance = run["vectors"]["test_variance"];
  ASSERT_EQ(mean.size(), 50u);
  for (std::size_t i = 0; i < 50; ++i) {
    const double m = std::stod(rows[457 + i][1]), v = std::stod(rows[457 + i][2]);
    EXPECT_NEAR(m, mean[i].get<double>(), 1e-12 * std::abs(m)) << "row " << 457 + i;
    EXPECT_NEAR(v, variance[i].get<double>(), 1e-12 * std::abs(v)) << "row " << 457 + i;
    EXPECT_NEAR(std::stod(rows[457 + i][3]), v + 10.0, 1e-9);
  }
  // Columns in another order give the same numbers.
  std::string swapped;
  for (const auto& cells : data) {
    std::string line = cells[12] + "," + cells[0];
    for (std::size_t j = 1; j < cells.size(); ++j)
      if (j != 12) line += "," + cells[j];
    swapped += line + "\n";
  }
  write_file(work_ / "swapped.csv", swapped);
  ASSERT_EQ(quench({"predict", "out/models/gp.h5", "swapped.csv", "--out", "q.csv"}).exit_code, 0);
  EXPECT_EQ(read_file(work_ / "q.csv"), read_file(work_ / "p.csv"));
}

// An independent reader: h5py and numpy only, the layout of docs/models.md.
TEST_F(ModelsCli, PythonReadsTheModelWithoutQuench) {
  run_gp();
  const double quench_mean = std::stod(predicted_rows("out/models/gp.h5", "boston.csv")[1][1]);
  const double python = std::stod(python_reads("out/models/gp.h5", "boston.csv"));
  EXPECT_NEAR(python, quench_mean, 1e-12 * std::abs(quench_mean));
}

// The weighted Bayesian bootstrap's LASSO (kind wbb_linear), target standardized: `quench
// predict` gives the run's own test-row summaries of the draws in the target's units, and
// h5py (no quench) reproduces the mean and quantiles of the first row from the stored draws.
TEST_F(ModelsCli, WbbModelReproducesTheRunsTestRowsAndPythonReadsItsDraws) {
  fs::copy_file(kData + "/diabetes.csv", work_ / "diabetes.csv");
  write_file(work_ / "wbb.yaml", R"(name: wbb_model
seed: 2018
data:
  file: diabetes.csv
  target: y
  split: {rule: first_train, count: 400}
  standardize_inputs: true
  standardize_target: true
components:
  resampler: {plugin: exponential_weights}
  optimizer: {plugin: coordinate_descent}
engines:
  - {name: wbb, plugin: wbb, draws: 300, penalty_weights: separate}
outputs: {models: true, plots: false}
)");
  const auto run = quench({"run", "wbb.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json results = json::parse(read_file(work_ / "out" / "results.json"));
  ASSERT_EQ(results["runs"][0]["model"], "models/wbb.h5");
  const json& vectors = results["runs"][0]["vectors"];
  const auto r = quench({"predict", "out/models/wbb.h5", "diabetes.csv", "--out", "p.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(read_file(work_ / "p.csv"));
  ASSERT_EQ(rows.size(), 443u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"y", "mean", "variance", "q0.025", "q0.5", "q0.975"}));
  // The target's standardization (mean, sd with n - 1 of the 400 training values), undone.
  const auto data = csv_rows(read_file(work_ / "diabetes.csv"));
  double m = 0, ss = 0;
  for (std::size_t i = 1; i <= 400; ++i) m += std::stod(data[i].back()) / 400;
  for (std::size_t i = 1; i <= 400; ++i) ss += std::pow(std::stod(data[i].back()) - m, 2);
  const double s = std::sqrt(ss / 399);
  const char* outputs[] = {"prediction_mean", "prediction_variance", "prediction_lower",
                           "prediction_median", "prediction_upper"};
  for (std::size_t i = 0; i < 42; ++i)
    for (std::size_t j = 0; j < 5; ++j) {
      const double engine = vectors[outputs[j]][i].get<double>();
      const double expected = j == 1 ? engine * s * s : m + s * engine;
      EXPECT_NEAR(std::stod(rows[401 + i][j + 1]), expected, 1e-12 * std::abs(expected))
          << outputs[j] << " row " << 401 + i;
    }
  std::istringstream python(python_reads("out/models/wbb.h5", "diabetes.csv"));
  for (const std::size_t column : {1, 3, 4, 5}) {  // mean, q0.025, q0.5, q0.975
    double value = NAN;
    python >> value;
    const double quench_value = std::stod(rows[1][column]);
    EXPECT_NEAR(value, quench_value, 1e-12 * std::abs(quench_value)) << rows[0][column];
  }
}

// The trend filter's model (kind wbb_trend_filter, order 1) predicts at new positions of its
// input column: at the training positions the run's posterior mean, between two of them the
// average of their means (linear interpolation commutes with the mean over draws), beyond
// the last one the last segment's line.
TEST_F(ModelsCli, WbbTrendFilterModelInterpolatesBetweenTheTrainingPositions) {
  fs::copy_file(kData + "/trend_filter_sin_exp.csv", work_ / "trend.csv");
  write_file(work_ / "trend.yaml", R"(name: trend_model
seed: 2018
data:
  file: trend.csv
  target: y
components:
  resampler: {plugin: exponential_weights}
  optimizer: {plugin: trend_filter_admm}
engines:
  - {name: trend, plugin: wbb, model: trend_filter, order: 1, lambda: 100, draws: 50,
     penalty_weights: common}
outputs: {models: true, plots: false}
)");
  const auto run = quench({"run", "trend.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json results = json::parse(read_file(work_ / "out" / "results.json"));
  const json& mean = results["runs"][0]["vectors"]["posterior_mean"];
  write_file(work_ / "new.csv", "i\n1\n1.5\n250.25\n500\n502\n");
  const auto r = quench({"predict", "out/models/trend.h5", "new.csv", "--out", "p.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(read_file(work_ / "p.csv"));
  ASSERT_EQ(rows.size(), 6u);
  auto at = [&](std::size_t i) { return mean[i].get<double>(); };  // position i + 1
  const double expected[] = {at(0), (at(0) + at(1)) / 2, 0.75 * at(249) + 0.25 * at(250), at(499),
                             at(499) + 2 * (at(499) - at(498))};
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_NEAR(std::stod(rows[1 + i][0]), expected[i], 1e-12 * (1 + std::abs(expected[i])))
        << rows[1 + i][0] << " at i = " << i;
}

// The run's matrix `name` of engine run `run` (results.json names its CSV table), as rows.
std::vector<std::vector<double>> run_matrix(const fs::path& out, const json& run,
                                            const std::string& name) {
  const auto rows = csv_rows(read_file(out / run["matrices"][name]["file"].get<std::string>()));
  std::vector<std::vector<double>> values;
  for (std::size_t i = 1; i < rows.size(); ++i) {  // after the header c0,c1,...
    values.emplace_back();
    for (const std::string& cell : rows[i]) values.back().push_back(std::stod(cell));
  }
  return values;
}

// Variational-bootstrap models (plugins/vboot): RFF and MLP particles on Sonar (two classes,
// -1/+1), RFF on the digits (ten classes). `quench predict` over every row of the data file
// gives at the run's test rows the run's own class probabilities and their spread
// (tables/<run>__class_probabilities.csv, class_probability_sd.csv, 17 digits) and the label
// of its predicted_class. The rows are predicted in other blocks than in the run (all rows of
// the file instead of the test rows), which may change BLAS's rounding: 1e-12 absolute on
// numbers in [0, 1] (measured: equal).
class VbootModelsCli : public ModelsCli {
 protected:
  void SetUp() override {
    ModelsCli::SetUp();
    fs::copy_file(kData + "/sonar.csv", work_ / "sonar.csv");
    fs::copy_file(kData + "/digits.csv", work_ / "digits.csv");
    write_file(work_ / "vboot.yaml", R"(name: vboot_model
seed: 2000
data:
  file: sonar.csv
  target: y
  split: {rule: column, column: train}
  standardize_inputs: true
components:
  kernel: {plugin: gaussian, width: 0.5, amplitude: 4, bias: 25, random_features: 300, feature_seed: 1}
  likelihood: {plugin: dirichlet, alpha_epsilon: 0.01}
  resampler: {plugin: perturbation}
  optimizer: {plugin: adam, epochs: 50, batch_size: 0, learning_rate: 0.01}
engines:
  - {name: rff, plugin: vboot, model: rff, particles: 20}
  - {name: mlp, plugin: vboot, model: mlp, particles: 4, hidden_units: 16}
outputs: {models: true, plots: false}
)");
    write_file(work_ / "digits.yaml", R"(name: vboot_digits
seed: 7
data:
  file: digits.csv
  target: y
  split: {rule: first_train, count: 1500}
components:
  kernel: {plugin: gaussian, width: 10, amplitude: 4, bias: 25, random_features: 400, feature_seed: 2}
  likelihood: {plugin: dirichlet, alpha_epsilon: 0.01}
  resampler: {plugin: perturbation}
engines:
  - {name: rff, plugin: vboot, model: rff, particles: 10}
outputs: {models: true, plots: false}
)");
  }
  json run(const std::string& pipeline) const {
    const auto r = quench({"run", pipeline, "--out", "out", "--no-progress"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(read_file(work_ / "out" / "results.json"));
  }
};

TEST_F(VbootModelsCli, PredictReproducesTheRunsProbabilitiesSpreadAndLabels) {
  const json results = run("vboot.yaml");
  const auto data = csv_rows(read_file(work_ / "sonar.csv"));
  const std::size_t train_column = 60;
  ASSERT_EQ(data[0][train_column], "train");
  for (const json& run : results["runs"]) {
    const std::string engine = run["engine"];
    SCOPED_TRACE(engine);
    ASSERT_EQ(run["model"], "models/" + engine + ".h5");
    EXPECT_EQ(run["info"]["model"], engine);  // vboot's particle model, as before
    const auto r = quench({"predict", "out/models/" + engine + ".h5", "sonar.csv", "--out",
                           engine + ".csv", "--ignore-extra-columns"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rows = csv_rows(read_file(work_ / (engine + ".csv")));
    ASSERT_EQ(rows.size(), 209u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"y", "probability", "probability_sd", "label"}));
    const auto P = run_matrix(work_ / "out", run, "class_probabilities");
    const auto sd = run_matrix(work_ / "out", run, "class_probability_sd");
    const json& predicted = run["vectors"]["predicted_class"];
    std::size_t test = 0;
    double spread = 0;
    for (std::size_t i = 1; i < data.size(); ++i) {
      if (data[i][train_column] != "0") continue;
      ASSERT_LT(test, P.size());
      EXPECT_NEAR(std::stod(rows[i][1]), P[test][1], 1e-12) << "row " << i;
      EXPECT_NEAR(std::stod(rows[i][2]), sd[test][1], 1e-12) << "row " << i;
      EXPECT_EQ(rows[i][3], predicted[test].get<double>() == 1 ? "1" : "-1") << "row " << i;
      spread = std::max(spread, sd[test][1]);
      ++test;
    }
    EXPECT_EQ(test, 104u);
    EXPECT_EQ(test, P.size());
    EXPECT_GT(spread, 1e-3);  // the particles differ
  }
}

TEST_F(VbootModelsCli, TenClassesGiveAColumnPerClassAndTheClassAsLabel) {
  const json results = run("digits.yaml");
  const json& run = results["runs"][0];
  ASSERT_EQ(run["model"], "models/rff.h5");
  const auto r = quench({"predict", "out/models/rff.h5", "digits.csv", "--out", "p.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(read_file(work_ / "p.csv"));
  const auto data = csv_rows(read_file(work_ / "digits.csv"));
  ASSERT_EQ(rows.size(), data.size());
  std::vector<std::string> header{"y"};
  for (int c = 0; c < 10; ++c) header.push_back("probability_c" + std::to_string(c));
  for (int c = 0; c < 10; ++c) header.push_back("probability_sd_c" + std::to_string(c));
  header.push_back("label");
  EXPECT_EQ(rows[0], header);
  const auto P = run_matrix(work_ / "out", run, "class_probabilities");
  const auto sd = run_matrix(work_ / "out", run, "class_probability_sd");
  const json& predicted = run["vectors"]["predicted_class"];
  ASSERT_EQ(P.size(), data.size() - 1 - 1500);
  std::size_t right = 0;
  for (std::size_t t = 0; t < P.size(); ++t) {
    const auto& row = rows[1501 + t];
    for (std::size_t c = 0; c < 10; ++c) {
      EXPECT_NEAR(std::stod(row[1 + c]), P[t][c], 1e-12) << "test row " << t;
      EXPECT_NEAR(std::stod(row[11 + c]), sd[t][c], 1e-12) << "test row " << t;
    }
    // The label is the class itself, written as the data writes it.
    EXPECT_EQ(row[21], std::to_string(predicted[t].get<int>())) << "test row " << t;
    right += row[21] == row[0];
  }
  EXPECT_GT(double(right) / double(P.size()), 0.8);  // chance: 0.1
}

// An independent reader of a vboot model: h5py and numpy only (read_model.py), P(y = 1 | x)
// at the first row of the data from the stored features and particles.
TEST_F(VbootModelsCli, PythonReadsTheParticlesWithoutQuench) {
  run("vboot.yaml");
  for (const std::string engine : {"rff", "mlp"}) {
    const std::string model = "out/models/" + engine + ".h5";
    const double quench_probability = std::stod(predicted_rows(model, "sonar.csv", true)[1][1]);
    const std::string python = python_reads(model, "sonar.csv");
    EXPECT_NEAR(std::stod(python), quench_probability, 1e-12) << engine;
  }
}

// Booleans are saved as 0/1 (the archive has none); info prints them as a pipeline writes them,
// by the plugin's schema (issue 36: "keep_particles = 0").
TEST_F(VbootModelsCli, InfoPrintsBooleanParametersAsTrueOrFalse) {
  run("vboot.yaml");
  const auto r = quench({"info", "out/models/rff.h5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"share_factorization = true", "keep_particles = false"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  EXPECT_EQ(r.out.find("keep_particles = 0"), std::string::npos) << r.out;
}

TEST_F(ModelsCli, InfoDescribesTheModel) {
  run_gp();
  const auto r = quench({"info", "out/models/gp.h5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part :
       {"gp_regression model of engine exact_gp_regression", "trained on 456 rows of 13 inputs",
        "kernel: gaussian", "likelihood: gaussian", "pipeline: gp_model", "train_file_sha256: "})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
}

TEST_F(ModelsCli, BadRowsAndDamagedModelsAreRefusedWithTheirReason) {
  run_gp();
  const std::string model = "out/models/gp.h5";
  const std::string good = read_file(work_ / model);
  auto refused = [&](const std::vector<std::string>& args, const std::string& reason) {
    expect_refused(args, 1, reason);
  };
  write_file(work_ / "no_crim.csv", "zn,y\n1,2\n");
  refused({"predict", model, "no_crim.csv", "--out", "p.csv"},
          "the model's input column(s) 'crim', 'indus'");
  write_file(work_ / "extra.csv",
             "id,crim,zn,indus,chas,nox,rm,age,dis,rad,tax,ptratio,black,lstat\n"
             "7,0.00632,18,2.31,0,0.538,6.575,65.2,4.09,1,296,15.3,396.9,4.98\n");
  refused({"predict", model, "extra.csv", "--out", "p.csv"},
          "row 1, column 'id': a column the model does not use");
  auto rows = read_file(work_ / "boston.csv");
  rows.replace(rows.find('\n') + 1, 7, "oops");
  write_file(work_ / "text.csv", rows);
  refused({"predict", model, "text.csv", "--out", "p.csv"}, "row 2, column 'crim'");
  write_file(work_ / "missing.csv",
             "crim,zn,indus,chas,nox,rm,age,dis,rad,tax,ptratio,black,lstat\n"
             "0.1,18,2.31,0,0.538,NA,65.2,4.09,1,296,15.3,396.9,4.98\n");
  refused(
      {"predict", model, "missing.csv", "--out", "p.csv"},
      "row 2, column 'rm': missing value 'NA': every input of a row to predict must be a number");
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x20;
  write_file(work_ / "flipped.h5", flipped);
  refused({"predict", "flipped.h5", "boston.csv", "--out", "p.csv"}, "checksum mismatch");
  write_file(work_ / "short.h5", good.substr(0, good.size() - 1000));
  refused({"predict", "short.h5", "boston.csv", "--out", "p.csv"}, "checksum mismatch");
  refused({"predict", "boston.csv", "boston.csv", "--out", "p.csv"}, "not a quench model file");
  refused({"predict", "absent.h5", "boston.csv", "--out", "p.csv"}, "cannot open the file");
  // --out naming a file predict reads, or nothing: refused before anything is written, the
  // model and the data as they were.
  const std::string data = read_file(work_ / "boston.csv");
  expect_refused({"predict", model, "boston.csv", "--out", model}, 2,
                 "--out 'out/models/gp.h5' is the model file it reads");
  expect_refused({"predict", model, "boston.csv", "--out", "./boston.csv"}, 2,
                 "--out './boston.csv' is the data file it reads");
  expect_refused({"predict", model, "boston.csv", "--out", ""}, 2, "--out: is empty");
  EXPECT_EQ(read_file(work_ / model), good);
  EXPECT_EQ(read_file(work_ / "boston.csv"), data);
  refused({"info", "flipped.h5"}, "checksum mismatch");
  // The extra column is skipped when asked.
  const auto r =
      quench({"predict", model, "extra.csv", "--out", "p.csv", "--ignore-extra-columns"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A count model with an exposure (Poisson, `exposure: days`, EP on quine with a made-up
// column of days): `quench predict` reads each row's exposure from the data, so the test rows'
// predicted mean, variance, quantiles and p(y = k) are the run's own (1e-12 relative), and the
// mean of a row with its exposure doubled is twice its mean (E[y] = n e^(m + v/2)); --quantiles
// and --max-count give the columns asked for; a file without the exposure column, a bad
// exposure and options the model cannot take are refused before anything is written.
TEST_F(ModelsCli, CountModelsReadTheExposureAndTakeQuantilesAndCountBounds) {
  const auto quine = csv_rows(read_file(fs::path(kData) / "quine_split.csv"));
  std::string data = "Eth,Sex,Age,Lrn,train,y,days\n", doubled = data;
  std::vector<std::size_t> test_rows;
  for (std::size_t i = 1; i < quine.size(); ++i) {
    std::string line;
    for (const auto& cell : quine[i]) line += cell + ",";
    const double days = 1.0 + 0.5 * static_cast<double>(i % 4);
    data += line + format_days(days) + "\n";
    doubled += line + format_days(2 * days) + "\n";
    if (quine[i][4] == "0") test_rows.push_back(i);
  }
  write_file(work_ / "quine_days.csv", data);
  write_file(work_ / "quine_doubled.csv", doubled);
  write_file(work_ / "counts.yaml", R"(name: counts
data:
  file: quine_days.csv
  target: y
  split: {rule: column, column: train}
  standardize_inputs: true
components:
  kernel: {plugin: gaussian, width: 4.0, amplitude: 1.0}
  likelihood: {plugin: poisson, exposure: days}
engines:
  - {name: ep, plugin: ep}
outputs: {models: true, plots: false}
)");
  const auto r = quench({"run", "counts.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json run = json::parse(read_file(work_ / "out" / "results.json"))["runs"][0];
  const std::string model = "out/" + run["model"].get<std::string>();
  const auto rows = predicted_rows(model, "quine_days.csv", true);
  ASSERT_EQ(rows.size(), quine.size());
  const std::vector<std::string> header = rows[0];
  auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << name;
    return static_cast<std::size_t>(at - header.begin());
  };
  for (const std::string name :
       {"target_mean", "target_variance", "target_quantile_0.95", "target_p0", "target_p10"}) {
    const json& want = run["vectors"]["test_" + name];
    ASSERT_EQ(want.size(), test_rows.size()) << name;
    for (std::size_t t = 0; t < test_rows.size(); ++t) {
      const double got = std::stod(rows[test_rows[t]][column(name)]);
      EXPECT_NEAR(got, want[t].get<double>(), 1e-12 * (1 + std::abs(got))) << name << " " << t;
    }
  }
  const auto twice = predicted_rows(model, "quine_doubled.csv", true);
  const std::size_t mean = column("target_mean");
  for (std::size_t i = 1; i < rows.size(); ++i)
    EXPECT_NEAR(std::stod(twice[i][mean]), 2 * std::stod(rows[i][mean]),
                1e-12 * std::stod(twice[i][mean]))
        << "row " << i;
  // Asked-for quantiles and count bound: exactly those columns.
  fs::remove(work_ / "p.csv");
  const auto asked =
      quench({"predict", model, "quine_days.csv", "--out", "p.csv", "--ignore-extra-columns",
              "--quantiles", "0.25,0.75", "--max-count", "2"});
  ASSERT_EQ(asked.exit_code, 0) << asked.err;
  EXPECT_EQ(
      csv_rows(read_file(work_ / "p.csv"))[0],
      (std::vector<std::string>{"y", "latent_mean", "latent_variance", "target_mean",
                                "target_variance", "target_quantile_0.25", "target_quantile_0.75",
                                "target_p0", "target_p1", "target_p2"}));
  fs::remove(work_ / "p.csv");
  write_file(work_ / "no_days.csv", "Eth,Sex,Age,Lrn\n0,1,0,1\n");
  expect_refused({"predict", model, "no_days.csv", "--out", "p.csv"}, 1,
                 "reads each row's exposure from column 'days', which is missing");
  write_file(work_ / "zero_days.csv", "Eth,Sex,Age,Lrn,days\n0,1,0,1,1\n0,1,0,1,0\n");
  expect_refused({"predict", model, "zero_days.csv", "--out", "p.csv"}, 1,
                 "row 3, column 'days': the model needs a positive exposure, got 0");
  expect_refused({"predict", model, "quine_days.csv", "--out", "p.csv", "--ignore-extra-columns",
                  "--quantiles", "0.5,1.5"},
                 2, "--quantiles takes probabilities in (0, 1), got 1.5");
  run_gp();
  expect_refused(
      {"predict", "out/models/gp.h5", "boston.csv", "--out", "p.csv", "--quantiles", "0.5"}, 2,
      "--quantiles: this model ('gp_regression') gives no quantiles of its target");
  expect_refused(
      {"predict", "out/models/gp.h5", "boston.csv", "--out", "p.csv", "--max-count", "3"}, 2,
      "--max-count: this model ('gp_regression') gives no probabilities of counts");
}

// The bootstrap models (ADATAP, eq 57, and Monte-Carlo with its retrains kept): one file per
// run of a ratio sweep; `quench predict` reproduces each run's own bootstrap mean and variance
// at the test rows.
TEST_F(ModelsCli, BootstrapModelsReproduceTheRunsTestPredictions) {
  write_file(work_ / "boot.yaml", R"(name: boot_model
seed: 7
data:
  file: boston.csv
  target: y
  split: {rule: first_train, count: 150}
  standardize_inputs: true
components:
  kernel: {plugin: gaussian, width: 2, amplitude: 60}
  likelihood: {plugin: gaussian, noise: 10}
  resampler: {plugin: poisson_bootstrap, ratio: [0.5, 1]}
engines:
  - {name: adatap, plugin: adatap_bootstrap, density: false}
  - {name: mc, plugin: mc_bootstrap, samples: 100, keep_samples: false}
outputs: {models: true, plots: false}
)");
  const auto r = quench({"run", "boot.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json results = json::parse(read_file(work_ / "out" / "results.json"));
  ASSERT_EQ(results["runs"].size(), 4u);
  for (const json& run : results["runs"]) {
    ASSERT_TRUE(run.contains("model")) << run.dump();
    const std::string model = "out/" + run["model"].get<std::string>();
    const auto rows = predicted_rows(model, "boston.csv");
    ASSERT_EQ(rows.size(), 507u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"y", "bootstrap_mean", "bootstrap_variance"}));
    const json& mean = run["vectors"]["prediction_mean"];
    const json& variance = run["vectors"]["prediction_variance"];
    ASSERT_EQ(mean.size(), 356u);
    for (std::size_t i = 0; i < mean.size(); ++i) {
      const double m = std::stod(rows[151 + i][1]), v = std::stod(rows[151 + i][2]);
      EXPECT_NEAR(m, mean[i].get<double>(), 1e-12 * std::abs(m)) << model << " row " << 151 + i;
      EXPECT_NEAR(v, variance[i].get<double>(), 1e-12 * std::abs(v)) << model << " row " << 151 + i;
    }
    // h5py alone: eq 57 from G, delta_lambda, gamma / the mean of the kept retrains.
    const std::string python = python_reads(model, "boston.csv");
    const double first = std::stod(rows[1][1]);
    EXPECT_NEAR(std::stod(python), first, 1e-12 * std::abs(first)) << model;
    fs::remove(work_ / "p.csv");
  }
}

// The GP classifiers on Sonar (001 Sec. 8.1): `quench predict` reproduces each engine's test
// outputs (latent mean / decision, latent variance, probability, label) and h5py its latent
// mean from t o alpha.
TEST_F(ModelsCli, ClassifierModelsReproduceTheRunsTestOutputs) {
  fs::copy_file(kData + "/sonar.csv", work_ / "sonar.csv");
  write_file(work_ / "sonar.yaml", R"(name: sonar_model
data:
  file: sonar.csv
  target: y
  split: {rule: column, column: train}
  standardize_inputs: true
components:
  kernel: {plugin: gaussian, width: 0.2}
  likelihood: {plugin: probit}
engines:
  - {name: tap, plugin: tap}
  - {name: ep, plugin: ep}
  - {name: naive, plugin: naive_mean_field}
  - {name: svm, plugin: svm_limit}
outputs: {models: true, plots: false}
)");
  const auto r = quench({"run", "sonar.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json results = json::parse(read_file(work_ / "out" / "results.json"));
  const auto test_rows = sonar_test_rows(csv_rows(read_file(work_ / "sonar.csv")));
  ASSERT_EQ(results["runs"].size(), 4u);
  for (const json& run : results["runs"]) {
    const std::string engine = run["engine"];
    SCOPED_TRACE(engine);
    const std::string model = "out/" + run["model"].get<std::string>();
    const auto rows = predicted_rows(model, "sonar.csv", true);
    ASSERT_EQ(rows.size(), 209u);
    const json& v = run["vectors"];
    if (engine == "svm") {
      EXPECT_EQ(rows[0], (std::vector<std::string>{"y", "decision", "label"}));
      expect_test_outputs(rows, test_rows, {{1, v["test_mean_field"]}}, v["test_class"]);
    } else {
      EXPECT_EQ(rows[0], (std::vector<std::string>{"y", "latent_mean", "latent_variance",
                                                   "probability", "label"}));
      expect_test_outputs(
          rows, test_rows,
          {{1, v["test_mean_field"]}, {2, v["test_variance"]}, {3, v["test_probability"]}},
          v["test_class"]);
    }
    const std::string python = python_reads(model, "sonar.csv");
    const double first = std::stod(rows[1][1]);
    EXPECT_NEAR(std::stod(python), first, 1e-12 * (1 + std::abs(first)));
    fs::remove(work_ / "p.csv");
  }
}

// The analytical classifier bootstraps on Sonar (docs/adatap_classification.md): the probit
// ADATAP and its SVM limit leave models whose predictions at the test rows are the runs' own
// outputs, and h5py reproduces the bootstrap mean from G, delta_lambda and gamma.
TEST_F(ModelsCli, AdatapClassifierModelsReproduceTheRunsTestOutputs) {
  fs::copy_file(kData + "/sonar.csv", work_ / "sonar.csv");
  write_file(work_ / "boot.yaml", R"(name: sonar_adatap_model
seed: 3
data:
  file: sonar.csv
  target: y
  split: {rule: column, column: train}
  standardize_inputs: true
components:
  kernel: {plugin: gaussian, width: 0.2, noise: 0.0}
  likelihood: {plugin: probit, noise: 0.1}
  resampler: {plugin: poisson_bootstrap, ratio: 1}
engines:
  - {name: adatap, plugin: adatap_bootstrap}
  - {name: adatap_svm, plugin: adatap_svm}
outputs: {models: true, plots: false}
)");
  const auto r = quench({"run", "boot.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json results = json::parse(read_file(work_ / "out" / "results.json"));
  const auto test_rows = sonar_test_rows(csv_rows(read_file(work_ / "sonar.csv")));
  for (const json& run : results["runs"]) {
    const std::string engine = run["engine"];
    SCOPED_TRACE(engine);
    const std::string model = "out/" + run["model"].get<std::string>();
    const auto rows = predicted_rows(model, "sonar.csv", true);
    ASSERT_EQ(rows.size(), 209u);
    const json& v = run["vectors"];
    if (engine == "adatap_svm") {
      EXPECT_EQ(rows[0],
                (std::vector<std::string>{"y", "bootstrap_mean", "bootstrap_variance", "label"}));
      expect_test_outputs(rows, test_rows,
                          {{1, v["prediction_mean"]}, {2, v["prediction_variance"]}},
                          v["test_class"]);
    } else {
      EXPECT_EQ(rows[0],
                (std::vector<std::string>{"y", "bootstrap_mean", "bootstrap_variance",
                                          "within_sample_variance", "probability", "label"}));
      expect_test_outputs(rows, test_rows,
                          {{1, v["prediction_mean"]},
                           {2, v["prediction_variance"]},
                           {4, v["prediction_probability"]}},
                          v["test_class"]);
    }
    const std::string python = python_reads(model, "sonar.csv");
    const double first = std::stod(rows[1][1]);
    EXPECT_NEAR(std::stod(python), first, 1e-12 * (1 + std::abs(first)));
    fs::remove(work_ / "p.csv");
  }
}

}  // namespace
