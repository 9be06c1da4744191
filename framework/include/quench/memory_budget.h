// A check before a large allocation whose size a configuration decides (random features x
// rows, particles x parameters, ...): refused with a clear error when it cannot fit in this
// machine's physical memory, instead of a std::bad_alloc or the OOM killer.
#pragma once

#include <string>

#include "quench/export.h"

namespace quench {

/// This machine's physical memory in bytes.
QUENCH_API double physical_memory_bytes();

/// Throws ConfigError "<what> needs <bytes> GB, more than this machine's physical memory
/// (<total> GB)" when `bytes` exceeds the physical memory.
QUENCH_API void require_memory(double bytes, const std::string& what);

}  // namespace quench
