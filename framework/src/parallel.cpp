#include "quench/parallel.h"

#include "quench/cancellation.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

// OpenBLAS thread control (declared here to avoid depending on OpenBLAS's own header).
extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
}

namespace quench {

int machine_cores() {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

int blas_threads() { return openblas_get_num_threads(); }

ScopedBlasThreads::ScopedBlasThreads(int threads) : previous_(openblas_get_num_threads()) {
  openblas_set_num_threads(threads);
}

ScopedBlasThreads::~ScopedBlasThreads() { openblas_set_num_threads(previous_); }

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& task,
                  const std::function<void(double)>& progress) {
  const int workers =
      std::min<int>(resolve_threads(threads), static_cast<int>(std::max<std::size_t>(count, 1)));
  std::atomic<std::size_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= count || failed.load()) return;
      try {
        throw_if_stop_requested();
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
      done.fetch_add(1);
    }
  };
  {
    // Single-threaded BLAS in the workers, whatever their number, so that every task runs
    // the same floating-point operations for any thread count.
    ScopedBlasThreads blas(1);
    std::vector<std::thread> pool;
    for (int w = 1; w < workers; ++w) pool.emplace_back(work);
    if (progress) {
      // The caller's thread reports progress and works in between.
      std::thread last(work);
      while (done.load() < count && !failed.load()) {
        progress(static_cast<double>(done.load()) / static_cast<double>(count));
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
      last.join();
      progress(1.0);
    } else {
      work();
    }
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace quench
