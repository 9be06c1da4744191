// Threads over independent tasks (draws, particles, folds). Each task must derive its
// randomness from its own index (RngStream(seed, index)), so results do not depend on the
// number of threads. BLAS runs single-threaded inside the workers to avoid oversubscription.
#pragma once

#include <cstddef>
#include <functional>

#include "quench/export.h"

namespace quench {

/// The processors online on this machine, at least 1. Not the process's CPU affinity: a
/// launcher that binds ranks to cores must not change what a run computes.
QUENCH_API int machine_cores();

/// Number of workers for a request (0 = hardware concurrency), at least 1.
QUENCH_API int resolve_threads(int requested);

/// Runs task(i) for i in [0, count) on `threads` workers (0 = all cores). Tasks are handed
/// out dynamically. The first exception thrown by a task is rethrown after all workers stop.
/// A pending stop request (quench/cancellation.h) is checked before each task: no task
/// starts after it, and Interrupted is thrown once the running ones have finished.
/// `progress`, if set, is called from the calling thread with the fraction done.
QUENCH_API void parallel_for(std::size_t count, int threads,
                             const std::function<void(std::size_t)>& task,
                             const std::function<void(double)>& progress = {});

/// The BLAS backend's thread count now (OpenBLAS: its default is the cores the process may run
/// on, so a launcher that binds processes to cores changes it).
QUENCH_API int blas_threads();

/// Sets the BLAS backend's thread count for the current scope and restores it afterwards.
class QUENCH_API ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(int threads);
  ~ScopedBlasThreads();
  ScopedBlasThreads(const ScopedBlasThreads&) = delete;
  ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;

 private:
  int previous_;
};

}  // namespace quench
