// Where parallel EP's sweeps stand (the binary engines' and the multi-class nested EP's): the
// smallest change per sweep so far, the sweeps since it, and their precision (single while far
// from the fixed point).
#pragma once

#include <cmath>
#include <limits>

#include "quench/site_posterior.h"

namespace quench {

/// Sweeps are factorized in single precision (~2x cheaper, marginals to ~1e-7 cond(B) relative)
/// while the change per sweep exceeds this; the fixed point is then iterated in double.
inline constexpr double kSingleResidual = 1e-4;
/// Sweeps without a new smallest change after which an iteration is taken to have stalled (a
/// stall within 100 tol counts as converged: the rounding floor).
inline constexpr int kStalledSweeps = 5;
/// Sweeps without a new smallest change (or failed steps in a row) after which it gives up.
inline constexpr int kGiveUpSweeps = 25;

/// Where parallel EP's sweeps stand: the smallest change per sweep so far, the sweeps since it,
/// and their precision (single while far from the fixed point).
class SweepProgress {
 public:
  explicit SweepProgress(Precision first) : precision_(first) {}
  Precision precision() const { return precision_; }
  /// A factorization failed in single precision: the sweep is retried in double.
  void use_double() { precision_ = Precision::full; }
  /// Records a sound sweep's change, made in precision(). True when the sweeps turn to double
  /// precision from here on (the caller starts a new mixing history): close to the fixed point
  /// (change < kSingleResidual), or no new smallest change for 3 sweeps (single precision's
  /// rounding floor); the smallest change is then forgotten.
  bool record(double change) {
    last_in_double_ = precision_ == Precision::full;
    if (change < best_) {
      best_ = change;
      since_best_ = 0;
    } else if (std::isfinite(change)) {
      ++since_best_;
    }
    if (last_in_double_ || !(change < kSingleResidual || since_best_ >= 3)) return false;
    precision_ = Precision::full;
    best_ = std::numeric_limits<double>::infinity();
    since_best_ = 0;
    return true;
  }
  /// Whether the sweep just recorded ends the iteration: its change below tol, or at the
  /// rounding floor (no new smallest change for kStalledSweeps sweeps, within 100 tol). A
  /// single-precision sweep only when tol is above single precision's floor.
  bool converged(double change, double tol) const {
    return (last_in_double_ || tol >= kSingleResidual) &&
           (change < tol || (since_best_ >= kStalledSweeps && best_ < 100 * tol));
  }
  /// No new smallest change for kGiveUpSweeps double-precision sweeps.
  bool stuck() const { return last_in_double_ && since_best_ >= kGiveUpSweeps; }
  double best() const { return best_; }

 private:
  Precision precision_;
  bool last_in_double_ = false;
  double best_ = std::numeric_limits<double>::infinity();
  int since_best_ = 0;
};

}  // namespace quench
