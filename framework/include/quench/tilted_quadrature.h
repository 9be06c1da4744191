// The tilted density of one site of any shape, T_k(f) = p(y|f)^k N(f; m, v) / Z_k (000 eqs 43-46;
// k = 1 the tilted distribution of EP), as a quadrature rule: no log-concavity is assumed, so a
// Student-t site of an outlier, whose tilted density has a mode near the cavity and one near
// the observation, is integrated whole. Log-concave tilted densities have the faster rule of
// quench/tilted_power_moments.h; tilted_site_rule and tilted_site_moments choose between them
// by the likelihood's curvature bound.
#pragma once

#include <vector>

#include "quench/export.h"
#include "quench/likelihood.h"
#include "quench/tilted_power_moments.h"

namespace quench {

/// The rule for k >= 1, v > 0 and any log-likelihood l(f) = `site` (its slope() may have
/// l'' > 0 anywhere; values() may be -infinity where p(y|f) = 0). With phi(f) = k l(f) -
/// (f - m)^2 / (2 v):
/// 1. a local maximum of phi by Newton steps from m (gradient steps where phi is convex),
///    with backtracking;
/// 2. a scan outward in both directions with steps of 0.5 / sqrt(1/v + k |l''|) (half the
///    local length scale, so a narrow peak of the likelihood is approached geometrically, never
///    stepped over), recording every further local maximum (refined by safeguarded Newton
///    steps); a direction ends where phi is 46 below the highest maximum, decreasing, and the
///    likelihood can no longer lift it (l decreasing that way, or its slope less than half the
///    Gaussian's);
/// 3. adaptive Gauss-Kronrod (7, 15) on panels cut at every maximum and a few local widths
///    around it, the panel of largest error bisected until the estimated error of Z_k and of
///    the second moment is below 1e-11 relative (at most 400 panels); a panel's error is
///    QUADPACK's estimate from |Kronrod - Gauss| (Piessens et al. 1983, qk15).
/// Against Boost's adaptive Gauss-Kronrod on pieces cut at the known modes
/// (tests/unit/tilted_quadrature_test.cpp): log Z within 1e-10, the mean within 1e-10 sd, the
/// variance within 1e-9 relative, for Student-t sites (scales 0.05-1, cavity variances
/// 0.01-25, cavities up to 30 from the observation: two modes) and Poisson sites (counts up to
/// 80), k <= 5. Throws std::invalid_argument for k < 1 or
/// v <= 0 (or not finite), NumericalError when phi is NaN, not finite at its maximum, or the
/// scan takes more than 4000 steps.
QUENCH_API TiltedRule tilted_rule(const TiltedPowerSite& site, double m, double v, int k);

/// tilted_rule(site, m, v, k).moments() without keeping the nodes.
QUENCH_API TiltedMoments tilted_moments_adaptive(const TiltedPowerSite& site, double m, double v,
                                                 int k);

/// A likelihood's site l(f) = log p(y | f) for the rules of quench/tilted_power_moments.h and
/// this header, through its virtual log_likelihood and derivatives. Refers to `likelihood`.
class QUENCH_API LikelihoodSite final : public TiltedPowerSite {
 public:
  LikelihoodSite(const Likelihood& likelihood, const Observation& y) : lik_(likelihood), y_(y) {}
  Slope slope(double f) const override;
  void values(const double* f, double* out, std::size_t n) const override;
  int transitions(double* out) const override { return lik_.transitions(y_, out); }

 private:
  const Likelihood& lik_;
  Observation y_;
};

/// The rule for one site of `likelihood`: tilted_power_rule when the tilted density is
/// log-concave (k v curvature_bound() < 1), tilted_rule otherwise.
QUENCH_API TiltedRule tilted_site_rule(const Likelihood& likelihood, const Observation& y, double m,
                                       double v, int k);
/// tilted_site_rule's moments, computed without keeping the nodes.
QUENCH_API TiltedMoments tilted_site_moments(const Likelihood& likelihood, const Observation& y,
                                             double m, double v, int k);

}  // namespace quench
