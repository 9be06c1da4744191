// The independent units of an engine — bootstrap samples, Bayesian-bootstrap draws, particles,
// leave-one-out folds — and where they run. A unit computes a fixed number of doubles (and
// optionally a line of text, e.g. a fold's status message) from its own index alone, its
// randomness from RngStream(seed, index). map_units runs them on the executor the host put in
// the RunContext: threads in this process by default, ranks x threads under MPI (mpi/,
// docs/distributed.md). Every process gets every unit's output, in unit order, so what the
// engine does with them next does not depend on where they ran: engines do not know whether
// they run under MPI.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/errors.h"
#include "quench/export.h"

namespace quench {

struct RunContext;

/// The outputs of the units of one map_units call: column i of `values` is unit i's numbers,
/// text[i] its text (empty unless the unit wrote some).
struct UnitOutputs {
  Eigen::MatrixXd values;  ///< width x count
  std::vector<std::string> text;
};

/// One unit: writes its numbers into `out` (width entries, preset to 0) and, if it has any, a
/// line into `text`.
using Unit =
    std::function<void(std::size_t index, Eigen::Ref<Eigen::VectorXd> out, std::string& text)>;

/// A unit that threw while running on another process (under MPI): the message names the
/// process and the unit. It ends the whole run on every process (the pipeline does not turn it
/// into one engine's failed status), so that nothing is written.
class QUENCH_API UnitFailure : public Error {
 public:
  using Error::Error;
  ~UnitFailure() override;
};

/// Where units run. A distributed executor is called by every process with the same arguments
/// in the same order (the engines' code is deterministic given the pipeline) and returns the
/// same outputs on every process.
class QUENCH_API UnitExecutor {
 public:
  virtual ~UnitExecutor();
  /// Runs unit(i) once for each i in [0, count) with `threads` workers per process and returns
  /// their outputs. `progress`, if set, is called with the fraction done on the process that
  /// reports. Throws what a unit threw (locally) or UnitFailure (on another process).
  virtual UnitOutputs run(std::size_t count, Eigen::Index width, int threads, const Unit& unit,
                          const std::function<void(double)>& progress) const = 0;
};

/// Threads in this process (parallel_for): the default executor.
class QUENCH_API LocalExecutor final : public UnitExecutor {
 public:
  UnitOutputs run(std::size_t count, Eigen::Index width, int threads, const Unit& unit,
                  const std::function<void(double)>& progress) const override;
};

/// The units on the context's executor (its threads, progress); on LocalExecutor when it has
/// none, and always when called from inside a unit (nested units run where their unit runs).
QUENCH_API UnitOutputs map_units(std::size_t count, Eigen::Index width, const RunContext& context,
                                 const Unit& unit);

/// Whether the calling thread is running a unit (set by the executors around each unit).
QUENCH_API bool inside_unit();
/// Marks the calling thread as running a unit for its lifetime (for executors).
class QUENCH_API UnitScope {
 public:
  UnitScope();
  ~UnitScope();
  UnitScope(const UnitScope&) = delete;
  UnitScope& operator=(const UnitScope&) = delete;

 private:
  bool previous_;
};

}  // namespace quench
