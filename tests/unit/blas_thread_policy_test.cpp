// The BLAS thread policy's decision (quench/blas_thread_policy.h): one thread below the
// threshold, the backend's count from it on, an explicit request always.
#include <gtest/gtest.h>

#include "quench/blas_thread_policy.h"
#include "quench/parallel.h"

namespace quench::blas_thread_policy_test {
namespace {

TEST(BlasThreadPolicy, OneThreadBelowTheThresholdTheBackendsCountFromIt) {
  const std::int64_t n = kMultithreadedBlasRows;
  EXPECT_EQ(choose_blas_threads(10, 0, 8, 8).threads, 1);
  EXPECT_EQ(choose_blas_threads(n - 1, 0, 8, 8).threads, 1);
  EXPECT_EQ(choose_blas_threads(n, 0, 8, 8).threads, 8);
  EXPECT_EQ(choose_blas_threads(20 * n, 0, 2, 8).threads, 2);
  EXPECT_EQ(choose_blas_threads(n, 0, 0, 8).threads, 1);  // a backend that reports none
  EXPECT_EQ(choose_blas_threads(n - 1, 0, 8, 8).reason,
            "policy: " + std::to_string(n - 1) + " training rows < " + std::to_string(n));
  EXPECT_EQ(choose_blas_threads(n, 0, 8, 8).reason,
            "policy: " + std::to_string(n) + " training rows >= " + std::to_string(n));
}

TEST(BlasThreadPolicy, AnExplicitRequestWinsAtAnySize) {
  for (const std::int64_t rows : {std::int64_t{10}, kMultithreadedBlasRows, std::int64_t{100000}})
    for (const int requested : {1, 2, 3}) {
      const BlasThreadChoice c = choose_blas_threads(rows, requested, 8, 8);
      EXPECT_EQ(c.threads, requested);
      EXPECT_EQ(c.reason, "override");
    }
}

// More threads than cores only wait (and under an address-space limit OpenBLAS cannot give
// each its buffer): an explicit count is capped at the cores, and the reason says so.
TEST(BlasThreadPolicy, AnExplicitRequestIsCappedAtTheUsableCores) {
  const BlasThreadChoice c = choose_blas_threads(100, 64, 2, 2);
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.reason, "override: 64 requested, capped at the 2 cores of this machine");
  EXPECT_EQ(choose_blas_threads(100, 2, 2, 2).reason, "override");
  EXPECT_EQ(choose_blas_threads(100, 3, 2, 0).threads, 1);  // no count known: one core
  EXPECT_GE(machine_cores(), 1);
}

}  // namespace
}  // namespace quench::blas_thread_policy_test
