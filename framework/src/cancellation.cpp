#include "quench/cancellation.h"

#include <atomic>
#include <cstring>
#include <string>

namespace quench {
namespace {

// A signal handler may only touch lock-free atomics.
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> pending_signal{0};

// "SIGINT", or "signal 64" for a number without a name.
std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  return abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
}

}  // namespace

void request_stop(int signal) noexcept {
  int none = 0;
  pending_signal.compare_exchange_strong(none, signal);
}

int stop_requested() noexcept { return pending_signal.load(); }

void clear_stop_request() noexcept { pending_signal.store(0); }

Interrupted::Interrupted(int signal)
    : Error("interrupted by " + signal_name(signal)), signal_(signal) {}

Interrupted::~Interrupted() = default;

void throw_if_stop_requested() {
  if (const int signal = stop_requested()) throw Interrupted(signal);
}

}  // namespace quench
