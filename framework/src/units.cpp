#include "quench/units.h"

#include "quench/inference_engine.h"
#include "quench/parallel.h"

namespace quench {

namespace {
thread_local bool in_unit = false;
}  // namespace

UnitFailure::~UnitFailure() = default;
UnitExecutor::~UnitExecutor() = default;

bool inside_unit() { return in_unit; }

UnitScope::UnitScope() : previous_(in_unit) { in_unit = true; }
UnitScope::~UnitScope() { in_unit = previous_; }

UnitOutputs LocalExecutor::run(std::size_t count, Eigen::Index width, int threads, const Unit& unit,
                               const std::function<void(double)>& progress) const {
  UnitOutputs out;
  out.values = Eigen::MatrixXd::Zero(width, static_cast<Eigen::Index>(count));
  out.text.resize(count);
  parallel_for(
      count, threads,
      [&](std::size_t i) {
        const UnitScope scope;
        unit(i, out.values.col(static_cast<Eigen::Index>(i)), out.text[i]);
      },
      progress);
  return out;
}

UnitOutputs map_units(std::size_t count, Eigen::Index width, const RunContext& context,
                      const Unit& unit) {
  static const LocalExecutor local;
  const UnitExecutor& executor = context.executor && !inside_unit()
                                     ? *context.executor
                                     : static_cast<const UnitExecutor&>(local);
  return executor.run(count, width, context.threads, unit, context.progress);
}

}  // namespace quench
