// Golden tests: each golden/<name>.yaml is parsed and resolved against the fixture plugins,
// and the diagnostics (one per line, "ok" when there are none) must equal
// golden/<name>.expected exactly. QUENCH_UPDATE_GOLDEN=1 rewrites the expected files.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"

namespace quench {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> golden_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(QUENCH_PIPELINE_GOLDEN))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The diagnostics for a pipeline file, named as given (relative to the golden directory).
std::string run(const std::string& name) {
  const std::string file = name + ".yaml";
  std::string out;
  try {
    const PipelineSpec spec =
        parse_pipeline(read(fs::path(QUENCH_PIPELINE_GOLDEN) / file), file, ".");
    resolve_pipeline(spec, testing::fixtures());
    out = "ok\n";
  } catch (const ConfigError& e) {
    out = std::string(e.what()) + "\n";  // "file:line:col: message" lines
  }
  return out;
}

class pipeline_golden : public ::testing::TestWithParam<std::string> {};

TEST_P(pipeline_golden, MatchesExpected) {
  const fs::path expected_path = fs::path(QUENCH_PIPELINE_GOLDEN) / (GetParam() + ".expected");
  const std::string actual = run(GetParam());
  const char* update = std::getenv("QUENCH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(expected_path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << expected_path;
  }
  ASSERT_TRUE(fs::exists(expected_path)) << expected_path << " is missing; actual:\n" << actual;
  EXPECT_EQ(actual, read(expected_path));
}

INSTANTIATE_TEST_SUITE_P(Files, pipeline_golden, ::testing::ValuesIn(golden_names()),
                         [](const auto& info) { return info.param; });

TEST(pipeline_golden_files, MultiErrorReportsEveryKindAtOnce) {
  const std::string out = run("multi_error");
  const auto count = std::count(out.begin(), out.end(), '\n');
  EXPECT_GE(count, 5);
  for (const char* needle : {"; did you mean '", "expects integer, got",
                             "must be >= ", "missing required parameter", "unknown kernel plugin"})
    EXPECT_NE(out.find(needle), std::string::npos) << needle << "\n" << out;
}

}  // namespace
}  // namespace quench
