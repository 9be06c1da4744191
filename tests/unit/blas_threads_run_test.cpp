// A pipeline run applies the BLAS thread policy unless the host asks for a count: the run's
// provenance records the count used and why, and the backend's count is restored afterwards.
#include <gtest/gtest.h>

#include "quench/blas_thread_policy.h"
#include "quench/parallel.h"
#include "quench/pipeline.h"
#include "quench/provenance.h"
#include "quench/registry.h"

namespace quench::blas_threads_run_test {
namespace {

// Boston: 506 training rows, fewer than the policy's threshold.
const char* const kPipeline = R"(name: blas_threads
seed: 1
data: {file: boston.csv, target: y, standardize_target: true}
components:
  kernel: {plugin: gaussian, l2: 73.54, scaling: sqrt_variance}
  likelihood: {plugin: gaussian, noise: 0.01}
engines:
  - {name: gp, plugin: exact_gp_regression}
)";

Provenance run_with(int requested) {
  const auto pipeline = Pipeline::from_string(kPipeline, "blas_threads", QUENCH_TEST_DATA);
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  RunOptions options;
  options.blas_threads = requested;
  options.report = false;
  Provenance provenance;
  const auto runs = pipeline.run(registry, options, provenance);
  EXPECT_EQ(runs.at(0).status.code, RunStatus::ok) << runs.at(0).status.message;
  return provenance;
}

TEST(BlasThreadsRun, ThePolicyChoosesOneThreadForAFewHundredRows) {
  static_assert(kMultithreadedBlasRows > 506);
  const ScopedBlasThreads backend(2);
  const Provenance p = run_with(0);
  EXPECT_EQ(p.blas_threads, 1);
  EXPECT_EQ(p.blas_threads_reason,
            "policy: 506 training rows < " + std::to_string(kMultithreadedBlasRows));
  EXPECT_EQ(blas_threads(), 2);  // restored
}

TEST(BlasThreadsRun, AnExplicitCountWinsOverThePolicy) {
  const ScopedBlasThreads backend(1);
  const Provenance p = run_with(2);
  EXPECT_EQ(p.blas_threads, 2);
  EXPECT_EQ(p.blas_threads_reason, "override");
  EXPECT_EQ(blas_threads(), 1);  // restored
}

}  // namespace
}  // namespace quench::blas_threads_run_test
