// End-to-end: `quench run` stopped by SIGINT or SIGTERM exits 130 / 143 with one line, writes
// nothing and leaves the previous report and no staging directory; stopped after its report
// is in place, it keeps the report and says so; a finished run's results.json holds the
// provenance, whose data SHA-256 matches sha256sum's.
// The run gets a pseudo-terminal (forkpty) as a user's would, so its progress bar shows that
// the draws have started before the signal is sent. No shell anywhere.
#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/process.hpp>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

const std::string kBoston = std::string(QUENCH_TEST_DATA) + "/boston.csv";

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A pipeline whose draws take far longer than any test: it is always stopped mid-way.
std::string long_pipeline(int samples) {
  return "name: long\nseed: 1\ndata: {file: " + kBoston +
         ", target: y, standardize_target: true}\n"
         "components:\n"
         "  kernel: {plugin: gaussian, l2: 73.54, scaling: sqrt_variance}\n"
         "  likelihood: {plugin: gaussian, noise: 0.01}\n"
         "  resampler: {plugin: poisson_bootstrap, ratio: 1}\n"
         "engines:\n"
         "  - {name: mc, plugin: mc_bootstrap, samples: " +
         std::to_string(samples) + ", inner: exact_gp_regression}\n";
}

struct Finished {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr (one terminal)
};

class Interrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("QUENCH_PLUGIN_PATH");
    std::string pattern = (fs::temp_directory_path() / "quench-interrupt-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    out_ = root_ / "out";
    // The previous report, which an interrupted run must leave as it is.
    fs::create_directories(out_ / "tables");
    std::ofstream(out_ / "results.json") << R"({"schema": "quench.results/1", "runs": []})";
    std::ofstream(out_ / "tables" / "scalars.csv") << "engine,status\n";
    std::ofstream(root_ / "long.yaml") << long_pipeline(1000000);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  // Runs quench on a pseudo-terminal, sends `signal` once the progress bar shows, and
  // collects everything it printed until it exits.
  Finished run_and_signal(int signal) const {
    const std::string pipeline = (root_ / "long.yaml").string(), out = out_.string();
    std::vector<const char*> argv{QUENCH_CLI,  "run", pipeline.c_str(), "--out", out.c_str(),
                                  "--threads", "2",   nullptr};
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
      ::execv(QUENCH_CLI, const_cast<char* const*>(argv.data()));
      ::_exit(127);
    }
    Finished result;
    if (pid < 0) return result;
    bool signalled = false;
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(master, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EIO: the child closed the terminal (it exited)
      result.output.append(buffer, static_cast<std::size_t>(n));
      if (!signalled && result.output.find("%") != std::string::npos) {
        ::kill(pid, signal);
        signalled = true;
      }
    }
    ::close(master);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    EXPECT_TRUE(signalled) << "no progress shown: " << result.output;
    return result;
  }

  void expect_nothing_written(const std::string& before_json) const {
    EXPECT_EQ(read(out_ / "results.json"), before_json);
    EXPECT_EQ(read(out_ / "tables" / "scalars.csv"), "engine,status\n");
    for (const auto& e : fs::directory_iterator(root_))  // no staging directory left
      EXPECT_EQ(e.path().filename().string().find(".quench-staging-"), std::string::npos);
  }

  fs::path root_, out_;
};

TEST_F(Interrupt, SigintStopsTheDrawsExits130AndWritesNothing) {
  const std::string before = read(out_ / "results.json");
  const Finished f = run_and_signal(SIGINT);
  EXPECT_EQ(f.exit_code, 130) << f.output;
  EXPECT_NE(f.output.find("quench: interrupted by SIGINT; nothing written"), std::string::npos)
      << f.output;
  expect_nothing_written(before);
}

TEST_F(Interrupt, SigtermStopsTheDrawsExits143AndWritesNothing) {
  const std::string before = read(out_ / "results.json");
  const Finished f = run_and_signal(SIGTERM);
  EXPECT_EQ(f.exit_code, 143) << f.output;
  EXPECT_NE(f.output.find("quench: interrupted by SIGTERM; nothing written"), std::string::npos)
      << f.output;
  expect_nothing_written(before);
}

// A stop that arrives while the report is being written — sent here by the plotting program,
// which runs after the tables, as Ctrl-C would reach it — discards the report in progress:
// the previous report stays as it was.
TEST_F(Interrupt, SigintWhileTheReportIsWrittenDiscardsItAndExits130) {
  std::string pipeline = long_pipeline(4);
  pipeline.replace(pipeline.find("ratio: 1}"), 9, "ratio: [0.5, 1]}");  // a learning curve
  std::ofstream(root_ / "short.yaml") << pipeline;
  const fs::path bin = root_ / "bin", signalled = root_ / "signalled";
  fs::create_directory(bin);
  std::ofstream(bin / "gnuplot") << "#!/bin/sh\n"
                                 << "[ -e '" << signalled.string() << "' ] && exit 1\n"
                                 << ": > '" << signalled.string() << "'\n"
                                 << "kill -INT \"$PPID\"\n"
                                 << "exit 1\n";
  fs::permissions(bin / "gnuplot", fs::perms::owner_all);
  const std::string before = read(out_ / "results.json");
  namespace bp = boost::process;
  auto env = boost::this_process::environment();
  env["PATH"] = bin.string() + ":" + env["PATH"].to_string();
  const fs::path errors = root_ / "stderr";
  const int code = bp::system(QUENCH_CLI, "run", (root_ / "short.yaml").string(), "--out",
                              out_.string(), "--threads", "1", "--no-progress", env,
                              bp::std_out > bp::null, bp::std_err > errors.string());
  const std::string err = read(errors);
  ASSERT_TRUE(fs::exists(signalled)) << "gnuplot never ran: " << err;
  EXPECT_EQ(code, 130) << err;
  EXPECT_EQ(err, "quench: interrupted by SIGINT; nothing written\n");
  expect_nothing_written(before);
}

// A stop that arrives once the report is swapped into place, while quench prints what it
// wrote: here its stdout is a full pipe, so it is held right there until the signal is sent.
// The report is kept and whole, quench says so and exits 130 (it used to exit 0, silent).
TEST_F(Interrupt, SigintAfterTheReportIsInPlaceKeepsItSaysSoAndExits130) {
  std::ofstream(root_ / "short.yaml") << long_pipeline(4);
  const std::string before = read(out_ / "results.json");
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  ASSERT_GT(::fcntl(out[1], F_SETPIPE_SZ, 4096), 0);
  ASSERT_EQ(::fcntl(out[1], F_SETFL, O_NONBLOCK), 0);
  const std::string page(4096, 'x');
  while (::write(out[1], page.data(), page.size()) > 0) {
  }
  ASSERT_EQ(errno, EAGAIN);  // full: the first byte quench prints blocks it
  ASSERT_EQ(::fcntl(out[1], F_SETFL, 0), 0);
  const std::string pipeline = (root_ / "short.yaml").string(), dir = out_.string(),
                    errors = (root_ / "stderr").string();
  std::vector<const char*> argv{QUENCH_CLI,  "run", pipeline.c_str(), "--out", dir.c_str(),
                                "--threads", "1",   "--no-progress",  nullptr};
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int err = ::open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::close(out[0]);
    ::execv(QUENCH_CLI, const_cast<char* const*>(argv.data()));
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  ::close(out[1]);
  // The new report replaces the previous one in a single rename.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (read(out_ / "results.json") == before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(pid, SIGINT);
  std::string printed;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: quench exited
    printed.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << read(errors);
  EXPECT_EQ(read(errors),
            "quench: interrupted by SIGINT after the report was written; kept " + dir + "\n");
  EXPECT_NE(printed.find("results: " + dir + "/results.json"), std::string::npos) << printed;
  const auto doc = nlohmann::json::parse(read(out_ / "results.json"));
  EXPECT_EQ(doc.at("runs").size(), 1u);
  EXPECT_TRUE(fs::exists(out_ / "tables" / "scalars.csv"));
  for (const auto& e : fs::directory_iterator(root_))
    EXPECT_EQ(e.path().filename().string().find(".quench-staging-"), std::string::npos);
}

// Learning ignored SIGINT and SIGTERM until it ended (116 s on a 4-class fit; a doctorvisits
// fit ran on for an hour): a Student-t fit whose evidence learning takes minutes, stopped 2 s
// in, exits 130 within seconds and writes nothing.
TEST_F(Interrupt, SigintStopsLearning) {
  std::ofstream(root_ / "learn.yaml")
      << "name: learn\nseed: 1\ndata: {file: " << QUENCH_TEST_DATA
      << "/boston_outliers.csv, target: y_outliers, inputs: [crim, zn, indus, chas, nox, rm, "
         "age, dis, rad, tax, ptratio, black, lstat], split: {rule: column, column: train}, "
         "standardize_inputs: true, center_target: true}\n"
         "components:\n"
         "  kernel: {plugin: gaussian, amplitude: 50.0}\n"
         "  likelihood: {plugin: student_t, dof: 4, scale: 3.0}\n"
         "learn: {objective: evidence, engine: ep, parameters: [kernel.length_scales, "
         "kernel.amplitude, likelihood.scale], restarts: 4}\n"
         "engines:\n  - {name: ep, plugin: ep}\n";
  const std::string before = read(out_ / "results.json");
  namespace bp = boost::process;
  const fs::path errors = root_ / "stderr";
  bp::child run(QUENCH_CLI, "run", (root_ / "learn.yaml").string(), "--out", out_.string(),
                "--threads", "1", "--no-progress", bp::std_out > bp::null,
                bp::std_err > errors.string());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_TRUE(run.running()) << read(errors);
  ::kill(run.id(), SIGINT);
  const auto signalled = std::chrono::steady_clock::now();
  if (!run.wait_for(std::chrono::seconds(60))) {
    run.terminate();
    FAIL() << "learning went on for 60 s after SIGINT";
  }
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(20));
  EXPECT_EQ(run.exit_code(), 130) << read(errors);
  EXPECT_EQ(read(errors), "quench: interrupted by SIGINT; nothing written\n");
  expect_nothing_written(before);
}

TEST_F(Interrupt, AFinishedRunRecordsItsProvenance) {
  std::ofstream(root_ / "short.yaml") << long_pipeline(4);
  namespace bp = boost::process;
  bp::ipstream quench_out, digest_out;
  const int code = bp::system(QUENCH_CLI, "run", (root_ / "short.yaml").string(), "--out",
                              out_.string(), "--threads", "1", "--no-progress",
                              bp::std_out > quench_out, bp::std_err > bp::null);
  ASSERT_EQ(code, 0);
  bp::system(bp::search_path("sha256sum"), kBoston, bp::std_out > digest_out);
  std::string digest;
  digest_out >> digest;
  ASSERT_EQ(digest.size(), 64u);

  const auto doc = nlohmann::json::parse(read(out_ / "results.json"));
  const auto& p = doc.at("provenance");
  EXPECT_EQ(p.at("data").at("files")[0].at("sha256"), digest);
  EXPECT_EQ(p.at("data").at("files")[0].at("path"), kBoston);
  EXPECT_EQ(p.at("data").at("train_rows"), 506);
  EXPECT_EQ(p.at("data").at("inputs").size(), 13u);
  EXPECT_EQ(p.at("data").at("target"), "y");
  EXPECT_EQ(p.at("seed"), 1);
  EXPECT_EQ(p.at("threads"), 1);
  // 506 rows: the BLAS thread policy's single thread (quench/blas_thread_policy.h).
  EXPECT_EQ(p.at("blas_threads"), 1);
  EXPECT_EQ(p.at("blas_threads_reason").get<std::string>().rfind("policy: 506 training rows < ", 0),
            0u);
  EXPECT_EQ(p.at("command_line")[1], "run");
  EXPECT_EQ(p.at("command_line").back(), "--no-progress");
  EXPECT_LE(p.at("started").get<std::string>(), p.at("finished").get<std::string>());
  EXPECT_EQ(p.at("quench_version"), QUENCH_VERSION);
  // Every plugin, with its defaults: the mc engine's epsilon and the inner engine it names.
  std::map<std::string, nlohmann::json> by_role;
  for (const auto& plugin : p.at("plugins")) by_role[plugin.at("role")] = plugin;
  ASSERT_TRUE(by_role.count("mc") && by_role.count("mc.inner") && by_role.count("kernel"));
  EXPECT_EQ(by_role["mc"].at("parameters").at("samples"), 4);
  EXPECT_TRUE(by_role["mc"].at("parameters").contains("epsilon"));
  EXPECT_EQ(by_role["mc.inner"].at("plugin"), "exact_gp_regression");
  EXPECT_EQ(by_role["kernel"].at("parameters").at("l2"), 73.54);
  EXPECT_NE(by_role["kernel"].at("library_path").get<std::string>().find(".so"), std::string::npos);
  EXPECT_FALSE(by_role["kernel"].at("library_version").get<std::string>().empty());
}

TEST_F(Interrupt, AnExplicitBlasThreadCountWinsOverThePolicy) {
  std::ofstream(root_ / "short.yaml") << long_pipeline(4);
  namespace bp = boost::process;
  const int code = bp::system(QUENCH_CLI, "run", (root_ / "short.yaml").string(), "--out",
                              out_.string(), "--blas-threads", "2", "--no-progress",
                              bp::std_out > bp::null, bp::std_err > bp::null);
  ASSERT_EQ(code, 0);
  const auto p = nlohmann::json::parse(read(out_ / "results.json")).at("provenance");
  EXPECT_EQ(p.at("blas_threads"), 2);
  EXPECT_EQ(p.at("blas_threads_reason"), "override");
}

}  // namespace
