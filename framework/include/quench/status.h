// The outcome of a computation that can fail or stop short: ok, not converged, failed.
#pragma once

#include <string>

#include "quench/export.h"

namespace quench {

enum class RunStatus { ok, not_converged, failed };
QUENCH_API const char* to_string(RunStatus status);

struct Status {
  RunStatus code = RunStatus::ok;
  std::string message;  ///< why it is not ok; empty when ok
  int iterations = 0;
};

}  // namespace quench
