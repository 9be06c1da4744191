#include "quench/convergence_progress.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace quench {

namespace {
// The largest fraction of its stage an unfinished iteration shows: the bar never claims a
// stage is done before it is.
constexpr double kUnfinished = 0.99;
}  // namespace

ConvergenceProgress::ConvergenceProgress(std::function<void(double)> progress, double tolerance,
                                         double from, double to)
    : progress_(std::move(progress)), tolerance_(tolerance), from_(from), to_(to), last_(from) {}

void ConvergenceProgress::report(double change) {
  if (!(std::isfinite(change) && change > 0)) return;
  if (first_ == 0) first_ = change;
  double done = 0;
  if (first_ > tolerance_ && change < first_)
    done = std::log(first_ / change) / std::log(first_ / tolerance_);
  const double fraction = from_ + (to_ - from_) * std::clamp(done, 0.0, kUnfinished);
  if (fraction <= last_) return;
  last_ = fraction;
  if (progress_) progress_(last_);
}

void ConvergenceProgress::finish() {
  last_ = to_;
  if (progress_) progress_(last_);
}

}  // namespace quench
