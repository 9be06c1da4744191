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
  EXPECT_EQ(target[0],
            "4:3: " + data_path() +
                ": row 2, column 'y': likelihood 'gaussian' needs a numeric target, got 'M'");
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

// The likelihood declares how the target is read (Likelihood::target_kind), an engine that reads
// it itself overrides that (PluginInfo::targets: the fixtures' one_vs_rest reads classes):
// three string classes pass for a classes likelihood and for one_vs_rest over a binary one,
// the class checks report at the target key, and an engine that cannot fit the likelihood's
// kind is refused at its line.
TEST_F(pipeline_validate_data, TheLikelihoodAndEnginesDeclareHowTheTargetIsRead) {
  const auto problems = [&](const std::string& likelihood, const std::string& engine) {
    const std::string yaml =
        "name: t\ndata:\n  file: data.csv\n  target: y\ncomponents:\n  kernel: {plugin: "
        "gaussian, l2: 73}\n  likelihood: {plugin: " +
        likelihood + "}\nengines:\n  - plugin: " + engine + "\n";
    std::vector<std::string> found;
    try {
      Pipeline::from_string(yaml, "t.yaml", dir_.string()).validate(testing::fixtures());
    } catch (const ConfigError& e) {
      found = testing::lines(e.diagnostics());
    }
    return found;
  };
  write_data("x,y\n1,cat\n2,dog\n3,eel\n");
  EXPECT_EQ(problems("multinomial_probit", "multiclass_ep"), std::vector<std::string>{});
  EXPECT_EQ(problems("probit", "one_vs_rest"), std::vector<std::string>{});
  // A binary likelihood alone: exactly two classes.
  const auto two = problems("probit", "ep");
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0], "4:3: " + data_path() +
                        ", column 'y': class labels must be exactly two classes, found 3: 'cat', "
                        "'dog', 'eel'");
  // multiclass_ep over a binary likelihood: refused, and the data read as that likelihood reads.
  const auto refused = problems("probit", "multiclass_ep");
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0], two[0]);
  EXPECT_EQ(refused[1],
            "9:13: engine 'multiclass_ep' (multiclass_ep) cannot fit the binary target of "
            "likelihood 'probit'; it fits classes targets (engines that do: ep, one_vs_rest)");

  write_data("x,y\n1,1\n2,1.5\n3,1\n");
  const auto found = problems("multinomial_probit", "multiclass_ep");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "4:3: " + data_path() +
                          ": row 3, column 'y': class labels must be integers or strings, got 1.5");
}

}  // namespace
}  // namespace quench
