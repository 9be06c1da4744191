// `quench run` under mpirun / srun (docs/distributed.md): every rank prepares and runs the
// pipeline, the engines' units split across the ranks (MpiExecutor); rank 0 alone writes the
// report, after the last unit is in. Problems are agreed on before any work: a rank whose
// pipeline, plugins or quench build differ from rank 0's refuses the run on every rank.
#pragma once

#include "run_command.h"

namespace quench::cli {

/// The run as one rank of the MPI job; every rank returns the same exit code (a failure seen by
/// one rank only ends the job through MPI_Abort).
int mpi_run(const RunRequest& request);

}  // namespace quench::cli
