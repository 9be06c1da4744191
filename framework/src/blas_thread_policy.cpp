#include "quench/blas_thread_policy.h"

#include <algorithm>
#include <string>

namespace quench {

BlasThreadChoice choose_blas_threads(std::int64_t rows, int requested, int available, int cores) {
  cores = std::max(cores, 1);
  if (requested > cores) {
    return {cores, "override: " + std::to_string(requested) + " requested, capped at the " +
                       std::to_string(cores) + " cores of this machine"};
  }
  if (requested > 0) return {requested, "override"};
  const bool large = rows >= kMultithreadedBlasRows;
  return {large ? std::max(available, 1) : 1, "policy: " + std::to_string(rows) +
                                                  " training rows " + (large ? ">= " : "< ") +
                                                  std::to_string(kMultithreadedBlasRows)};
}

}  // namespace quench
