// End-to-end tests of the quench command line. Each test runs the real binary (QUENCH_CLI)
// with a fresh temporary directory as its working directory and checks the exit code, the
// messages on stdout and stderr and the files written. The binary finds the build's plugins
// next to its framework library; QUENCH_PLUGIN_PATH is cleared so the environment cannot
// add others.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

// Exact GP regression with a Gaussian kernel and likelihood on the data of `data` (the
// mapping after "data: ").
std::string exact_gp_pipeline(const std::string& data) {
  return "data: " + data +
         "\n"
         "components:\n"
         "  kernel: {plugin: gaussian}\n"
         "  likelihood: {plugin: gaussian, noise: 0.1}\n"
         "engines: [exact_gp_regression]\n";
}

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
    const auto r = quench_test::run_program(QUENCH_CLI, args, work_, root_);
    return {r.exit_code, r.out, r.err};
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
  write_file(work_ / "ok.yaml", exact_gp_pipeline("{file: '" + kBoston + "'}"));
  const Outcome r = quench({"validate", "ok.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok.yaml: valid\n");
  EXPECT_EQ(r.err, "");
}

// An alias naming a node that contains it made validate and run die of SIGSEGV (exit 139);
// nesting far beyond yaml-cpp's depth guard is one error too. Both exit 2 before any work.
TEST_F(Cli, RecursiveAliasesAndDeepNestingAreErrorsNotCrashes) {
  const std::string rest =
      "components:\n  kernel: {plugin: gaussian}\n"
      "  likelihood: {plugin: gaussian, noise: 0.1}\n"
      "engines: [exact_gp_regression]\n";
  write_file(work_ / "list.yaml", "data: {file: '" + kBoston + "'}\na: &x [1, *x]\n" + rest);
  write_file(work_ / "mapping.yaml", "data: &d {file: x.csv, extra: *d}\n" + rest);
  write_file(work_ / "deep.yaml", "data: " + std::string(100000, '[') + "\n" + rest);
  const std::string list_error =
      "list.yaml:2:11: alias '*x' refers to the list that contains it (anchored at line 2, "
      "column 4): a recursive structure cannot be a pipeline\n";
  const std::string mapping_error =
      "mapping.yaml:1:31: alias '*d' refers to the mapping that contains it (anchored at line 1, "
      "column 7): a recursive structure cannot be a pipeline\n";
  for (const std::string command : {"validate", "run"}) {
    SCOPED_TRACE(command);
    const auto args = [&](const std::string& file) {
      return command == "run" ? std::vector<std::string>{"run", file, "--out", "out"}
                              : std::vector<std::string>{"validate", file};
    };
    const Outcome list = quench(args("list.yaml"));
    EXPECT_EQ(list.exit_code, 2);
    EXPECT_EQ(list.err, list_error);
    const Outcome mapping = quench(args("mapping.yaml"));
    EXPECT_EQ(mapping.exit_code, 2);
    EXPECT_EQ(mapping.err, mapping_error);
    const Outcome deep = quench(args("deep.yaml"));
    EXPECT_EQ(deep.exit_code, 2);
    EXPECT_NE(deep.err.find("deep.yaml:"), std::string::npos) << deep.err;
    EXPECT_NE(deep.err.find(": YAML nested too deeply"), std::string::npos) << deep.err;
    EXPECT_FALSE(fs::exists(work_ / "out"));
  }
}

// Aliases reused and merge keys are ordinary YAML: the merged engine gets the base's plugin and
// parameters, its own keys winning.
TEST_F(Cli, MergeKeysAndReusedAliasesValidate) {
  write_file(work_ / "merge.yaml", "data: {file: '" + kBoston + "', target: y}\n" +
                                       "components:\n"
                                       "  kernel: {plugin: gaussian}\n"
                                       "  likelihood: {plugin: gaussian, noise: 0.1}\n"
                                       "engines:\n"
                                       "  - &gp {name: gp, plugin: exact_gp_regression}\n"
                                       "  - {<<: *gp, name: gp2, predictive_variance: false}\n");
  const Outcome r = quench({"validate", "merge.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "merge.yaml: valid\n");
}

// `learn:` runs once before the engines (200 Boston rows: the ARD search stays well inside the
// subprocess time limit under the sanitizers); every run records the learned values, and the
// engines use them: exact GP regression's own log marginal likelihood (computed by the engine,
// not by the objective) equals the learned log evidence, at every sweep point.
TEST_F(Cli, RunLearnsHyperparametersOnceAndEveryEngineUsesThem) {
  write_file(work_ / "learn.yaml", R"(name: cli_learn
seed: 3
data:
  file: ')" + kBoston + R"('
  target: y
  split: {rule: first_train, count: 200}
  standardize_inputs: true
  standardize_target: true
components:
  kernel: {plugin: gaussian}
  likelihood: {plugin: gaussian, noise: 0.1}
  resampler: {plugin: poisson_bootstrap, ratio: [0.5, 1]}
learn:
  parameters: [kernel.length_scales, kernel.amplitude, likelihood.noise]
engines:
  - {name: exact, plugin: exact_gp_regression}
  - {name: adatap, plugin: adatap_bootstrap, density: false}
outputs: {plots: false}
)");
  const Outcome r = quench({"run", "learn.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_containing(r.err, "learned hyperparameters by evidence").size(), 1u) << r.err;
  const json doc = json::parse(read_file(work_ / "out" / "results.json"));
  const json& runs = doc.at("runs");
  ASSERT_EQ(runs.size(), 4u);
  const json& first = runs[0].at("learning");
  EXPECT_EQ(first.at("objective"), "evidence");
  EXPECT_EQ(first.at("engine"), "exact");
  EXPECT_EQ(first.at("status").at("code"), "ok") << first.dump();
  const double log_evidence = first.at("log_evidence");
  EXPECT_GT(log_evidence, first.at("start_log_evidence").get<double>());
  EXPECT_LT(first.at("gradient_norm").get<double>(), 1e-3);
  for (const json& run : runs) {
    SCOPED_TRACE(run.at("engine").get<std::string>());
    EXPECT_EQ(run.at("learning"), first);
    const json& h = run.at("hyperparameters");
    ASSERT_EQ(h.at("kernel.length_scales").size(), 13u);
    EXPECT_TRUE(h.at("kernel.amplitude").is_number());
    EXPECT_TRUE(h.at("likelihood.noise").is_number());
    if (run.at("engine") == "exact") {
      const double engine_value = run.at("scalars").at("log_marginal_likelihood");
      EXPECT_NEAR(engine_value, log_evidence, 1e-10 * std::fabs(log_evidence));
    }
  }
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

// A data error names the file, the row (the header is row 1) and the column; `run` validates
// first, so it is a diagnostic at the key naming the file, exit code 2.
TEST_F(Cli, NonNumericCsvFieldNamesFileRowAndColumn) {
  write_file(work_ / "bad.csv", "x1,x2,y\n1.0,2.0,3.0\n0.5,abc,1.0\n2.0,1.5,0.5\n");
  write_file(work_ / "bad.yaml", exact_gp_pipeline("{file: bad.csv, target: y}"));
  const Outcome r = quench({"run", "bad.yaml", "--out", "out", "--no-progress"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "bad.yaml:1:8: bad.csv: row 3, column 'x2': expected a number, got 'abc'\n");
  EXPECT_FALSE(fs::exists(work_ / "out" / "results.json"));
}

// `inducing:` problems: more inducing inputs than training rows (found once the data is read)
// and, at the engine, an engine on the exact prior beside the block; all at once, exit 2,
// nothing run.
TEST_F(Cli, InducingCountAboveTheRowsAndExactEnginesAreRefused) {
  write_file(work_ / "d.csv", "x1,y\n1.0,0.5\n2.0,0.1\n3.0,0.2\n");
  write_file(work_ / "sparse.yaml",
             "data: {file: d.csv, target: y}\n"
             "inducing: {count: 5}\n"
             "components:\n"
             "  kernel: {plugin: gaussian}\n"
             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
             "engines: [sparse_gp_regression, exact_gp_regression]\n");
  const Outcome r = quench({"run", "sparse.yaml", "--out", "out", "--no-progress"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "sparse.yaml:2:1: inducing.count 5 exceeds the 3 training rows; with M >= N the "
            "exact engines are cheaper (drop 'inducing') or choose a count below N\n"
            "sparse.yaml:6:33: engine 'exact_gp_regression' (exact_gp_regression) runs on the "
            "exact prior only, but the pipeline sets 'inducing' (line 2); use an engine that "
            "takes inducing points (quench plugins) or drop 'inducing'\n");
  write_file(work_ / "sparse.yaml",
             "data: {file: d.csv, target: y}\n"
             "inducing: {count: 5}\n"
             "components:\n"
             "  kernel: {plugin: gaussian}\n"
             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
             "engines: [sparse_gp_regression]\n");
  const Outcome v = quench({"run", "sparse.yaml", "--out", "out", "--no-progress"});
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_EQ(v.err,
            "sparse.yaml:2:1: inducing.count 5 exceeds the 3 training rows; with M >= N the "
            "exact engines are cheaper (drop 'inducing') or choose a count below N\n");
  EXPECT_FALSE(fs::exists(work_ / "out" / "results.json"));
}

// The classifier bootstrap on the inducing-point prior beside its Monte-Carlo reference (sparse
// EP retrained on Poisson samples of the same prior) and `ep` itself, end to end from the CLI:
// Sonar's 104 training rows, M = 40. Budget as the dense classifier's (adatap_classifier_test):
// 4.5 Monte-Carlo standard errors plus 0.02 in the bootstrap error (measured: 0.3350 against
// 0.3391 +- 0.0032).
TEST_F(Cli, SparseClassifierBootstrapBesideSparseEpRefits) {
  write_file(work_ / "sparse_cls.yaml",
             "data:\n  file: " + std::string(QUENCH_TEST_DATA) + "/sonar.csv\n" + R"(  target: y
  split: {rule: column, column: train}
  standardize_inputs: true
inducing: {count: 40}
components:
  kernel: {plugin: gaussian, width: 0.2, noise: 0.0}
  likelihood: {plugin: probit, noise: 0.1}
  resampler: {plugin: poisson_bootstrap, ratio: 1}
engines:
  - {name: adatap, plugin: adatap_bootstrap}
  - {name: monte_carlo, plugin: mc_bootstrap, inner: ep, samples: 400}
  - {name: ep, plugin: ep}
outputs: {plots: false}
)");
  const Outcome r = quench({"run", "sparse_cls.yaml", "--out", "out", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(read_file(work_ / "out" / "results.json"));
  const json& runs = doc.at("runs");
  ASSERT_EQ(runs.size(), 3u);
  for (const json& run : runs) EXPECT_EQ(run.at("status").at("code"), "ok") << run.dump();
  const json& adatap = runs[0].at("scalars");
  const json& mc = runs[1].at("scalars");
  EXPECT_EQ(adatap.at("inducing_count"), 40);
  const double se = mc.at("bootstrap_error_stderr");
  EXPECT_GT(se, 0);
  EXPECT_NEAR(adatap.at("bootstrap_error").get<double>(), mc.at("bootstrap_error").get<double>(),
              4.5 * se + 0.02);
  EXPECT_TRUE(runs[2].at("scalars").contains("loo_error"));
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
  EXPECT_EQ(junk[0], "  plugins/libjunk.so: not an ELF file (no ELF magic number)");
}

// A pipeline's plugin_paths run code when loaded: `validate` never loads them, `run` only
// with --allow-pipeline-plugins. Its plugin directory holds a truncated copy of a real plugin,
// refused (before dlopen) when loading is allowed and not looked at otherwise.
class CliPipelinePlugins : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    fs::create_directory(work_ / "plugins");
    const std::string plugin = read_file(QUENCH_CLI_PLUGIN);
    write_file(work_ / "plugins" / "libcut.so", plugin.substr(0, plugin.size() / 2));
    write_file(work_ / "p.yaml", "plugin_paths: [plugins]\ndata: {file: '" + kBoston + "'}\n" +
                                     "components:\n"
                                     "  kernel: {plugin: gaussian}\n"
                                     "  likelihood: {plugin: gaussian, noise: 0.1}\n"
                                     "engines: [exact_gp_regression]\n");
  }
  std::string ignored_warning(const char* how) const {
    return std::string(
               "quench: warning: p.yaml: plugin_paths (plugins) ignored: a pipeline's "
               "plugin libraries are not loaded ") +
           how + "\n";
  }
};

TEST_F(CliPipelinePlugins, ValidateIgnoresThemWithAWarning) {
  const Outcome r = quench({"validate", "p.yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "p.yaml: valid\n");
  EXPECT_EQ(r.err, ignored_warning("by `quench validate`; use --plugin-path"));
}

TEST_F(CliPipelinePlugins, UnknownPluginSaysThePathsWereNotSearched) {
  std::string text = read_file(work_ / "p.yaml");
  text.replace(text.find("{plugin: gaussian}"), 18, "{plugin: matern32}");
  write_file(work_ / "p.yaml", text);
  const Outcome r = quench({"run", "p.yaml", "--no-progress"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const auto lines = lines_containing(r.err, "unknown kernel plugin 'matern32'");
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("; the pipeline's plugin_paths (plugins) ignored: a pipeline's plugin "
                          "libraries are not loaded without "
                          "--allow-pipeline-plugins"),
            std::string::npos)
      << lines[0];
  EXPECT_FALSE(fs::exists(work_ / "results"));
}

TEST_F(CliPipelinePlugins, RunLoadsThemOnlyWithTheFlag) {
  const std::string refused =
      "quench: plugin refused: plugins/libcut.so: truncated: program header ";
  const Outcome without = quench({"run", "p.yaml", "--out", "a", "--no-progress"});
  EXPECT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(without.err.find(refused), std::string::npos) << without.err;
  EXPECT_NE(without.err.find(ignored_warning(
                "without --allow-pipeline-plugins; pass it only for a pipeline you trust, or "
                "use --plugin-path")),
            std::string::npos)
      << without.err;

  const Outcome with =
      quench({"run", "p.yaml", "--allow-pipeline-plugins", "--out", "b", "--no-progress"});
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.err.find(refused), std::string::npos) << with.err;
  EXPECT_EQ(with.err.find("ignored"), std::string::npos) << with.err;
  EXPECT_TRUE(fs::exists(work_ / "b" / "results.json"));
}

// Twelve rows of two inputs and a real target.
std::string small_regression_csv() {
  std::string csv = "x1,x2,y\n";
  for (int i = 0; i < 12; ++i)
    csv += std::to_string(0.1 * i) + "," + std::to_string(1.0 - 0.05 * i * i) + "," +
           std::to_string(0.3 * i - 1.0) + "\n";
  return csv;
}

// Engine failures become statuses: the other engines still run, results.json is written
// with the failure and its message, and the exit code is 3. The kernel's amplitude overflows
// the Gram matrix of the GP; the Bayesian LASSO uses no kernel.
TEST_F(Cli, EngineFailureAtRunTimeIsAFailedStatus) {
  write_file(work_ / "small.csv", small_regression_csv());
  write_file(work_ / "failing.yaml",
             "data: {file: small.csv, target: y}\n"
             "components:\n"
             "  kernel: {plugin: gaussian, l2: 1, amplitude: 1e308, bias: 1e308}\n"
             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
             "engines:\n"
             "  - {name: overflowing, plugin: exact_gp_regression}\n"
             "  - {name: lasso, plugin: bayesian_lasso_gibbs, draws: 50, burn_in: 10}\n");
  const Outcome r = quench({"run", "failing.yaml", "--out", "out", "--no-progress"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  ASSERT_TRUE(fs::is_regular_file(work_ / "out" / "results.json"));
  const json runs = json::parse(read_file(work_ / "out" / "results.json")).at("runs");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("engine"), "overflowing");
  EXPECT_EQ(runs[0].at("status").at("code"), "failed");
  EXPECT_NE(runs[0].at("status").at("message").get<std::string>().find("non-finite"),
            std::string::npos)
      << runs[0].at("status");
  EXPECT_EQ(runs[1].at("engine"), "lasso");
  EXPECT_EQ(runs[1].at("status").at("code"), "ok");
  EXPECT_EQ(lines_containing(r.out, "[failed]").size(), 1u) << r.out;
}

// What a run would refuse before numerics, validate refuses at the engine (issue 36):
// mc_bootstrap cannot retrain an mc_bootstrap (InferenceEngine::check); nothing is written.
TEST_F(Cli, AnInnerEngineThatCannotBeRetrainedIsRefusedByValidate) {
  write_file(work_ / "small.csv", small_regression_csv());
  write_file(work_ / "nested.yaml",
             "data: {file: small.csv, target: y}\n"
             "components:\n"
             "  kernel: {plugin: gaussian}\n"
             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
             "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
             "engines:\n"
             "  - {name: nested, plugin: mc_bootstrap, samples: 5, inner: mc_bootstrap}\n"
             "  - {name: exact, plugin: exact_gp_regression}\n");
  for (const char* command : {"validate", "run"}) {
    const Outcome r = command == std::string("run")
                          ? quench({"run", "nested.yaml", "--out", "out", "--no-progress"})
                          : quench({"validate", "nested.yaml"});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("nested.yaml:7:28: engine 'nested' (mc_bootstrap): engine "
                         "'mc_bootstrap' cannot be retrained on resampled data"),
              std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(fs::exists(work_ / "out"));
}

// A pipeline path or data file that is a FIFO (no writer: opening it would wait for one) or a
// device is refused at once with the reason, by validate and run alike.
TEST_F(Cli, InputsThatAreNotRegularFilesAreRefusedWithoutWaiting) {
  ASSERT_EQ(::mkfifo((work_ / "fifo.yaml").c_str(), 0600), 0);
  for (const char* command : {"validate", "run"}) {
    const Outcome r = quench({command, "fifo.yaml"});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("fifo.yaml: cannot read: not a regular file (a FIFO)"), std::string::npos)
        << r.err;
  }
  ASSERT_EQ(::mkfifo((work_ / "fifo.csv").c_str(), 0600), 0);
  write_file(work_ / "p.yaml",
             "data: {file: fifo.csv, target: y}\n"
             "components:\n"
             "  kernel: {plugin: gaussian}\n"
             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
             "engines: [exact_gp_regression]\n");
  const Outcome r = quench({"validate", "p.yaml"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot read: not a regular file (a FIFO)"), std::string::npos) << r.err;
}

// Refits on the inducing-point prior without test inputs: no BLAS call with a 0-row matrix
// (OpenBLAS printed "On entry to DGEMV parameter number 6 had an illegal value" per refit).
TEST_F(Cli, InducingRefitsWithoutTestInputsMakeNoInvalidBlasCall) {
  std::string csv = "x1,x2,y\n";
  for (int i = 0; i < 30; ++i)
    csv += std::to_string(0.1 * i) + "," + std::to_string(std::sin(0.7 * i)) + "," +
           std::to_string(std::cos(0.3 * i)) + "\n";
  write_file(work_ / "small.csv", csv);
  for (const char* form : {"fitc", "vfe", "sor"}) {
    write_file(work_ / "p.yaml", std::string("data: {file: small.csv, target: y}\n"
                                             "components:\n"
                                             "  kernel: {plugin: gaussian}\n"
                                             "  likelihood: {plugin: gaussian, noise: 0.1}\n"
                                             "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
                                             "inducing: {count: 5, form: ") +
                                     form +
                                     "}\n"
                                     "engines:\n"
                                     "  - {name: mc, plugin: mc_bootstrap, samples: 4,\n"
                                     "     inner: sparse_gp_regression}\n");
    const Outcome r =
        quench({"run", "p.yaml", "--out", std::string("out_") + form, "--no-progress"});
    EXPECT_EQ(r.exit_code, 0) << form << ": " << r.err;
    EXPECT_EQ(r.err.find("illegal value"), std::string::npos) << form << ": " << r.err;
    EXPECT_EQ(r.out.find("illegal value"), std::string::npos) << form << ": " << r.out;
  }
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
  // No scalar of the failed run reads like a result: every one is null (the finite ones too,
  // e.g. the training rows' square error), and NA in the table, never nan or -nan.
  ASSERT_FALSE(runs[0].at("scalars").empty());
  for (const auto& [name, value] : runs[0].at("scalars").items())
    EXPECT_TRUE(value.is_null()) << name << " = " << value;
  const std::string table = read_file(work_ / "out" / "tables" / "scalars.csv");
  const std::string row = table.substr(table.find('\n') + 1);
  EXPECT_EQ(row.rfind("exact_gp_regression,failed,NA", 0), 0u) << table;
  EXPECT_EQ(row.find("nan"), std::string::npos) << table;
  for (const auto& entry : fs::directory_iterator(work_ / "out" / "tables"))
    EXPECT_EQ(read_file(entry.path()).find("nan"), std::string::npos) << entry.path();
}

// A small regression problem for the Bayesian LASSO sampler whose first column header is
// gnuplot syntax that, pasted into a plot script, would run `touch PWNED` (issue 16).
void write_hostile_data(const fs::path& file) {
  std::string csv = "crim'; system 'touch PWNED'; print ',b,y\n";
  for (int i = 0; i < 30; ++i)
    csv += std::to_string(i % 7) + "," + std::to_string((i * 5) % 11) + "," +
           std::to_string(i % 7 + 0.5 * ((i * 5) % 11) + 0.1 * (i % 3)) + "\n";
  write_file(file, csv);
}

/// Every file named PWNED* below `dir`.
std::vector<std::string> pwned_files(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.path().filename().string().rfind("PWNED", 0) == 0)
      found.push_back(entry.path().string());
  return found;
}

// gnuplot is started without a shell and user strings enter its scripts escaped: a hostile
// column header (in the posterior plot's panel titles) and an --out directory full of quotes
// run nothing, and the plots are still drawn.
TEST_F(Cli, HostileHeaderAndOutDirRunNothingAndPlotsAppear) {
  write_hostile_data(work_ / "d.csv");
  write_file(work_ / "p.yaml", R"(name: hostile
seed: 3
data: {file: d.csv, target: y}
engines:
  - {name: blasso, plugin: bayesian_lasso_gibbs, draws: 40, burn_in: 10, lambda: 1}
)");
  const std::string out = "x';touch PWNED;'";
  const Outcome r = quench({"run", "p.yaml", "--out", out, "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(pwned_files(root_), std::vector<std::string>{});
  if (r.err.find("gnuplot not found") != std::string::npos) GTEST_SKIP() << "no gnuplot";
  EXPECT_EQ(r.err.find("gnuplot failed"), std::string::npos) << r.err;
  const fs::path png = work_ / out / "plots" / "posterior_densities_p2.png";
  ASSERT_TRUE(fs::is_regular_file(png)) << r.out << r.err;
  EXPECT_EQ(read_file(png).substr(1, 3), "PNG");
  EXPECT_FALSE(lines_containing(r.out, "plot:    ").empty()) << r.out;
}

// gnuplot is looked up in PATH without a shell; one that fails or is missing leaves the run
// ok, with a warning saying why.
TEST_F(Cli, FailingOrMissingGnuplotIsAWarning) {
  write_hostile_data(work_ / "d.csv");
  write_file(work_ / "p.yaml", R"(data: {file: d.csv, target: y}
engines:
  - {name: blasso, plugin: bayesian_lasso_gibbs, draws: 20, burn_in: 5, lambda: 1}
)");
  fs::create_directory(root_ / "bin");
  fs::create_symlink("/bin/false", root_ / "bin" / "gnuplot");
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (root_ / "bin").c_str(), 1);
  const Outcome failing = quench({"run", "p.yaml", "--out", "a", "--no-progress"});
  fs::remove(root_ / "bin" / "gnuplot");
  const Outcome missing = quench({"run", "p.yaml", "--out", "b", "--no-progress"});
  ::setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(failing.exit_code, 0) << failing.err;
  EXPECT_EQ(failing.err,
            "quench: warning: gnuplot failed for a/plots/posterior_densities_p2.png: exit status "
            "not 0\n");
  EXPECT_EQ(missing.exit_code, 0) << missing.err;
  EXPECT_EQ(missing.err,
            "quench: warning: gnuplot not found: plots skipped (apt-get install gnuplot-nox)\n");
}

// Engine and pipeline names become file names: a quote, a newline or a slash in one is
// refused at its position before anything runs or is written.
TEST_F(Cli, UnsafeNamesAreRefusedBeforeAnythingRuns) {
  write_hostile_data(work_ / "d.csv");
  write_file(work_ / "p.yaml", R"(name: "it's\nx"
data: {file: d.csv, target: y}
engines:
  - {name: "b'; system 'touch PWNED'; '", plugin: bayesian_lasso_gibbs, draws: 40}
  - {name: ../../escape, plugin: bayesian_lasso_gibbs, draws: 40}
)");
  const Outcome r = quench({"run", "p.yaml", "--no-progress"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines_of(r.err),
            (std::vector<std::string>{
                "p.yaml:1:7: pipeline name 'it's\\nx' contains '''; names may only contain "
                "letters, digits, '_', '.' and '-'",
                "p.yaml:4:12: engine name 'b'; system 'touch PWNED'; '' contains '''; names may "
                "only contain letters, digits, '_', '.' and '-'",
                "p.yaml:5:12: engine name '../../escape' contains '/'; names may only contain "
                "letters, digits, '_', '.' and '-'",
            }));
  EXPECT_EQ(pwned_files(root_), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(work_ / "results"));
}

// `--out ""` wrote the report to the pipeline's default place and exited 0: an empty name is
// refused (exit 2) before anything runs.
TEST_F(Cli, EmptyOutIsRefused) {
  write_file(work_ / "ok.yaml", exact_gp_pipeline("{file: '" + kBoston + "'}"));
  const Outcome r = quench({"run", "ok.yaml", "--out", "", "--no-progress"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out: is empty"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(work_ / "results"));
}

// outputs.dir resolves against the pipeline's folder, like data.file; one leaving it is
// refused (--out is the way to write elsewhere).
TEST_F(Cli, OutputsDirResolvesAgainstThePipelinesFolderAndMayNotLeaveIt) {
  fs::create_directory(work_ / "sub");
  write_hostile_data(work_ / "sub" / "d.csv");
  const std::string body = R"(
data: {file: d.csv, target: y}
engines:
  - {name: blasso, plugin: bayesian_lasso_gibbs, draws: 20, burn_in: 5, lambda: 1}
outputs:
  plots: false
)";
  write_file(work_ / "sub" / "p.yaml", body + "  dir: here\n");
  Outcome r = quench({"run", "sub/p.yaml", "--no-progress"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(work_ / "sub" / "here" / "results.json"));
  EXPECT_FALSE(fs::exists(work_ / "here"));

  write_file(work_ / "sub" / "p.yaml", body + "  dir: ../up\n");
  r = quench({"run", "sub/p.yaml", "--no-progress"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "sub/p.yaml:7:8: 'outputs.dir' '../up' leaves the pipeline's folder; to write "
            "elsewhere, pass --out DIR to quench run\n");
  EXPECT_FALSE(fs::exists(work_ / "up"));

  write_file(work_ / "sub" / "p.yaml", body + "  dir: here\n");
  r = quench({"run", "sub/p.yaml", "--no-progress", "--out", "../elsewhere"});
  ASSERT_EQ(r.exit_code, 0) << r.err;  // the command line's choice is honoured as given
  EXPECT_TRUE(fs::is_regular_file(root_ / "elsewhere" / "results.json"));
}

// The loader never searches the working directory (no empty RUNPATH element): a library
// planted there is not loaded. The old build tree's `::::::` RUNPATH on libquench.so made
// this junk liblapacke.so.3 fail every command ("file too short", exit 127).
TEST_F(Cli, LibraryInTheWorkingDirectoryIsNotLoaded) {
  write_file(work_ / "liblapacke.so.3", "junk, not a library\n");
  write_file(work_ / "libquench.so.0", "junk, not a library\n");
  const Outcome r = quench({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

}  // namespace
