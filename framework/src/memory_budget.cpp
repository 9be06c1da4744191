#include "quench/memory_budget.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "quench/errors.h"

namespace quench {

double physical_memory_bytes() {
  return static_cast<double>(::sysconf(_SC_PHYS_PAGES)) *
         static_cast<double>(::sysconf(_SC_PAGE_SIZE));
}

void require_memory(double bytes, const std::string& what) {
  const double total = physical_memory_bytes();
  if (bytes <= total) return;
  char text[160];
  std::snprintf(text, sizeof text,
                " needs %.3g GB, more than this machine's physical memory (%.3g GB)", bytes / 1e9,
                total / 1e9);
  throw ConfigError({}, what + text);
}

void require_dense_memory(std::int64_t n, double matrices, const std::string& engine) {
  const auto size = static_cast<double>(n);
  char count[32];
  std::snprintf(count, sizeof count, "%g", matrices);
  require_memory(8.0 * matrices * size * size, engine + " on the exact prior (" + count +
                                                   " matrices of N x N, N = " + std::to_string(n) +
                                                   "; an 'inducing:' block makes them N x M)");
}

}  // namespace quench
