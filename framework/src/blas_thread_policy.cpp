#include "quench/blas_thread_policy.h"

#include <algorithm>

namespace quench {

BlasThreadChoice choose_blas_threads(std::int64_t rows, int requested, int available) {
  if (requested > 0) return {requested, "override"};
  const bool large = rows >= kMultithreadedBlasRows;
  return {large ? std::max(available, 1) : 1, "policy: " + std::to_string(rows) +
                                                  " training rows " + (large ? ">= " : "< ") +
                                                  std::to_string(kMultithreadedBlasRows)};
}

}  // namespace quench
