// A process-wide stop request. A signal handler (the CLI's, for SIGINT and SIGTERM) records
// it with request_stop; parallel_for checks it between units and the pipeline run between
// engines and sweep points, and throw_if_stop_requested turns it into an Interrupted
// exception that unwinds the run (a report in progress is discarded, nothing is written).
#pragma once

#include "quench/errors.h"
#include "quench/export.h"

namespace quench {

/// Records a stop request for `signal` (any non-zero number; the first one is kept).
/// Async-signal-safe: it stores to a lock-free atomic and does nothing else.
QUENCH_API void request_stop(int signal) noexcept;

/// The signal of the pending stop request, or 0 when none is pending.
QUENCH_API int stop_requested() noexcept;

/// Forgets a stop request (for hosts that run again after handling an interruption).
QUENCH_API void clear_stop_request() noexcept;

/// A run stopped by request_stop.
class QUENCH_API Interrupted : public Error {
 public:
  explicit Interrupted(int signal);
  ~Interrupted() override;
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// Throws Interrupted when a stop request is pending.
QUENCH_API void throw_if_stop_requested();

}  // namespace quench
