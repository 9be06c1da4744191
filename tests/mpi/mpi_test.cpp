// quench under mpirun (docs/distributed.md), end to end: the real binary under
// `mpirun --oversubscribe -np 3` against one process, for each engine whose units are
// distributed; a unit that throws or a rank that dies; ranks with different plugins.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_program.h"

namespace {

namespace fs = std::filesystem;
using quench_test::ProgramOutcome;

class MpiRun : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("QUENCH_PLUGIN_PATH");
    // OpenMPI refuses to start as root unless told (CI containers run as root).
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    // More ranks than cores (3 or 4 on CI's 2): a rank waiting for a message yields its core
    // instead of polling (OpenMPI's busy wait otherwise starves the rank that computes).
    ::setenv("OMPI_MCA_mpi_yield_when_idle", "1", 1);
    std::string pattern = (fs::temp_directory_path() / "quench-mpi-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << pattern;
    root_ = pattern;
    fs::create_directory(root_ / "logs");
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  // BLAS threads outside the units: fixed, since mpirun's binding of ranks to cores would
  // change OpenBLAS's default (docs/distributed.md).
  /// `quench args...` in one process.
  ProgramOutcome quench(const std::vector<std::string>& args) const {
    return quench_test::run_program(QUENCH_CLI, args, root_, root_ / "logs", 300);
  }
  /// `mpirun --oversubscribe -np ranks quench args...`.
  ProgramOutcome mpirun(int ranks, const std::vector<std::string>& args) const {
    std::vector<std::string> all{"--oversubscribe", "-np", std::to_string(ranks), QUENCH_CLI};
    all.insert(all.end(), args.begin(), args.end());
    return quench_test::run_program(QUENCH_MPIEXEC, all, root_, root_ / "logs", 300);
  }
  static std::string pipeline(const std::string& name) {
    return (fs::path(QUENCH_MPI_PIPELINES) / (name + ".yaml")).string();
  }

  fs::path root_;
};

// results.json without what describes the execution rather than the result: timings, when and
// how it was started, threads and processes.
nlohmann::json result_of(const fs::path& out) {
  std::ifstream in(out / "results.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  for (auto& run : doc["runs"]) run.erase("timings");
  for (const char* key : {"command_line", "started", "finished", "threads", "processes"})
    doc["provenance"].erase(key);
  return doc;
}

// The paths where two results differ (JSON patch), empty when they are equal.
std::string differences(const nlohmann::json& a, const nlohmann::json& b) {
  const nlohmann::json patch = nlohmann::json::diff(a, b);
  std::string paths;
  for (const auto& op : patch) paths += op["path"].get<std::string>() + " ";
  return paths;
}

int processes_of(const fs::path& out) {
  std::ifstream in(out / "results.json");
  return nlohmann::json::parse(in)["provenance"]["processes"].get<int>();
}

// Bitwise the same numbers (JSON keeps 17 significant digits: equal text is equal doubles)
// for one process with 2 threads and 3 ranks x 1 thread: mc_bootstrap (two sweep points: the
// runs are the units; with models kept: the samples are), WBB draws (blocks of 32), VBoot RFF
// particles (per class and block), exact LOO folds, and the multi-class joint model's retrains
// (exact LOO folds and bootstrap samples of multiclass_ep on glass), and retrains with a
// composite kernel (a sum holding a product, on named columns).
TEST_F(MpiRun, ThreeRanksGiveTheResultsOfOneProcess) {
  for (const char* name : {"mc_bootstrap", "mc_bootstrap_models", "wbb", "vboot_rff", "exact_loo",
                           "multiclass", "composite_kernel"}) {
    SCOPED_TRACE(name);
    const fs::path one = root_ / (std::string(name) + "_1"),
                   three = root_ / (std::string(name) + "_3");
    const auto a = quench({"run", pipeline(name), "--out", one.string(), "--threads", "2",
                           "--blas-threads", "2", "--no-progress"});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    const auto b = mpirun(3, {"run", pipeline(name), "--out", three.string(), "--threads", "1",
                              "--blas-threads", "2", "--no-progress"});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(processes_of(three), 3);
    EXPECT_EQ(fs::exists(three / "models"), std::string(name) == "mc_bootstrap_models");
    EXPECT_EQ(differences(result_of(one), result_of(three)), "");
  }
}

// One rank under mpirun is the single process, and 2 or 4 ranks x 2 threads too.
TEST_F(MpiRun, OneTwoAndFourRanksGiveTheResultsOfOneProcess) {
  const auto a = quench({"run", pipeline("mc_bootstrap"), "--out", (root_ / "plain").string(),
                         "--threads", "1", "--blas-threads", "2", "--no-progress"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  for (int ranks : {1, 2, 4}) {
    const fs::path out = root_ / ("ranks" + std::to_string(ranks));
    // 2 ranks with static shares instead of blocks on request: the same results.
    const auto b = mpirun(ranks, {"run", pipeline("mc_bootstrap"), "--out", out.string(),
                                  "--threads", "2", "--blas-threads", "2", "--no-progress",
                                  "--schedule", ranks == 2 ? "static" : "dynamic"});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(processes_of(out), ranks);
    EXPECT_EQ(differences(result_of(root_ / "plain"), result_of(out)), "") << ranks << " ranks";
  }
}

// A pipeline of the fixture engine whose unit 5 fails by `mode`.
std::string faulty_pipeline(const fs::path& dir, const std::string& mode) {
  const fs::path file = dir / ("faulty_" + mode + ".yaml");
  std::ofstream(file) << "name: faulty\nseed: 1\ndata: {file: " << QUENCH_TEST_DATA
                      << "/boston.csv, target: y}\nengines:\n  - {name: faulty, plugin: "
                         "faulty_units, units: 12, fail_unit: 5, mode: "
                      << mode << "}\n";
  return file.string();
}

// A unit that throws on whichever rank runs it ends the run on every rank with the rank and the
// unit named, a non-zero exit, and nothing written.
TEST_F(MpiRun, UnitThatThrowsEndsTheRunOnEveryRankAndWritesNothing) {
  const fs::path out = root_ / "out";
  const auto r = mpirun(3, {"run", faulty_pipeline(root_, "throw"), "--out", out.string(),
                            "--plugin-path", QUENCH_MPI_FIXTURES, "--no-progress"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("unit 5 of 12 failed on rank "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fixture unit 5 exploded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // The same pipeline without the failure runs (the fixture is sound otherwise).
  const auto ok = mpirun(3, {"run", faulty_pipeline(root_, "none"), "--out", out.string(),
                             "--plugin-path", QUENCH_MPI_FIXTURES, "--no-progress"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  std::ifstream in(out / "results.json");
  EXPECT_EQ(nlohmann::json::parse(in)["runs"][0]["scalars"]["sum"].get<double>(), 66.0);
}

// A rank that dies (SIGABRT in a unit) ends the whole job: mpirun exits non-zero, the dying
// rank names the units it was running, and no report is written.
TEST_F(MpiRun, RankThatDiesEndsTheJobAndWritesNothing) {
  const fs::path out = root_ / "out";
  const auto r = mpirun(3, {"run", faulty_pipeline(root_, "abort"), "--out", out.string(),
                            "--plugin-path", QUENCH_MPI_FIXTURES, "--no-progress"});
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("died of signal 6 while running units "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// Ranks that load different plugins are refused before any work, the differing rank named.
TEST_F(MpiRun, RanksWithDifferentPluginsAreRefusedBeforeAnyWork) {
  const fs::path out = root_ / "out";
  // MPMD: ranks 0 and 1 load the fixture library as well, rank 2 does not.
  const std::vector<std::string> run{"run", pipeline("mc_bootstrap"), "--out", out.string(),
                                     "--no-progress"};
  std::vector<std::string> args{"--oversubscribe", "-np",           "2",
                                QUENCH_CLI,        "--plugin-path", QUENCH_MPI_FIXTURES};
  args.insert(args.end(), run.begin(), run.end());
  args.insert(args.end(), {":", "-np", "1", QUENCH_CLI});
  args.insert(args.end(), run.begin(), run.end());
  const auto r = quench_test::run_program(QUENCH_MPIEXEC, args, root_, root_ / "logs", 300);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("rank 2 of 3 has another build than rank 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("faulty_units"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
