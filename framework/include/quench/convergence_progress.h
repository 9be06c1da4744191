// Progress of an iteration that stops when a change measure falls below a tolerance (a fixed
// point, a conjugate-gradient solve), as the fraction done that the host's progress bar turns
// into an estimate of the time left (RunContext::progress). The number of iterations is not
// known ahead, but a linearly converging iteration takes equal steps in log(change): with c0
// the first change reported, the fraction after a change c is
//   log(c0 / c) / log(c0 / tolerance),
// never decreasing (an iteration whose change grows for a while holds its bar), and below 1
// until finish(). Several stages of one run share the bar: each maps its fraction into its own
// [from, to].
#pragma once

#include <functional>

#include "quench/export.h"

namespace quench {

class QUENCH_API ConvergenceProgress {
 public:
  /// `progress` may be empty (then nothing is reported); tolerance > 0; 0 <= from <= to <= 1.
  ConvergenceProgress(std::function<void(double)> progress, double tolerance, double from = 0.0,
                      double to = 1.0);
  /// After an iteration whose change measure was `change` (non-finite values are ignored).
  void report(double change);
  /// The stage is done: reports `to`.
  void finish();
  /// The last fraction reported, in [from, to].
  double fraction() const { return last_; }

 private:
  std::function<void(double)> progress_;
  double tolerance_, from_, to_;
  double first_ = 0;  // c0 (0: nothing reported yet)
  double last_;
};

}  // namespace quench
