// A rank that dies of a signal says which units it was running (docs/distributed.md, Faults):
// mpirun names the rank and the signal, this adds the units. Internal to mpi/.
#pragma once

#include <cstdint>

namespace quench::mpi {

/// Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that write
/// "quench: rank R of P died of signal S while running units A to B" (async-signal-safe)
/// and then die of the same signal.
void install_crash_report(int rank, int size);
/// The units this rank is running now, [first, last); first = last: none.
void running_units(std::int64_t first, std::int64_t last);

}  // namespace quench::mpi
