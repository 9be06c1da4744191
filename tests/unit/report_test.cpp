// Reporters: atomic writes, JSON content and non-finite values.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "quench/report.h"

namespace quench::report_test {
namespace {

namespace fs = std::filesystem;

TEST(Report, AtomicWriteLeavesNoTemporaryFiles) {
  const fs::path dir = fs::temp_directory_path() / "quench_report_test";
  fs::remove_all(dir);
  write_file_atomically((dir / "a" / "x.txt").string(), "one");
  write_file_atomically((dir / "a" / "x.txt").string(), "two");
  std::ifstream in(dir / "a" / "x.txt");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "two");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir / "a")) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(Report, JsonHoldsScalarsVectorsAndNullForNonFinite) {
  Results r;
  r.engine = "mc";
  r.plugin = "mc_bootstrap";
  r.sweep["resampler.ratio"] = 0.5;
  r.scalars["test_error_square"] = 0.25;
  r.scalars["bad"] = std::nan("");
  r.vectors["prediction_mean"] = Eigen::Vector2d(1, 2);
  r.matrices["predictor_samples"] = Eigen::MatrixXd::Zero(3, 4);
  const std::string json = results_to_json({r}, ReportOptions{"p", 7, true, false});
  EXPECT_NE(json.find("\"test_error_square\": 0.25"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bad\": null"), std::string::npos);
  EXPECT_NE(json.find("\"file\": \"tables/mc__ratio-0.5__predictor_samples.csv\""),
            std::string::npos);
  EXPECT_NE(json.find("\"resampler.ratio\": 0.5"), std::string::npos);
}

}  // namespace
}  // namespace quench::report_test
