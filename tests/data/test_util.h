// Helpers for the data tests: paths to the example data and scratch CSV files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

namespace quench::testing {

/// A file in examples/data (QUENCH_TEST_DATA).
inline std::string data_file(const std::string& name) {
  const char* dir = std::getenv("QUENCH_TEST_DATA");
  return (std::filesystem::path(dir ? dir : "examples/data") / name).string();
}

/// A per-test scratch directory, removed at the end of the test.
class ScratchDir : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("quench_data_") + info->test_suite_name() + "_" + info->name() + "_" +
            std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Writes `text` verbatim (binary) to `name` in the scratch directory; returns the path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    return path.string();
  }

  std::filesystem::path dir_;
};

}  // namespace quench::testing
