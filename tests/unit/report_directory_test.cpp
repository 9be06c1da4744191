// The report directory as a whole: swapped into place at the end, no stale files, never
// replacing a directory that is not a report, concurrent writers, failures and stop requests
// leaving the previous report intact; numbers written shortest-round-trip; provenance.
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "quench/cancellation.h"
#include "quench/errors.h"
#include "quench/report.h"

namespace quench::report_directory_test {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every file under `dir` with its content.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = read(e.path());
  return files;
}

Results run_named(const std::string& engine, double value) {
  Results r;
  r.engine = engine;
  r.plugin = "fixture";
  r.scalars["value"] = value;
  r.vectors["prediction_mean"] = Eigen::Vector3d(value, 2 * value, 3 * value);
  return r;
}

ReportOptions tables_only(const std::string& name = "p") {
  ReportOptions options;
  options.pipeline_name = name;
  options.plots = false;
  return options;
}

class ReportDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "quench-report-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    parent_ = pattern;
    out_ = parent_ / "out";
  }
  void TearDown() override {
    clear_stop_request();
    std::error_code ignored;
    fs::remove_all(parent_, ignored);
  }
  // Entries of the parent other than the report directory (staging leftovers).
  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(parent_))
      if (e.path() != out_) names.push_back(e.path().filename().string());
    return names;
  }
  fs::path parent_, out_;
};

TEST_F(ReportDirectory, RerunWithFewerOutputsLeavesNoStaleFile) {
  write_report({run_named("a", 1), run_named("b", 2)}, out_.string(), tables_only());
  ASSERT_TRUE(fs::exists(out_ / "tables" / "b__n3.csv"));
  const ReportFiles files = write_report({run_named("a", 1)}, out_.string(), tables_only());
  std::set<std::string> expected{"results.json"};
  for (const auto& t : files.tables) expected.insert(fs::relative(t, out_).string());
  std::set<std::string> found;
  for (const auto& [name, content] : snapshot(out_)) found.insert(name);
  EXPECT_EQ(found, expected);
  EXPECT_FALSE(fs::exists(out_ / "tables" / "b__n3.csv"));
  EXPECT_EQ(files.results_json, (out_ / "results.json").string());
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(ReportDirectory, RefusesADirectoryThatIsNotAReport) {
  fs::create_directories(out_);
  std::ofstream(out_ / "thesis.tex") << "years of work";
  std::ofstream(out_ / "results.json") << R"({"schema": "someone-else/1"})";
  const auto before = snapshot(out_);
  try {
    write_report({run_named("a", 1)}, out_.string(), tables_only());
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("refusing to write the report to " + out_.string()),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("holds no quench results.json"), std::string::npos);
  }
  EXPECT_THROW(check_report_directory(out_.string()), Error);
  EXPECT_EQ(snapshot(out_), before);
  EXPECT_TRUE(leftovers().empty());
}

// A report replaced its directory as a whole, so a user's files written beside an earlier
// report (notes, a data file) were deleted with it: refused, everything left as it was.
TEST_F(ReportDirectory, RefusesAReportDirectoryHoldingOtherFiles) {
  write_report({run_named("a", 1)}, out_.string(), tables_only());
  std::ofstream(out_ / "notes.txt") << "what I tried";
  std::ofstream(out_ / "data.csv") << "x,y\n1,2\n";
  const auto before = snapshot(out_);
  try {
    write_report({run_named("b", 2)}, out_.string(), tables_only());
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("it holds 'data.csv', 'notes.txt'"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(snapshot(out_), before);
  EXPECT_TRUE(leftovers().empty());
  fs::remove(out_ / "notes.txt");
  fs::remove(out_ / "data.csv");
  EXPECT_NO_THROW(write_report({run_named("b", 2)}, out_.string(), tables_only()));
}

// A run killed (kill -9) while it wrote its report left its hidden staging directory for
// good: the next run into the same target removes those whose process is gone, and leaves a
// live run's (here this process's) alone.
TEST_F(ReportDirectory, AbandonedStagingDirectoriesAreRemovedByTheNextRun) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // its pid now names no process
  const fs::path dead = parent_ / (".out.quench-staging-" + std::to_string(child) + "-a1b2c3");
  const fs::path live = parent_ / (".out.quench-staging-" + std::to_string(::getpid()) + "-d4e5f6");
  const fs::path other = parent_ / (".other.quench-staging-" + std::to_string(child) + "-g7h8i9");
  for (const fs::path& p : {dead, live, other}) {
    fs::create_directories(p / "tables");
    std::ofstream(p / "results.json") << "{}";
  }
  write_report({run_named("a", 1)}, out_.string(), tables_only());
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));  // another target's
  EXPECT_TRUE(fs::exists(out_ / "results.json"));
}

TEST_F(ReportDirectory, AcceptsAnEmptyDirectoryAndRefusesAFile) {
  fs::create_directories(out_);
  EXPECT_NO_THROW(check_report_directory(out_.string()));
  write_report({run_named("a", 1)}, out_.string(), tables_only());
  EXPECT_TRUE(fs::exists(out_ / "results.json"));
  std::ofstream(parent_ / "file") << "x";
  EXPECT_THROW(check_report_directory((parent_ / "file").string()), Error);
}

TEST_F(ReportDirectory, ConcurrentWritersEachSucceedAndLeaveOneWholeReport) {
  constexpr int kWriters = 8;
  std::vector<std::thread> writers;
  std::vector<std::string> errors(kWriters);
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      try {
        for (int round = 0; round < 3; ++round)
          write_report({run_named("w" + std::to_string(w), w)}, out_.string(),
                       tables_only("writer" + std::to_string(w)));
      } catch (const std::exception& e) {
        errors[w] = e.what();
      }
    });
  for (auto& t : writers) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(errors[w], "") << "writer " << w;
  // One writer's report, whole: its results.json and exactly its tables.
  const auto doc = nlohmann::json::parse(read(out_ / "results.json"));
  const std::string engine = doc["runs"][0]["engine"];
  EXPECT_EQ(doc["pipeline"], "writer" + engine.substr(1));
  std::set<std::string> found;
  for (const auto& [name, content] : snapshot(out_)) found.insert(name);
  EXPECT_EQ(found, (std::set<std::string>{"results.json", "tables/scalars.csv",
                                          "tables/" + engine + "__n3.csv"}));
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(ReportDirectory, AFailureMidReportLeavesThePreviousReportIntact) {
  write_report({run_named("a", 1)}, out_.string(), tables_only());
  const auto before = snapshot(out_);
  Results bad = run_named("a", 2);
  bad.matrices[std::string(300, 'm')] = Eigen::MatrixXd::Zero(2, 2);  // file name too long
  EXPECT_THROW(write_report({bad}, out_.string(), tables_only()), Error);
  EXPECT_EQ(snapshot(out_), before);
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(ReportDirectory, AStopRequestDiscardsTheReportInProgress) {
  write_report({run_named("a", 1)}, out_.string(), tables_only());
  const auto before = snapshot(out_);
  request_stop(SIGTERM);
  try {
    write_report({run_named("a", 2)}, out_.string(), tables_only());
    FAIL() << "expected Interrupted";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), SIGTERM);
    EXPECT_STREQ(e.what(), "interrupted by SIGTERM");
  }
  EXPECT_EQ(snapshot(out_), before);
  EXPECT_TRUE(leftovers().empty());
}

double parse(const std::string& text) {
  double x = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), x);
  EXPECT_EQ(result.ptr, text.data() + text.size()) << text;
  return x;
}

TEST_F(ReportDirectory, NumbersRoundTripBitwiseInTablesAndJson) {
  std::mt19937_64 gen(42);
  std::vector<double> values{0.1, 1.0 / 3, 1e-310, -2.5e300, 27.000000000000004};
  for (int i = 0; i < 200; ++i) {
    double x;
    const std::uint64_t bits = gen();
    std::memcpy(&x, &bits, sizeof x);
    if (std::isfinite(x)) values.push_back(x);
  }
  Results r;
  r.engine = "n";
  r.vectors["v"] =
      Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
  write_report({r}, out_.string(), tables_only());
  std::istringstream csv(read(out_ / "tables" / ("n__n" + std::to_string(values.size()) + ".csv")));
  std::string line;
  std::getline(csv, line);
  const auto doc = nlohmann::json::parse(read(out_ / "results.json"));
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_TRUE(std::getline(csv, line));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(parse(line)), std::bit_cast<std::uint64_t>(values[i]))
        << line;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(doc["runs"][0]["vectors"]["v"][i].get<double>()),
              std::bit_cast<std::uint64_t>(values[i]));
  }
  const std::string table =
      read(out_ / "tables" / ("n__n" + std::to_string(values.size()) + ".csv"));
  EXPECT_EQ(table.substr(0, 6), "v\n0.1\n");
  EXPECT_NE(read(out_ / "results.json").find(" 0.1,\n"), std::string::npos);
}

TEST(Provenance, Sha256MatchesTheFips180TestVector) {
  const fs::path file = fs::temp_directory_path() / ("quench-sha-" + std::to_string(::getpid()));
  std::ofstream(file, std::ios::binary) << "abc";
  EXPECT_EQ(sha256_of_file(file.string()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  fs::remove(file);
  EXPECT_THROW(sha256_of_file(file.string()), Error);
}

TEST(Provenance, JsonHoldsBuildAndRunRecords) {
  Provenance p;
  p.plugins.push_back({"kernel",
                       "kernel",
                       "gaussian",
                       "1.0",
                       "quench_kernels",
                       "0.1.0",
                       "/lib/k.so",
                       {{"l2", 2.0}, {"scaling", std::string("none")}},
                       {{"ratio", {ParamValue(0.5), ParamValue(1.0)}}}});
  p.data_files.push_back({"/d.csv", "ab"});
  p.train_rows = 10;
  p.inputs = {"x1", "x2"};
  p.target = "y";
  p.seed = 3;
  p.threads = 2;
  p.command_line = {"quench", "run", "p.yaml"};
  p.started = iso8601_utc(std::chrono::system_clock::time_point{});
  ReportOptions options = tables_only();
  options.provenance = &p;
  const auto doc = nlohmann::json::parse(results_to_json({}, options));
  const auto& prov = doc.at("provenance");
  EXPECT_EQ(prov.at("started"), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(prov.at("plugins")[0].at("parameters").at("l2"), 2.0);
  EXPECT_EQ(prov.at("plugins")[0].at("swept").at("ratio"), nlohmann::json({0.5, 1.0}));
  EXPECT_EQ(prov.at("data").at("files")[0].at("sha256"), "ab");
  EXPECT_EQ(prov.at("data").at("inputs"), nlohmann::json({"x1", "x2"}));
  EXPECT_EQ(prov.at("command_line")[2], "p.yaml");
  for (const char* key : {"quench_version", "git_revision", "compiler", "blas"})
    EXPECT_FALSE(prov.at(key).get<std::string>().empty()) << key;
  EXPECT_NE(prov.at("blas").get<std::string>().find("OpenBLAS"), std::string::npos);
}

}  // namespace
}  // namespace quench::report_directory_test
