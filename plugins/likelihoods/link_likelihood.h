// Likelihoods whose log is l(f) = a log g(s) + b log g(-s) + c, s = f + shift, g the logistic
// function sigma or the normal cdf Phi (both with 1 - g(s) = g(-s)): the logit (a or b is 1),
// the binomial (a = y successes, b = n - y failures) and the negative binomial (a = y, b = r,
// s = log(mu / r)). log g is concave, so l is; the tilted moments take the mode-centred rule of
// quench/tilted_power_moments.h on a site that names where log g bends: the rule's automatic
// search misses a bend in a tail of the tilted density (the logit's tilted moments for a
// cavity N(15, 25) err by 5e-7 in log Z without the names, 1e-12 with them).
#pragma once

#include <cstddef>

#include "quench/likelihood.h"
#include "quench/tilted_power_moments.h"

namespace quench::likelihoods {

/// The success probability g(s) of a link.
enum class Link { logit, probit };

/// a log g(s) + b log g(-s), s = f + shift, as a function of f.
class LinkSite final : public TiltedPowerSite {
 public:
  /// a, b >= 0.
  LinkSite(Link link, double a, double b, double shift)
      : link_(link), a_(a), b_(b), shift_(shift) {}

  /// From the stable log g of logistic.h and quench/normal.h.
  double value(double f) const;
  /// logit: l' = a sigma(-s) - b sigma(s), l'' = -(a + b) sigma(s) sigma(-s); probit:
  /// l' = a r(s) - b r(-s), l'' = -a r(s) (s + r(s)) - b r(-s) (r(-s) - s), with r = D / Phi the
  /// inverse Mills ratio and s + r(s) from its own stable routine.
  double d1(double f) const;
  double d2(double f) const;

  Slope slope(double f) const override { return {d1(f), d2(f)}; }
  void values(const double* f, double* out, std::size_t n) const override;
  /// Where log g(+-s) bends: s = -6, 0, 6 for the logit (beyond |s| = 6, log sigma(s) is within
  /// e^-6 of its asymptotes s and 0; measured against the adaptive rule, 1e-12 with these names
  /// and 2e-4 with the automatic search, for cavities up to 20 sds away and variances 0.01-100),
  /// s = 0 and 9 for log Phi(s) (as the probit likelihood names them) and s = -9 and 0 for
  /// log Phi(-s).
  int transitions(double* out) const override;

 private:
  Link link_;
  double a_, b_, shift_;
};

class LinkLikelihood : public Likelihood {
 public:
  /// l(f) = site(y).value(f) + log_normalizer(y), and its derivatives from the site.
  double log_likelihood(const Observation& y, double f) const final;
  double d_log_likelihood(const Observation& y, double f) const final;
  double d2_log_likelihood(const Observation& y, double f) const final;
  double curvature_bound() const final { return 0.0; }
  /// k = 0 the Gaussian, else the mode-centred rule on site(y), log Z_k shifted by
  /// k log_normalizer(y).
  TiltedMoments tilted_moments(const Observation& y, double m, double v) const override;
  TiltedMoments tilted_moments_power(const Observation& y, double m, double v,
                                     int k) const override;

 protected:
  /// The terms of l that depend on f.
  virtual LinkSite site(const Observation& y) const = 0;
  /// The constant c of l (log C(n, y), ...); 0 by default.
  virtual double log_normalizer(const Observation& /*y*/) const { return 0.0; }
};

}  // namespace quench::likelihoods
