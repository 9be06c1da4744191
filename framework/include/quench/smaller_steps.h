// Damped fixed-point sweeps that cycle or diverge instead of settling, tried again with smaller
// steps: parallel EP (the binary engines' and the multi-class nested EP's) converges for any
// damping small enough, but a step that suits most problems can cycle on some (a nearly
// noise-free likelihood, negative sites, large latents). Shared by every EP solver.
#pragma once

#include <algorithm>

#include "quench/status.h"

namespace quench {

/// The smallest damping tried (two halvings of the usual 1/2).
inline constexpr double kSmallestDamping = 0.125;

/// Runs `solve(options, true)` (the first attempt, e.g. from a warm start) and, while its fit is
/// not ok, `solve(smaller, false)` (from the solver's cold start) with smaller.damping half the
/// last attempt's, down to kSmallestDamping, while sweeps remain of options.max_iterations, which
/// bounds all attempts together; the fit's status.iterations counts the sweeps of every attempt.
/// Options has `damping` and `max_iterations`; the fit has a Status `status`.
template <class Options, class Solve>
auto solve_with_smaller_steps(const Options& options, Solve&& solve) {
  auto fit = solve(options, true);
  Options smaller = options;
  while (fit.status.code != RunStatus::ok && smaller.damping > kSmallestDamping &&
         fit.status.iterations < options.max_iterations) {
    smaller.damping = std::max(0.5 * smaller.damping, kSmallestDamping);
    const int spent = fit.status.iterations;
    smaller.max_iterations = options.max_iterations - spent;
    fit = solve(smaller, false);
    fit.status.iterations += spent;
  }
  return fit;
}

}  // namespace quench
