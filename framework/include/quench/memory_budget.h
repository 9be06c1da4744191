// A check before a large allocation whose size a configuration decides (random features x
// rows, particles x parameters, ...): refused with a clear error when it cannot fit in this
// machine's physical memory, instead of a std::bad_alloc or the OOM killer.
#pragma once

#include <cstdint>
#include <string>

#include "quench/export.h"

namespace quench {

/// This machine's physical memory in bytes.
QUENCH_API double physical_memory_bytes();

/// Throws ConfigError "<what> needs <bytes> GB, more than this machine's physical memory
/// (<total> GB)" when `bytes` exceeds the physical memory.
QUENCH_API void require_memory(double bytes, const std::string& what);

/// require_memory for `matrices` N x N matrices of doubles that `engine` holds at once on the
/// exact prior (n = N), the message saying so and that an `inducing:` block makes them N x M.
QUENCH_API void require_dense_memory(std::int64_t n, double matrices, const std::string& engine);

}  // namespace quench
