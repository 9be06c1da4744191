// Units across MPI ranks, threads inside each (quench/units.h): blocks of units are handed out
// dynamically by a counter on rank 0 (MPI_Fetch_and_op on a window), so that a rank that
// finishes early asks for the next block; then every rank gets every unit's output in unit
// order (one all-gather). A unit's output does not depend on where it ran, so results are
// bitwise those of one process for any number of ranks and threads.
#pragma once

#include "quench/units.h"

namespace quench::mpi {

class MpiExecutor final : public UnitExecutor {
 public:
  /// dynamic: blocks on request (the default); static: rank r runs the r-th of P contiguous
  /// equal shares (the benchmark's baseline for units of unequal cost).
  enum class Schedule { dynamic, statically };
  explicit MpiExecutor(Schedule schedule = Schedule::dynamic) : schedule_(schedule) {}

  /// Units handed out per request: about count / (blocks_per_worker x ranks x threads), at
  /// least `threads`, so that uneven units balance (docs/distributed.md).
  static constexpr int kBlocksPerWorker = 16;

  /// Collective on MPI_COMM_WORLD, like every call of run(). A unit that throws stops its rank
  /// from asking for more; after the all-gather every rank throws UnitFailure naming the lowest
  /// failed unit and its rank. A stop request (SIGINT, SIGTERM) on any rank becomes Interrupted
  /// on every rank, likewise after the all-gather.
  UnitOutputs run(std::size_t count, Eigen::Index width, int threads, const Unit& unit,
                  const std::function<void(double)>& progress) const override;

 private:
  Schedule schedule_;
};

}  // namespace quench::mpi
