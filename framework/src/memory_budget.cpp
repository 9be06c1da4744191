#include "quench/memory_budget.h"

#include <unistd.h>

#include <cstdio>

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

}  // namespace quench
