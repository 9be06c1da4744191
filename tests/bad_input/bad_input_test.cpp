// The bad-input corpus: one test per directory cases/<area>/<case>/. The case directory is
// copied to a fresh temporary directory, the real quench binary (QUENCH_CLI) runs there with
// the arguments in `args` (one per line; @CASE@ = that copy, @DATA@ = examples/data), without
// a shell and with QUENCH_PLUGIN_PATH cleared, and the test checks `expect` (first line: the
// exit code; further non-empty lines: substrings of stderr+stdout) and the optional `absent`
// and `present` lists of paths relative to the copy. A case without `args` or `expect` fails.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "run_program.h"

namespace {

namespace fs = std::filesystem;

constexpr unsigned kTimeoutSeconds = 60;  // a hung binary is killed by SIGALRM

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The lines of `path` without a trailing '\r'; nullopt when the file does not exist.
std::optional<std::vector<std::string>> lines_of(const fs::path& path) {
  if (!fs::is_regular_file(path)) return std::nullopt;
  std::vector<std::string> lines;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> non_empty(std::vector<std::string> lines) {
  std::erase_if(lines, [](const std::string& l) { return l.empty(); });
  return lines;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

struct Case {
  std::string area, name;
  fs::path dir;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.dir; }

/// Every cases/<area>/<case>/ directory, sorted so test order is stable.
std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const fs::path root(QUENCH_BAD_INPUT_CASES);
  if (!fs::is_directory(root)) return cases;
  for (const auto& area : fs::directory_iterator(root)) {
    if (!area.is_directory()) continue;
    for (const auto& c : fs::directory_iterator(area.path()))
      if (c.is_directory())
        cases.push_back({area.path().filename().string(), c.path().filename().string(), c.path()});
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.dir < b.dir; });
  return cases;
}

/// `<area>_<case>` with every character GoogleTest does not allow in a name replaced by '_'.
std::string test_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.area + "_" + info.param.name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

struct Outcome {
  int exit_code = -1;  ///< -1 when it did not exit normally (crash, signal, timeout)
  int signal = 0;
  std::string output;  ///< stderr followed by stdout
};

/// Runs QUENCH_CLI with `args` in `cwd`; stdout and stderr go to files in `scratch`.
Outcome run_quench(const std::vector<std::string>& args, const fs::path& cwd,
                   const fs::path& scratch) {
  const auto r = quench_test::run_program(QUENCH_CLI, args, cwd, scratch, kTimeoutSeconds);
  return {r.exit_code, r.signal, r.err + r.out};
}

class BadInput : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    ::unsetenv("QUENCH_PLUGIN_PATH");
    std::string pattern = (fs::temp_directory_path() / "quench-bad-input-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << pattern;
    root_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  fs::path root_;
};

TEST_P(BadInput, Case) {
  const Case& c = GetParam();
  const auto args = lines_of(c.dir / "args");
  const auto expect = lines_of(c.dir / "expect");
  ASSERT_TRUE(args) << c.dir << " has no args file";
  ASSERT_TRUE(expect && !expect->empty()) << c.dir << " has no expect file (or it is empty)";
  int expected_code = -1;
  ASSERT_NO_THROW(expected_code = std::stoi(expect->front()))
      << c.dir << "/expect: the first line must be the exit code";

  const fs::path work = root_ / "case";
  fs::copy(c.dir, work, fs::copy_options::recursive);
  std::vector<std::string> argv;
  for (std::string a : *args) {
    replace_all(a, "@CASE@", fs::absolute(work).string());
    replace_all(a, "@DATA@", QUENCH_TEST_DATA);
    argv.push_back(std::move(a));
  }
  const Outcome r = run_quench(argv, work, root_);
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << "\n" << r.output;
  EXPECT_EQ(r.exit_code, expected_code) << r.output;
  for (const auto& needle : non_empty({expect->begin() + 1, expect->end()}))
    EXPECT_NE(r.output.find(needle), std::string::npos) << "missing \"" << needle << "\" in:\n"
                                                        << r.output;
  for (const auto& path :
       non_empty(lines_of(c.dir / "absent").value_or(std::vector<std::string>{})))
    EXPECT_FALSE(fs::exists(fs::symlink_status(work / path))) << path << " exists";
  for (const auto& path :
       non_empty(lines_of(c.dir / "present").value_or(std::vector<std::string>{})))
    EXPECT_TRUE(fs::exists(work / path)) << path << " does not exist";
}

/// The lines of `output` that are diagnostics ("<file>:<line>:<col>: <message>"), each as the
/// file's name, position and message, without the note on a pipeline's ignored plugin_paths
/// (which names the command that ignored them).
std::vector<std::string> diagnostics(const std::string& output) {
  std::vector<std::string> found;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find(": ");
    if (line.rfind("quench: ", 0) == 0 || at == std::string::npos) continue;
    const std::string position = line.substr(0, at);
    const auto colon = position.find_last_of(':');
    const auto before = colon == std::string::npos ? colon : position.find_last_of(':', colon - 1);
    const auto digits = [&](std::size_t from, std::size_t to) {
      return to > from && std::all_of(position.begin() + static_cast<long>(from),
                                      position.begin() + static_cast<long>(to),
                                      [](unsigned char ch) { return std::isdigit(ch); });
    };
    if (before != std::string::npos && digits(before + 1, colon) &&
        digits(colon + 1, position.size()))
      found.push_back(position.substr(position.find_last_of('/') + 1) +
                      line.substr(at, line.find("; the pipeline's plugin_paths") - at));
  }
  return found;
}

// validate finds every configuration error run finds (issue 36): every case whose command is
// `quench validate FILE` or `quench run FILE ...` runs both; when the run is refused as an
// invalid pipeline (exit 2), validate is refused too, with each of the run's diagnostics
// (file:line:col: message), and a pipeline validate accepts is never refused by run.
TEST_P(BadInput, ValidateFindsWhatRunFinds) {
  const Case& c = GetParam();
  const auto args = lines_of(c.dir / "args");
  ASSERT_TRUE(args) << c.dir << " has no args file";
  if (args->size() < 2 || ((*args)[0] != "validate" && (*args)[0] != "run")) GTEST_SKIP();
  const fs::path work = root_ / "case";
  fs::copy(c.dir, work, fs::copy_options::recursive);
  std::string pipeline = (*args)[1];
  replace_all(pipeline, "@CASE@", fs::absolute(work).string());
  replace_all(pipeline, "@DATA@", QUENCH_TEST_DATA);
  const Outcome validated = run_quench({"validate", pipeline}, work, root_);
  const Outcome ran = run_quench(
      {"run", pipeline, "--out", (root_ / "out").string(), "--no-progress"}, work, root_);
  ASSERT_EQ(validated.signal, 0) << validated.output;
  ASSERT_EQ(ran.signal, 0) << ran.output;
  if (validated.exit_code == 0) {
    EXPECT_NE(ran.exit_code, 2) << "validate accepted what run refused:\n" << ran.output;
  }
  if (ran.exit_code != 2) return;
  EXPECT_EQ(validated.exit_code, 2) << "run:\n" << ran.output << "validate:\n" << validated.output;
  const std::vector<std::string> found = diagnostics(validated.output);
  for (const std::string& d : diagnostics(ran.output))
    EXPECT_NE(std::find(found.begin(), found.end(), d), found.end())
        << "run's diagnostic \"" << d << "\" is not among validate's:\n"
        << validated.output;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, ::testing::ValuesIn(all_cases()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BadInput);

}  // namespace
