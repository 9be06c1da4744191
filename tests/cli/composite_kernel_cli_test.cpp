// Composite kernels end to end (docs/kernels.md): every engine family on a sum that equals a
// plain kernel (the same numbers up to rounding and solver tolerance), a saved composite model
// against the run, errors that need the data (columns, learn paths) at their file:line:col,
// and the refusal of vboot's random features.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_program.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kData = QUENCH_TEST_DATA;

using quench_test::read_text;
using quench_test::write_text;

// gaussian with amplitude 1.5 written plainly, and as the sum of amplitudes 0.5 and 1.0.
const std::string kPlain = "{plugin: gaussian, width: 2.0, amplitude: 1.5}";
const std::string kSum =
    "{sum: [{plugin: gaussian, width: 2.0, amplitude: 0.5}, "
    "{plugin: gaussian, width: 2.0, amplitude: 1.0}]}";

class CompositeKernelCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("QUENCH_PLUGIN_PATH");
    std::string pattern = (fs::temp_directory_path() / "quench-composite-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    work_ = root_ / "work";
    fs::create_directory(work_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  quench_test::ProgramOutcome quench(const std::vector<std::string>& args) const {
    return quench_test::run_program(QUENCH_CLI, args, work_, root_);
  }
  // Runs `pipeline` (its kernel line "KERNEL" replaced by `kernel`) as <name>.yaml; the runs.
  json run(const std::string& name, std::string pipeline, const std::string& kernel) const {
    pipeline.replace(pipeline.find("KERNEL"), 6, kernel);
    write_text(work_ / (name + ".yaml"), pipeline);
    const auto r =
        quench({"run", name + ".yaml", "--out", name, "--no-progress", "--threads", "2"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(read_text(work_ / name / "results.json"))["runs"];
  }
  // Every number the plain kernel's runs report equals the sum's, within `tolerance` relative
  // (1e-12 absolute near 0); timings are left out.
  void expect_same_numbers(const std::string& pipeline, double tolerance) const {
    const json plain = run("plain", pipeline, kPlain), sum = run("sum", pipeline, kSum);
    ASSERT_EQ(plain.size(), sum.size());
    ASSERT_GT(plain.size(), 0u);
    for (std::size_t r = 0; r < plain.size(); ++r) {
      const std::string engine = plain[r]["engine"].dump();
      EXPECT_EQ(plain[r]["status"]["code"], "ok") << engine;
      EXPECT_EQ(sum[r]["status"]["code"], "ok") << engine;
      std::size_t compared = 0;
      for (const char* section : {"scalars", "vectors"}) {
        for (const auto& [key, value] : plain[r][section].items()) {
          if (key.find("time") != std::string::npos) continue;
          const json& other = sum[r][section][key];
          const json a = value.is_array() ? value : json::array({value});
          const json b = other.is_array() ? other : json::array({other});
          ASSERT_EQ(a.size(), b.size()) << engine << " " << key;
          for (std::size_t i = 0; i < a.size(); ++i) {
            if (!a[i].is_number()) continue;
            const double x = a[i].get<double>(), y = b[i].get<double>();
            EXPECT_NEAR(x, y, tolerance * std::max(std::abs(x), 1e-12 / tolerance))
                << engine << " " << section << "." << key << "[" << i << "]";
            ++compared;
          }
        }
      }
      EXPECT_GT(compared, 0u) << engine;
    }
  }

  fs::path root_, work_;
};

// Regression: exact GP, ADATAP (000) and Monte-Carlo retrains. The sum's Gram matrix differs
// from the plain one by rounding (1 ulp), which the O(N^3) solves and ADATAP's fixed point
// carry to ~1e-12; 1e-9 leaves room and still catches any change of the kernel.
TEST_F(CompositeKernelCli, RegressionEnginesGiveThePlainKernelsNumbers) {
  expect_same_numbers("data: {file: '" + kData +
                          "/boston.csv', target: y, split: {rule: first_train, count: 120}, "
                          "inputs: [crim, rm, lstat, dis], standardize_inputs: true, "
                          "standardize_target: true}\n"
                          "components:\n  kernel: KERNEL\n"
                          "  likelihood: {plugin: gaussian, noise: 0.1}\n"
                          "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
                          "engines:\n  - exact_gp_regression\n  - adatap_bootstrap\n"
                          "  - {plugin: mc_bootstrap, inner: exact_gp_regression, samples: 40}\n",
                      1e-9);
}

// Classification: TAP, naive mean field, EP (001, 003), the SVM limit, exact LOO retraining,
// the ADATAP bootstrap of a classifier and Monte-Carlo over EP. Their fixed points are found
// to ~1e-10, so agreement to 1e-7 is what iteration leaves; a wrong kernel moves them by ~1.
TEST_F(CompositeKernelCli, ClassificationEnginesGiveThePlainKernelsNumbers) {
  expect_same_numbers(
      "data: {file: '" + kData +
          "/sonar.csv', target: y, split: {rule: column, column: train}, "
          "standardize_inputs: true}\n"
          "components:\n  kernel: KERNEL\n  likelihood: {plugin: probit, noise: 0.1}\n"
          "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
          "engines:\n  - tap\n  - naive_mean_field\n  - ep\n  - svm_limit\n"
          "  - {plugin: exact_loo, inner: ep}\n  - adatap_bootstrap\n"
          "  - {plugin: mc_bootstrap, inner: ep, samples: 20, keep_samples: false}\n",
      1e-7);
}

// The inducing-point prior (sparse GP regression, sparse EP) and multi-class GP classifiers.
TEST_F(CompositeKernelCli, InducingAndMultiClassEnginesGiveThePlainKernelsNumbers) {
  expect_same_numbers("data: {file: '" + kData +
                          "/boston.csv', target: y, standardize_inputs: true, "
                          "standardize_target: true, split: {rule: first_train, count: 400}}\n"
                          "inducing: {count: 40, method: greedy_variance, form: fitc}\n"
                          "components:\n  kernel: KERNEL\n"
                          "  likelihood: {plugin: gaussian, noise: 0.1}\n"
                          "engines: [sparse_gp_regression]\n",
                      1e-7);
  expect_same_numbers("data: {file: '" + kData +
                          "/iris_split.csv', target: y, split: {rule: column, column: train}, "
                          "standardize_inputs: true}\n"
                          "components:\n  kernel: KERNEL\n"
                          "  likelihood: {plugin: multinomial_probit}\n"
                          "engines: [multiclass_ep]\n",
                      1e-6);
  expect_same_numbers("data: {file: '" + kData +
                          "/iris_split.csv', target: y, split: {rule: column, column: train}, "
                          "standardize_inputs: true}\n"
                          "components:\n  kernel: KERNEL\n"
                          "  likelihood: {plugin: probit, noise: 1.0}\n"
                          "engines: [{plugin: one_vs_rest, inner: ep}]\n",
                      1e-7);
}

// A composite model saved by the run predicts the run's own test rows from the file; `quench
// info` names the formula and every part.
TEST_F(CompositeKernelCli, SavedCompositeModelPredictsTheRunsTestRows) {
  fs::copy_file(kData + "/co2.csv", work_ / "co2.csv");
  const json runs =
      run("co2",
          "name: co2\ndata: {file: co2.csv, target: y, center_target: true, "
          "split: {rule: first_train, count: 400}}\ncomponents:\n  kernel: KERNEL\n"
          "  likelihood: {plugin: gaussian, noise: 0.05}\n"
          "engines: [exact_gp_regression]\noutputs: {models: true, plots: false}\n",
          "{sum: [{plugin: gaussian, length_scales: [50], amplitude: 1000}, {product: "
          "[{plugin: gaussian, length_scales: [90], amplitude: 5}, {plugin: periodic, "
          "length_scales: [1.3], period: 1}]}, {plugin: rational_quadratic, length_scales: [1], "
          "alpha: 1, amplitude: 0.5}], columns: [year]}");
  ASSERT_EQ(runs.size(), 1u);
  const auto r =
      quench({"predict", "co2/models/exact_gp_regression.h5", "co2.csv", "--out", "p.csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream rows(read_text(work_ / "p.csv"));
  std::string line;
  std::vector<double> means;
  std::getline(rows, line);  // header y,mean,...
  while (std::getline(rows, line)) {
    const auto first = line.find(','), second = line.find(',', first + 1);
    means.push_back(std::stod(line.substr(first + 1, second - first - 1)));
  }
  ASSERT_EQ(means.size(), 468u);
  // results.json is in engine units, the centred target: add the mean of the training rows.
  std::istringstream data(read_text(work_ / "co2.csv"));
  std::getline(data, line);
  double mean = 0;
  for (int i = 0; i < 400 && std::getline(data, line); ++i)
    mean += std::stod(line.substr(line.find(',') + 1)) / 400;
  const json& test_mean = runs[0]["vectors"]["test_mean"];
  ASSERT_EQ(test_mean.size(), 68u);
  for (std::size_t t = 0; t < 68; ++t)  // results.json holds 17 digits
    EXPECT_NEAR(means[400 + t], test_mean[t].get<double>() + mean, 1e-13 * std::abs(means[400 + t]))
        << "test row " << t;
  const auto info = quench({"info", "co2/models/exact_gp_regression.h5"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("kernel: (gaussian + gaussian * periodic + rational_quadratic)[year]"),
            std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("      1.1: periodic 0.1.0"), std::string::npos) << info.out;
}

// Problems that need the data: unknown columns (did-you-mean among the inputs) and learn paths
// naming no part, each at its file:line:col, all at once.
TEST_F(CompositeKernelCli, ColumnsAndLearnPathsAreCheckedAgainstTheData) {
  write_text(work_ / "bad.yaml", "data: {file: '" + kData + "/co2.csv', target: y}\n" +
                                     "components:\n"
                                     "  kernel:\n"
                                     "    sum:\n"
                                     "      - {plugin: gaussian, columns: [yaer]}\n"
                                     "      - {plugin: periodic, columns: [month]}\n"
                                     "  likelihood: {plugin: gaussian, noise: 0.1}\n"
                                     "learn: {parameters: [kernel.2.amplitude, kernel.1.period]}\n"
                                     "engines: [exact_gp_regression]\n");
  const auto r = quench({"validate", "bad.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "bad.yaml:5:38: 'yaer' in kernel.0.columns is not an input column of the data; did "
            "you mean 'year'?\n"
            "bad.yaml:6:38: 'month' in kernel.1.columns is not an input column of the data\n");
  write_text(
      work_ / "path.yaml",
      "data: {file: '" + kData + "/co2.csv', target: y}\n" +
          "components:\n"
          "  kernel: {sum: [{plugin: gaussian}, {plugin: periodic}]}\n"
          "  likelihood: {plugin: gaussian, noise: 0.1}\n"
          "learn: {parameters: [kernel.2.amplitude, kernel.1.period, kernel.0.lenght_scales]}\n"
          "engines: [exact_gp_regression]\n");
  const auto p = quench({"validate", "path.yaml"});
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_EQ(p.err,
            "path.yaml:5:22: learn: 'kernel.2.amplitude' names no part of the kernel: kernel.2 is "
            "not one of kernel.0, kernel.1\n"
            "path.yaml:5:59: learn: unknown hyperparameter 'kernel.0.lenght_scales'; the kernel "
            "has: kernel.0.length_scales, kernel.0.amplitude, kernel.0.bias, kernel.0.noise, "
            "kernel.1.length_scales, kernel.1.amplitude, kernel.1.bias, kernel.1.noise, "
            "kernel.1.period; did you mean 'kernel.0.length_scales'?\n");
}

// A part with noise in a product is refused where the product is written.
TEST_F(CompositeKernelCli, NoiseInAProductIsRefused) {
  write_text(work_ / "product.yaml", "data: {file: '" + kData + "/co2.csv', target: y}\n" +
                                         "components:\n"
                                         "  kernel:\n"
                                         "    product:\n"
                                         "      - {plugin: gaussian, noise: 0.1}\n"
                                         "      - {plugin: periodic}\n"
                                         "  likelihood: {plugin: gaussian, noise: 0.1}\n"
                                         "engines: [exact_gp_regression]\n");
  const auto r = quench({"validate", "product.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "product.yaml:4:5: components.kernel: part 0 of a product of kernels has diagonal "
            "noise 0.1; noise has no meaning in a product: add a white kernel (or the "
            "likelihood's noise) to a sum instead\n");
}

// vboot's random-feature model (002) on a sum of random-feature kernels: the parts' features
// side by side, saved per-feature scales, the loaded model predicting the run's test rows; a
// sum with a part without features is refused.
TEST_F(CompositeKernelCli, VbootTakesASumOfRandomFeatureKernels) {
  const std::string head = "data: {file: '" + kData +
                           "/sonar.csv', target: y, split: {rule: column, column: train}, "
                           "standardize_inputs: true}\n"
                           "components:\n  kernel: ";
  const std::string tail =
      "\n  likelihood: {plugin: dirichlet, alpha_epsilon: 0.01}\n"
      "  resampler: {plugin: perturbation}\n"
      "engines: [{name: rff, plugin: vboot, model: rff, particles: 8}]\n"
      "outputs: {models: true, plots: false}\n";
  write_text(work_ / "vboot.yaml",
             head +
                 "{sum: [{plugin: gaussian, width: 0.2, amplitude: 4, random_features: 300}, "
                 "{plugin: gaussian, width: 2, amplitude: 1, bias: 1, random_features: 200, "
                 "feature_seed: 1}]}" +
                 tail);
  const auto r = quench({"run", "vboot.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json run = json::parse(read_text(work_ / "out" / "results.json"))["runs"][0];
  EXPECT_EQ(run["status"]["code"], "ok");
  fs::copy_file(kData + "/sonar.csv", work_ / "sonar.csv");
  const auto q = quench(
      {"predict", "out/models/rff.h5", "sonar.csv", "--out", "p.csv", "--ignore-extra-columns"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  std::istringstream rows(read_text(work_ / "p.csv")), data(read_text(work_ / "sonar.csv"));
  std::string line, row;
  std::getline(rows, line);
  std::getline(data, row);
  std::vector<std::string> labels;  // the loaded model's labels at the test rows
  while (std::getline(rows, line) && std::getline(data, row))
    if (row.substr(row.rfind(',', row.rfind(',') - 1) + 1, 1) == "0")  // train column is 0
      labels.push_back(line.substr(line.rfind(',') + 1));
  const json& predicted = run["vectors"]["predicted_class"];
  ASSERT_EQ(labels.size(), predicted.size());
  for (std::size_t t = 0; t < labels.size(); ++t)
    EXPECT_EQ(labels[t], predicted[t].get<double>() == 1 ? "1" : "-1") << "test row " << t;

  write_text(work_ / "linear.yaml",
             head + "{sum: [{plugin: gaussian, random_features: 50}, linear]}" + tail);
  const auto refused = quench({"run", "linear.yaml", "--out", "out2", "--no-progress"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE((refused.out + refused.err).find("or a sum of such kernels"), std::string::npos)
      << refused.out << refused.err;
}

}  // namespace
