// Pipeline::validate opens the data: a missing file, unknown columns, missing values, target
// values that do not fit the likelihood, each at the YAML key naming them, all at once.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "quench/pipeline.h"
#include "test_util.h"

namespace quench {
namespace {

class pipeline_validate_data : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("quench_validate_data_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write_data(const std::string& text) const {
    std::ofstream(dir_ / "data.csv", std::ios::binary) << text;
  }
  /// Validates `data_block` (the lines under `data:`) with a gaussian likelihood; returns the
  /// diagnostics as "line:col: message".
  std::vector<std::string> validate(const std::string& data_block,
                                    const std::string& likelihood = "gaussian") const {
    const std::string yaml =
        "name: t\ndata:\n" + data_block +
        "components:\n  kernel: {plugin: gaussian, l2: 73}\n  likelihood: {plugin: " + likelihood +
        "}\nengines:\n  - plugin: exact_gp_regression\n";
    const Pipeline p = Pipeline::from_string(yaml, "t.yaml", dir_.string());
    try {
      p.validate(testing::fixtures());
    } catch (const ConfigError& e) {
      return testing::lines(e.diagnostics());
    }
    return {};
  }
  std::string data_path() const { return (dir_ / "data.csv").lexically_normal().string(); }

  std::filesystem::path dir_;
};

TEST_F(pipeline_validate_data, ValidDataPasses) {
  write_data("\"\",\"x\",\"y\"\n\"1\",1,2.5\n\"2\",2,3.5\n");
  EXPECT_EQ(validate("  file: data.csv\n"), std::vector<std::string>{});
}

TEST_F(pipeline_validate_data, MissingFileIsReportedAtTheFileKey) {
  const auto found = validate("  file: nothing.csv\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rfind("3:3: ", 0), 0u) << found[0];
  EXPECT_NE(found[0].find("nothing.csv: cannot open file"), std::string::npos) << found[0];
}

TEST_F(pipeline_validate_data, EveryColumnProblemAtItsKey) {
  write_data("xa,xb,y\n1,2,3\n");
  const auto found = validate("  file: data.csv\n  target: why\n  inputs: [xa, xc]\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], "4:3: " + data_path() +
                          ": row 1, column 'why': no such target column; available columns: "
                          "xa, xb, y");
  EXPECT_EQ(found[1], "5:3: " + data_path() +
                          ": row 1, column 'xc': no such input column; did you mean 'xa'?; "
                          "available columns: xa, xb, y");
}

TEST_F(pipeline_validate_data, CellsAndTargetTypeTogether) {
  write_data("xa,xb,y\n1,NA,M\n2,abc,B\n");
  const auto found = validate("  file: data.csv\n  inputs: [xa, xb]\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "4:3: " + data_path() +
                          ": row 2, column 'xb': missing value 'NA'; set 'data: {missing: "
                          "drop_rows}' to drop such rows");
  write_data("xa,xb,y\n1,2,M\n2,3,B\n");
  const auto target = validate("  file: data.csv\n  target: y\n");
  ASSERT_EQ(target.size(), 1u);
  EXPECT_EQ(target[0], "4:3: " + data_path() +
                           ": row 2, column 'y': the likelihood needs a numeric target, got 'M'");
}

TEST_F(pipeline_validate_data, MissingKeyIsCheckedWithDidYouMean) {
  write_data("x,y\n1,2\n");
  const auto found = validate("  file: data.csv\n  missing: drop_row\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0],
            "4:12: 'data.missing' must be one of error, drop_rows; got 'drop_row'; did you mean "
            "'drop_rows'?");
  EXPECT_EQ(validate("  file: data.csv\n  missing: drop_rows\n"), std::vector<std::string>{});
}

// multinomial_probit and the multi-class engines (one_vs_rest, multiclass_ep) read the target
// as C >= 2 classes: three string classes pass, and the class checks report at the target key.
// (The fixtures do not know these plugins: their "unknown plugin" diagnostics are left out.)
TEST_F(pipeline_validate_data, MultiClassPluginsReadTheTargetAsClasses) {
  const auto data_problems = [&](const std::string& likelihood, const std::string& engine) {
    const std::string yaml =
        "name: t\ndata:\n  file: data.csv\n  target: y\ncomponents:\n  kernel: {plugin: "
        "gaussian, l2: 73}\n  likelihood: {plugin: " +
        likelihood + "}\nengines:\n  - plugin: " + engine + "\n";
    std::vector<std::string> found;
    try {
      Pipeline::from_string(yaml, "t.yaml", dir_.string()).validate(testing::fixtures());
    } catch (const ConfigError& e) {
      for (const std::string& line : testing::lines(e.diagnostics()))
        if (line.find(data_path()) != std::string::npos) found.push_back(line);
    }
    return found;
  };
  write_data("x,y\n1,cat\n2,dog\n3,eel\n");
  EXPECT_EQ(data_problems("multinomial_probit", "exact_gp_regression"), std::vector<std::string>{});
  EXPECT_EQ(data_problems("probit", "one_vs_rest"), std::vector<std::string>{});
  EXPECT_EQ(data_problems("probit", "multiclass_ep"), std::vector<std::string>{});
  // probit alone: exactly two classes.
  ASSERT_EQ(data_problems("probit", "exact_gp_regression").size(), 1u);

  write_data("x,y\n1,1\n2,1.5\n3,1\n");
  const auto found = data_problems("multinomial_probit", "multiclass_ep");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "4:3: " + data_path() +
                          ": row 3, column 'y': class labels must be integers or strings, got 1.5");
}

}  // namespace
}  // namespace quench
