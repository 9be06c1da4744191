// How many BLAS threads a run's dense algebra (the O(N^3) factorizations and products outside
// parallel_for's units, which always use 1) gets: one below a measured number of training
// rows, where OpenBLAS's threads cost more in waiting than they save, the backend's own
// count from there on; an explicit request wins. docs/performance.md has the measurements.
#pragma once

#include <cstdint>
#include <string>

#include "quench/export.h"

namespace quench {

/// Training rows from which the backend's threads pay: below, one BLAS thread. Measured on a
/// 2-core machine (OpenBLAS 0.3.21, pthreads) with quench_bench_blas_threads (every engine's
/// pipeline and dpotrf/dgemm at 1 and 2 BLAS threads, N = 100 ... 4000): up to N = 500 one
/// thread was never slower than two beyond the noise, for any engine (two threads up to 2.1x
/// slower); on the idle machine two threads won from N = 1000 (TAP at N = 2000: 1.2 s against
/// 1.8 s). 750 lies between; the crossover between 500 and 1000 is not resolved further.
inline constexpr std::int64_t kMultithreadedBlasRows = 750;

/// A BLAS thread count and why it was chosen (recorded in a run's provenance).
struct BlasThreadChoice {
  int threads = 1;
  /// "override", "override: <n> requested, capped at the <c> cores of this machine", or
  /// "policy: <rows> training rows <, >= <threshold>".
  std::string reason;
};

/// The BLAS threads for a run on `rows` training rows: `requested` when > 0 (an explicit
/// choice), but no more than `cores` (the machine's, quench/parallel.h machine_cores: more
/// threads only wait, and each costs OpenBLAS a buffer, which under an address-space limit it
/// cannot allocate); otherwise 1 below kMultithreadedBlasRows rows and `available` (the backend's
/// count, at least 1) from there on.
QUENCH_API BlasThreadChoice choose_blas_threads(std::int64_t rows, int requested, int available,
                                                int cores);

}  // namespace quench
