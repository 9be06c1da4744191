// quench under MPI (mpirun, srun): one process per rank, each running the whole pipeline in
// lockstep (the engines' code is deterministic given the pipeline), with the independent units
// of the engines split across ranks by MpiExecutor and rank 0 alone writing the report
// (docs/distributed.md). Built when QUENCH_WITH_MPI is on (OpenMPI and Boost.MPI found).
#pragma once

#include <memory>
#include <string>

#include "quench/units.h"

namespace quench::mpi {

/// Whether this process was started by an MPI launcher: the variables mpirun (OpenMPI) and
/// srun (PMI / PMIx) put in the environment. Without one, quench runs exactly as a single
/// process and never initializes MPI.
bool launched_by_mpi();

/// MPI for the process's lifetime (MPI_THREAD_FUNNELED: only the main thread communicates).
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// The executor that splits units across the ranks (MpiExecutor; `static_schedule`: equal
  /// contiguous shares instead of blocks on request).
  std::shared_ptr<const UnitExecutor> executor(bool static_schedule = false) const;

  /// Collective: every rank's `mine` (empty: no problem), as one message on every rank — empty
  /// when every rank's is empty, else "rank r of P: message" for the lowest such rank (just the
  /// message when every rank has the same one).
  std::string first_problem(const std::string& mine) const;
  /// Collective: empty when every rank's `text` equals rank 0's, else a message naming the
  /// first rank that differs and the first line where it does (`what` names the text).
  std::string difference_from_rank0(const std::string& what, const std::string& text) const;
  /// Collective: rank 0's value on every rank.
  int broadcast_from_rank0(int value) const;
  /// Ends every rank of the job (MPI_Abort) after a failure only this rank saw.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace quench::mpi
