// End-to-end tests of the quench command line. Each test runs the real binary (QUENCH_CLI)
// with a fresh temporary directory as its working directory and checks the exit code, the
// messages on stdout and stderr and the files written. The binary finds the build's plugins
// next to its framework library; QUENCH_PLUGIN_PATH is cleared so the environment cannot
// add others.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> lines_containing(const std::string& text, const std::string& needle) {
  std::vector<std::string> found;
  for (const auto& line : lines_of(text))
    if (line.find(needle) != std::string::npos) found.push_back(line);
  return found;
}

const std::string kBoston = std::string(QUENCH_TEST_DATA) + "/boston.csv";

/// What a run of the binary produced.
struct Outcome {
  int exit_code = -1;  ///< -1 when it did not exit normally (crash, signal, timeout)
  std::string out, err;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("QUENCH_PLUGIN_PATH");
    std::string pattern = (fs::temp_directory_path() / "quench-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << pattern;
    root_ = pattern;
    work_ = root_ / "work";
    fs::create_directory(work_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  /// Runs `quench args...` in work_; stdout and stderr go to files outside work_.
  Outcome quench(const std::vector<std::string>& args) const {
    const std::string out_file = (root_ / "stdout").string(),
                      err_file = (root_ / "stderr").string();
    const std::string cwd = work_.string();
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(QUENCH_CLI));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid == 0) {
      const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 || ::chdir(cwd.c_str()))
        ::_exit(126);
      ::alarm(60);  // a hung binary is killed by SIGALRM (kept across exec): exit_code -1
      ::execv(QUENCH_CLI, argv.data());
      ::_exit(127);
    }
    Outcome outcome;
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return outcome;
    if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
    outcome.out = read_file(out_file);
    outcome.err = read_file(err_file);
    return outcome;
  }

  fs::path root_;  ///< fresh per test, removed afterwards
  fs::path work_;  ///< the binary's working directory
};

// Every kind of pipeline mistake, reported at once as file:line:col lines, exit code 2.
TEST_F(Cli, ValidateReportsEveryErrorAtOnce) {
  const fs::path golden(QUENCH_CLI_GOLDEN);
  fs::copy_file(golden / "validate_errors.yaml", work_ / "validate_errors.yaml");
  const Outcome r = quench({"validate", "validate_errors.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, read_file(golden / "validate_errors.expected"));
}

// A broken section is reported once, as the cause: engines needing a component of a broken
// components section are not reported again as missing it.
TEST_F(Cli, BrokenSectionHasNoFollowOnErrors) {
  const std::string engines =
      "engines:\n"
      "  - {name: gp, plugin: exact_gp_regression}\n";
  write_file(work_ / "list.yaml",
             "data: {file: '" + kBoston + "', target: y}\ncomponents: [gaussian]\n" + engines);
  const Outcome list = quench({"validate", "list.yaml"});
  EXPECT_EQ(list.exit_code, 2);
  EXPECT_EQ(list.err, "list.yaml:2:13: 'components' expects a mapping, got a list\n");
  write_file(work_ / "block.yaml", "data: {file: '" + kBoston +
                                       "', target: y}\ncomponents:\n"
                                       "  kernel: {plugin: gaussian, l2: 1}\n"
                                       "  likelihood: {noise: 0.1}\n" +
                                       engines);
  const Outcome block = quench({"validate", "block.yaml"});
  EXPECT_EQ(block.exit_code, 2);
  EXPECT_EQ(block.err, "block.yaml:4:15: missing 'plugin' in components.likelihood\n");
}

TEST_F(Cli, ValidateAcceptsAValidPipeline) {
  write_file(work_ / "ok.yaml", "data: {file: '" + kBoston + "'}\n" +
                                    "components:\n"
                                    "  kernel: {plugin: gaussian}\n"
                                    "  likelihood: {plugin: gaussian, noise: 0.1}\n"
                                    "engines: [exact_gp_regression]\n");
  const Outcome r = quench({"validate", "ok.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok.yaml: valid\n");
  EXPECT_EQ(r.err, "");
}

// Two engines, the resampler's ratio swept over two values: four runs, all ok.
TEST_F(Cli, RunWritesResultsAndTables) {
  write_file(work_ / "small.yaml", R"(name: cli_small
seed: 7
data:
  file: ')" + kBoston + R"('
  target: y
  standardize_target: true
components:
  kernel: {plugin: gaussian, l2: 73.54, scaling: sqrt_variance}
  likelihood: {plugin: gaussian, noise: 0.01}
  resampler: {plugin: poisson_bootstrap, ratio: [0.5, 1]}
engines:
  - {name: monte_carlo, plugin: mc_bootstrap, samples: 20, keep_samples: false}
  - {name: exact, plugin: exact_gp_regression}
)");
  const Outcome r =
      quench({"run", "small.yaml", "--out", "out", "--threads", "2", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& line : lines_of(r.err))  // nothing but a note when gnuplot is missing
    EXPECT_NE(line.find("gnuplot not found"), std::string::npos) << line;
  const auto results_lines = lines_containing(r.out, "results: ");
  ASSERT_EQ(results_lines.size(), 1u) << r.out;
  EXPECT_EQ(results_lines[0], "results: out/results.json");

  const fs::path out = work_ / "out";
  ASSERT_TRUE(fs::is_regular_file(out / "results.json"));
  const json doc = json::parse(read_file(out / "results.json"));
  EXPECT_EQ(doc.at("schema"), "quench.results/1");
  EXPECT_EQ(doc.at("pipeline"), "cli_small");
  EXPECT_EQ(doc.at("seed"), 7);
  const json& runs = doc.at("runs");
  ASSERT_EQ(runs.size(), 4u);
  // Sweep points outermost, then the engines in pipeline order.
  const std::vector<std::pair<std::string, double>> expected = {
      {"monte_carlo", 0.5}, {"exact", 0.5}, {"monte_carlo", 1.0}, {"exact", 1.0}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    const json& run = runs[i];
    EXPECT_EQ(run.at("engine"), expected[i].first);
    EXPECT_EQ(run.at("sweep"), json({{"resampler.ratio", expected[i].second}}));
    EXPECT_EQ(run.at("status").at("code"), "ok");
    EXPECT_EQ(run.at("status").at("message"), "");
    const json& scalars = run.at("scalars");
    const bool monte_carlo = expected[i].first == "monte_carlo";
    EXPECT_EQ(run.at("plugin"), monte_carlo ? "mc_bootstrap" : "exact_gp_regression");
    const std::vector<std::string> names =
        monte_carlo ? std::vector<std::string>{"test_error_square", "test_error_eps_insensitive"}
                    : std::vector<std::string>{"log_marginal_likelihood"};
    for (const auto& name : names) {
      ASSERT_TRUE(scalars.contains(name)) << name;
      EXPECT_TRUE(scalars.at(name).is_number()) << name << " = " << scalars.at(name);
    }
    if (monte_carlo) {
      EXPECT_EQ(scalars.at("samples"), 20);
    }
  }

  const fs::path table = out / "tables" / "scalars.csv";
  ASSERT_TRUE(fs::is_regular_file(table));
  const auto rows = lines_of(read_file(table));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].rfind("engine,status,resampler.ratio,", 0), 0u) << rows[0];
  EXPECT_EQ(rows[1].rfind("monte_carlo,ok,0.5,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind("exact,ok,0.5,", 0), 0u) << rows[2];
  EXPECT_EQ(rows[3].rfind("monte_carlo,ok,1,", 0), 0u) << rows[3];
  EXPECT_EQ(rows[4].rfind("exact,ok,1,", 0), 0u) << rows[4];

  // Files are written through temporaries renamed into place: none may be left over.
  for (const auto& entry : fs::recursive_directory_iterator(out))
    EXPECT_NE(entry.path().filename().string().front(), '.') << entry.path();
}

// A data error names the file, the row (the header is row 1) and the column; exit code 1.
TEST_F(Cli, NonNumericCsvFieldNamesFileRowAndColumn) {
  write_file(work_ / "bad.csv", "x1,x2,y\n1.0,2.0,3.0\n0.5,abc,1.0\n2.0,1.5,0.5\n");
  write_file(work_ / "bad.yaml",
             "data: {file: bad.csv, target: y}\n"
             "components:\n"
             "  kernel: {plugin: gaussian}\n"
             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
             "engines: [exact_gp_regression]\n");
  const Outcome r = quench({"run", "bad.yaml", "--out", "out", "--no-progress"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "quench: error: bad.csv: row 3, column 'x2': expected a number, got 'abc'\n");
  EXPECT_FALSE(fs::exists(work_ / "out" / "results.json"));
}

// A file that is not a shared library is refused with one line naming it and the reason;
// the real plugins are still listed.
TEST_F(Cli, JunkLibraryIsRefusedAndPluginsStillListed) {
  fs::create_directory(work_ / "plugins");
  write_file(work_ / "plugins" / "libjunk.so", "this is not a shared library\n");
  const Outcome r = quench({"plugins", "--plugin-path", "plugins"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* name :
       {"gaussian", "linear", "poisson_bootstrap", "exact_gp_regression", "mc_bootstrap"})
    EXPECT_FALSE(lines_containing(r.out, name).empty()) << name << " not listed:\n" << r.out;
  const auto junk = lines_containing(r.out + r.err, "libjunk.so");
  ASSERT_EQ(junk.size(), 1u) << r.out << r.err;
  EXPECT_EQ(junk[0], "  plugins/libjunk.so: cannot be loaded as a shared library: file too short");
}

// Engine failures become statuses: the other engines still run, results.json is written
// with the failure and its message, and the exit code is 3.
TEST_F(Cli, EngineFailureAtRunTimeIsAFailedStatus) {
  std::string csv = "x1,x2,y\n";
  for (int i = 0; i < 12; ++i)
    csv += std::to_string(0.1 * i) + "," + std::to_string(1.0 - 0.05 * i * i) + "," +
           std::to_string(0.3 * i - 1.0) + "\n";
  write_file(work_ / "small.csv", csv);
  // mc_bootstrap cannot retrain an mc_bootstrap: a configuration error found while running.
  write_file(work_ / "failing.yaml",
             "data: {file: small.csv, target: y}\n"
             "components:\n"
             "  kernel: {plugin: gaussian}\n"
             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
             "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
             "engines:\n"
             "  - {name: nested, plugin: mc_bootstrap, samples: 5, inner: mc_bootstrap}\n"
             "  - {name: exact, plugin: exact_gp_regression}\n");
  const Outcome r = quench({"run", "failing.yaml", "--out", "out", "--no-progress"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  ASSERT_TRUE(fs::is_regular_file(work_ / "out" / "results.json"));
  const json runs = json::parse(read_file(work_ / "out" / "results.json")).at("runs");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("engine"), "nested");
  EXPECT_EQ(runs[0].at("status").at("code"), "failed");
  const std::string message = runs[0].at("status").at("message");
  const std::string reason = "engine 'mc_bootstrap' cannot be retrained on resampled data";
  EXPECT_TRUE(message.size() >= reason.size() &&
              message.compare(message.size() - reason.size(), reason.size(), reason) == 0)
      << message;
  EXPECT_EQ(runs[1].at("engine"), "exact");
  EXPECT_EQ(runs[1].at("status").at("code"), "ok");
  EXPECT_EQ(lines_containing(r.out, "[failed]").size(), 1u) << r.out;
}

// A numerical failure: targets near the largest double overflow y^T (K + s I)^-1 y, and the
// non-finite result is reported as a failed run, never as a number.
TEST_F(Cli, NonFiniteResultIsAFailedStatus) {
  write_file(work_ / "huge.csv", "x,y\n0,1e300\n1,-1e300\n2,1e300\n3,-1e300\n");
  write_file(work_ / "huge.yaml",
             "data: {file: huge.csv, target: y}\n"
             "components:\n"
             "  kernel: {plugin: gaussian}\n"
             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
             "engines: [exact_gp_regression]\n");
  const Outcome r = quench({"run", "huge.yaml", "--out", "out", "--no-progress"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  ASSERT_TRUE(fs::is_regular_file(work_ / "out" / "results.json"));
  const json runs = json::parse(read_file(work_ / "out" / "results.json")).at("runs");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].at("status").at("code"), "failed");
  EXPECT_EQ(runs[0].at("status").at("message"), "non-finite values in 'log_marginal_likelihood'");
  EXPECT_TRUE(runs[0].at("scalars").at("log_marginal_likelihood").is_null());
}

}  // namespace
