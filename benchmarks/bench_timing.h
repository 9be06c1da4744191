// Timing helper shared by the benchmarks.
#pragma once

#include <algorithm>
#include <chrono>

namespace quench::bench {

/// The best wall time in seconds of `reps` calls of f (the least disturbed by other load).
template <class F>
double best_of(int reps, F&& f) {
  using Clock = std::chrono::steady_clock;
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace quench::bench
