// parallel_for: every index runs once, errors propagate, and per-index RNG streams make the
// outcome independent of the thread count.
#include <atomic>
#include <csignal>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "quench/cancellation.h"
#include "quench/parallel.h"
#include "quench/rng.h"

namespace quench::parallel_test {
namespace {

std::vector<double> draws(int threads) {
  std::vector<double> out(500);
  parallel_for(out.size(), threads, [&](std::size_t i) {
    RngStream rng(99, i);
    double s = 0;
    for (int k = 0; k < 100; ++k) s += rng.normal();
    out[i] = s;
  });
  return out;
}

TEST(Parallel, EveryIndexOnceAndThreadCountInvariant) {
  std::vector<std::atomic<int>> hits(1000);
  parallel_for(hits.size(), 2, [&](std::size_t i) { hits[i]++; });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_EQ(draws(1), draws(2));
  EXPECT_EQ(draws(1), draws(3));
}

TEST(Parallel, RethrowsTheTaskError) {
  EXPECT_THROW(parallel_for(100, 2,
                            [](std::size_t i) {
                              if (i == 37) throw std::runtime_error("boom");
                            }),
               std::runtime_error);
}

TEST(Parallel, AStopRequestStartsNoFurtherTaskAndThrowsInterrupted) {
  std::atomic<int> started{0};
  try {
    parallel_for(1000, 1, [&](std::size_t i) {
      started++;
      if (i == 10) request_stop(SIGINT);  // as the CLI's signal handler does
    });
    ADD_FAILURE() << "expected Interrupted";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), SIGINT);
  }
  clear_stop_request();
  // One worker: task 10 was the last to start.
  EXPECT_EQ(started.load(), 11);
  EXPECT_EQ(stop_requested(), 0);
}

TEST(Rng, NormalDrawsHaveUnitVariance) {
  RngStream rng(1, 0);
  const int n = 200000;
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    s += z;
    s2 += z * z;
  }
  // Standard errors: 1/sqrt(n) for the mean, sqrt(2/n) for the variance; 5-sigma bands.
  EXPECT_NEAR(s / n, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(s2 / n, 1.0, 5 * std::sqrt(2.0 / n));
}

}  // namespace
}  // namespace quench::parallel_test
