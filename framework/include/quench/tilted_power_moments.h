// Moments of the k-fold tilted distribution T_k(f) = p(y|f)^k N(f; m, v) / Z_k of one site of
// a point drawn k times in a bootstrap sample (000 eqs 43-46; the probit case is section 3 of
// docs/adatap_classification.md), by mode-centred quadrature for a concave log p(y|f).
#pragma once

#include <cstddef>
#include <vector>

#include "quench/export.h"
#include "quench/likelihood.h"

namespace quench {

/// One site's log-likelihood l(f) = log p(y|f) as a function of f (y fixed): concave in f for
/// tilted_power_moments below, of any shape for the rules of quench/tilted_quadrature.h.
class QUENCH_API TiltedPowerSite {
 public:
  virtual ~TiltedPowerSite();
  /// l'(f) and l''(f) (l'' <= 0 for tilted_power_moments), for the Newton steps of the modes and
  /// the limits.
  struct Slope {
    double d1, d2;
  };
  virtual Slope slope(double f) const = 0;
  /// out[i] = l(f[i]) for i < n (all nodes of the rule at once, so that a site can reuse or
  /// vectorize its evaluations).
  virtual void values(const double* f, double* out, std::size_t n) const = 0;
  static constexpr int kMaxTransitions = 4;
  /// Points where l changes its length scale (e.g. the ends of the probit's transition from
  /// -z^2/2 to 0), at most kMaxTransitions, written to out; returns how many, or -1 when
  /// unknown (the default): the quadrature then splits where the curvature of log T_k changes
  /// by a large factor.
  virtual int transitions(double* /*out*/) const { return -1; }
};

/// T_k as nodes and weights: E_T[g] ~= sum_j weights_j g(nodes_j) for any smooth g (a tilted
/// moment, the tilted mean of a hyperparameter gradient).
struct QUENCH_API TiltedRule {
  double log_z = 0.0;           ///< log Z_k = log \int p(y|f)^k N(f; m, v) df
  std::vector<double> nodes;    ///< f_j
  std::vector<double> weights;  ///< > 0, summing to 1
  /// log_z and the mean and variance of T_k from the nodes.
  TiltedMoments moments() const;
};

/// Throws std::invalid_argument unless k >= 0, v > 0 and m, v are finite (the arguments of
/// Likelihood::tilted_moments_power).
QUENCH_API void check_tilted_power_arguments(double m, double v, int k);

/// Moments of exp(k l(f)) N(f; m, v) / Z_k for k >= 1, v > 0 and l'' <= b with k v b < 1
/// (`curvature_bound` b; b = 0: the likelihood log-concave), so that log T_k is concave with
/// -(log T_k)'' >= c = 1/v - k b > 0. The mode f* of log T_k is found by Newton's method
/// safeguarded by bisection inside [m, m + k l'(m) / c] (or the mirror bracket); on each side
/// the limit where log T_k has dropped by 38 below its mode value by Newton's method (monotone
/// for a concave function, first step capped at sqrt(76 / c)). [limit, f*, limit] is cut at the
/// site's transitions (or, when it names none, where the curvature of log T_k changes by > 64x);
/// each piece is integrated in f = e +- s_e sinh(t) from its ends e, s_e the local length
/// scale there, by Gauss-Legendre panels in t (docs/adatap_classification.md). Measured
/// against dense quadrature up to k = 30, v / sigma^2 in [1e-7, 1e7], cavities 30 sd on the
/// wrong side: <= 1.1e-10 for the probit (which names its transitions), <= 5e-9 through the
/// automatic search; Student-t sites with k v b up to 0.95 within 1e-11 of a reference
/// quadrature (tests/unit/tilted_quadrature_test.cpp). Throws std::invalid_argument for k < 1, v <=
/// 0 (or not finite) or k v b >= 1, and NumericalError when log T_k or its derivatives are not
/// finite at the mode.
QUENCH_API TiltedMoments tilted_power_moments(const TiltedPowerSite& site, double m, double v,
                                              int k, double curvature_bound = 0.0);

/// The same quadrature as nodes and weights (for tilted means of other functions of f).
QUENCH_API TiltedRule tilted_power_rule(const TiltedPowerSite& site, double m, double v, int k,
                                        double curvature_bound = 0.0);

}  // namespace quench
