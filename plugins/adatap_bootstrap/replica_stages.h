// The control of the replica EP iterations (docs/adatap_classification.md, Algorithm 1 and its
// two stages), shared by the scalar solver (general_solver.cpp) and the C-class solver
// (class_solver.cpp), which differ in what a site and its moments are, not in how the
// iteration proceeds.
#pragma once

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

namespace quench::adatap {

/// The averaged moments of every site (000 eqs 44-46): means, within-sample (co)variances and
/// second moments, as vectors (one latent per point) or blocks (C latents).
template <class T>
struct SiteMoments {
  T mean, variance, second_moment;
  SiteMoments& operator+=(const SiteMoments& o) {
    mean += o.mean;
    variance += o.variance;
    second_moment += o.second_moment;
    return *this;
  }
  SiteMoments operator-(const SiteMoments& o) const {
    return {mean - o.mean, variance - o.variance, second_moment - o.second_moment};
  }
};

/// The two stages. The iteration runs on the coarse rule's moments plus a defect correction
/// (the fine rule's moments minus the coarse rule's at the cavities of the last check; zero at
/// first). At a fixed point of that the fine rule is evaluated at the same cavities: where it
/// agrees the run is converged (a fixed point of the fine rule), else its difference is the new
/// defect. Without a coarse rule every pass is fine (one stage).
template <class T>
class TwoStages {
 public:
  TwoStages(bool two_stage, SiteMoments<T> zero)
      : two_stage_(two_stage), checking_(!two_stage), defect_(std::move(zero)) {}
  /// Whether this pass takes the fine rule.
  bool checking() const { return checking_; }
  /// A coarse pass's moments: kept as they are, then corrected by the defect.
  void correct(SiteMoments<T>& moments) {
    coarse_ = moments;
    moments += defect_;
  }
  /// The moments agree with the Gaussian part's: true when they are the fine rule's (done);
  /// else the next pass checks with the fine rule at the same sites.
  bool agreed() {
    if (checking_) return true;
    checking_ = true;
    return false;
  }
  /// The moments do not agree. After a check, their difference from the coarse moments there is
  /// the defect and the coarse rule goes on: true (what tracked the path starts afresh).
  bool disagreed(const SiteMoments<T>& moments) {
    if (!two_stage_ || !checking_) return false;
    defect_ = moments - coarse_;
    checking_ = false;
    return true;
  }

 private:
  bool two_stage_, checking_;
  SiteMoments<T> defect_, coarse_;
};

/// The step length eta towards the target sites: halved (down to `floor`) when a step leaves a
/// cavity improper, and when the change grows past twice the smallest so far (the zig-zag of a
/// converging iteration passes, a growing one does not).
class StepLength {
 public:
  StepLength(double eta, double floor) : eta_(eta), floor_(floor) {}
  double eta() const { return eta_; }
  bool can_halve() const { return eta_ > floor_; }
  void halve() { eta_ = std::max(0.5 * eta_, floor_); }
  /// After a pass with this change; true when it halved eta.
  bool after(double change) {
    const bool grew = change > 2.0 * best_;
    if (grew) {
      halve();
      best_ = change;
    }
    best_ = std::min(best_, change);
    return grew;
  }
  void restart() { best_ = std::numeric_limits<double>::infinity(); }

 private:
  double eta_, floor_, best_ = std::numeric_limits<double>::infinity();
};

/// Why an iteration stopped at its budget.
inline std::string not_converged_message(int max_iterations, double change, double tolerance) {
  std::ostringstream why;
  why << "not converged after " << max_iterations << " iterations (change " << change
      << ", tolerance " << tolerance << ")";
  return why.str();
}

}  // namespace quench::adatap
