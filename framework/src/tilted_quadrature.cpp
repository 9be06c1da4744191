#include "quench/tilted_quadrature.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>

#include "quench/errors.h"

namespace quench {

namespace {

// phi may drop this far below its highest maximum at the ends of the range (e^-46 ~ 1e-20).
constexpr double kTailDrop = 46.0;
// A scan step is this fraction of the local length scale 1 / sqrt(1/v + k |l''|).
constexpr double kStep = 0.5;
constexpr int kMaxScanSteps = 4000;
// Panels are bisected until the estimated error of Z and of the second moment is below this
// relative to their totals, or there are kMaxPanels (log Z within 1e-10 of the reference in
// tests/unit/tilted_quadrature_test.cpp).
constexpr double kTolerance = 1e-11;
constexpr std::size_t kMaxPanels = 400;
constexpr int kKronrodNodes = 15;

// log T_k up to its normalization: phi(f) = k l(f) - (f - m)^2 / (2 v).
struct Phi {
  const TiltedPowerSite& site;
  double m, v, k;
  double value(double f) const {
    double l;
    site.values(&f, &l, 1);
    return k * l - 0.5 * (f - m) * (f - m) / v;
  }
  struct Slope {
    double g;   // phi'(f)
    double l1;  // l'(f)
    double l2;  // l''(f)
  };
  Slope slope(double f) const {
    const TiltedPowerSite::Slope s = site.slope(f);
    return {k * s.d1 - (f - m) / v, s.d1, s.d2};
  }
  // -phi''(f), which may be negative where l is convex.
  double curvature(const Slope& s) const { return 1.0 / v - k * s.l2; }
  // The local length scale: the scan's step is kStep of it.
  double scale(const Slope& s) const { return 1.0 / std::sqrt(1.0 / v + k * std::fabs(s.l2)); }
};

void require_finite(double x, double f, const char* what) {
  if (std::isnan(x))
    throw NumericalError("tilted_rule",
                         std::string(what) + " is not a number at f = " + std::to_string(f));
}

// A local maximum of phi from f: Newton steps where phi is concave, a step of sqrt(v) uphill
// where it is not, each halved until phi increases.
double ascend(const Phi& phi, double f) {
  double value = phi.value(f);
  require_finite(value, f, "the log-likelihood");
  for (int it = 0; it < 200; ++it) {
    const Phi::Slope s = phi.slope(f);
    require_finite(s.g, f, "the log-likelihood's slope");
    const double c = phi.curvature(s);
    const double width = 1.0 / std::sqrt(std::max(c, 1.0 / phi.v));
    if (std::fabs(s.g) * width < 1e-12) return f;  // phi' ~ 0 on its own scale
    double step = c > 0 ? s.g / c : std::copysign(std::sqrt(phi.v), s.g);
    bool moved = false;
    for (int half = 0; half < 60 && !moved; ++half, step *= 0.5) {
      const double next = f + step, trial = phi.value(next);
      if (trial > value || (trial == value && std::fabs(step) < 1e-9 * width)) {
        moved = trial > value;
        if (moved) {
          f = next;
          value = trial;
        }
        break;
      }
    }
    if (!moved || std::fabs(step) < 1e-10 * width) return f;
  }
  return f;
}

// The maximum of phi in [lo, hi] with phi'(lo) > 0 >= phi'(hi): Newton steps kept in the
// bracket, bisection when a step leaves it.
double refine(const Phi& phi, double lo, double hi) {
  double f = 0.5 * (lo + hi);
  for (int it = 0; it < 100; ++it) {
    const Phi::Slope s = phi.slope(f);
    require_finite(s.g, f, "the log-likelihood's slope");
    (s.g > 0 ? lo : hi) = f;
    const double c = phi.curvature(s);
    double next = c > 0 ? f + s.g / c : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::fabs(next - f) <= 1e-13 * (std::fabs(f) + phi.scale(s)) || hi - lo <= 0) return next;
    f = next;
  }
  return f;
}

struct Maximum {
  double f, value, width;
};

// Walks from the maximum `from` in direction dir (+1, -1) and returns where the range ends;
// appends the local maxima it passes to `maxima` and raises `top`.
double scan(const Phi& phi, const Maximum& from, int dir, std::vector<Maximum>& maxima, double& top,
            int& steps) {
  double f = from.f;
  Phi::Slope s = phi.slope(f);
  bool uphill = false;  // dir * phi' > 0 at the last point
  while (true) {
    if (++steps > kMaxScanSteps)
      throw NumericalError("tilted_rule", "the scan for the modes of the tilted density took " +
                                              std::to_string(kMaxScanSteps) +
                                              " steps (m = " + std::to_string(phi.m) +
                                              ", v = " + std::to_string(phi.v) + ")");
    const double next = f + dir * kStep * phi.scale(s);
    const double value = phi.value(next);
    require_finite(value, next, "the log-likelihood");
    if (value == -std::numeric_limits<double>::infinity()) return next;  // p(y|f) = 0 beyond
    const Phi::Slope t = phi.slope(next);
    require_finite(t.g, next, "the log-likelihood's slope");
    const bool up = dir * t.g > 0;
    if (uphill && !up) {  // a local maximum between f and next
      const double mode = dir > 0 ? refine(phi, f, next) : refine(phi, next, f);
      const double mv = phi.value(mode);
      const Phi::Slope ms = phi.slope(mode);
      const double c = phi.curvature(ms);
      maxima.push_back({mode, mv, 1.0 / std::sqrt(c > 0 ? c : 1.0 / phi.v)});
      top = std::max(top, mv);
    }
    uphill = up;
    f = next;
    s = t;
    // The end: far below the top, still falling, and the likelihood cannot lift phi again
    // (falling that way itself, or rising less than half as fast as the Gaussian falls).
    const bool likelihood_spent =
        dir * t.l1 <= 0 || 2.0 * phi.k * std::fabs(t.l1) <= std::fabs(next - phi.m) / phi.v;
    if (value < top - kTailDrop && !up && likelihood_spent) return next;
  }
}

// The Gauss-Kronrod (7, 15) rule on [-1, 1]: nodes x_j, Kronrod weights and Gauss weights (0
// at the Kronrod-only nodes).
struct KronrodRule {
  std::array<double, kKronrodNodes> x, kronrod, gauss;
};
KronrodRule make_kronrod() {
  using K = boost::math::quadrature::gauss_kronrod<double, kKronrodNodes>;
  using G = boost::math::quadrature::gauss<double, (kKronrodNodes - 1) / 2>;
  const auto& a = K::abscissa();  // a[0] = 0; a[2], a[4], a[6] are also Gauss nodes
  const auto& w = K::weights();
  KronrodRule r{};
  int j = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (int sign : {1, -1}) {
      if (i == 0 && sign < 0) continue;
      r.x[j] = sign * a[i];
      r.kronrod[j] = w[i];
      r.gauss[j] = i % 2 == 0 ? G::weights()[i / 2] : 0.0;
      ++j;
    }
  }
  return r;
}
const KronrodRule& kronrod() {
  static const KronrodRule rule = make_kronrod();
  return rule;
}

// One panel [a, b]: e^(phi - top) at its nodes and the Kronrod sums of 1, d, d^2 (d = f -
// center), the estimated errors of the zeroth and second sums.
struct Panel {
  double a, b;
  std::array<double, kKronrodNodes> f, phi;
  double s0 = 0, s1 = 0, s2 = 0, error = 0;
};

class Integration {
 public:
  Integration(const Phi& phi, double center, double top) : phi_(phi), center_(center), top_(top) {}

  void add(double a, double b) {
    Panel p{a, b, {}, {}};
    const KronrodRule& rule = kronrod();
    const double half = 0.5 * (b - a), mid = 0.5 * (a + b);
    for (int j = 0; j < kKronrodNodes; ++j) p.f[j] = mid + half * rule.x[j];
    phi_.site.values(p.f.data(), p.phi.data(), kKronrodNodes);
    for (int j = 0; j < kKronrodNodes; ++j) {
      p.phi[j] = phi_.k * p.phi[j] - 0.5 * (p.f[j] - phi_.m) * (p.f[j] - phi_.m) / phi_.v;
      require_finite(p.phi[j], p.f[j], "the log-likelihood");
      if (p.phi[j] > top_ + 1.0) rescale(p.phi[j]);
    }
    for (int j = 0; j < kKronrodNodes; ++j) {
      const double e = std::exp(p.phi[j] - top_) * half, d = p.f[j] - center_;
      p.s0 += rule.kronrod[j] * e;
      p.s1 += rule.kronrod[j] * e * d;
      p.s2 += rule.kronrod[j] * e * d * d;
    }
    p.error = error_of(p);
    panels_.push_back(p);
  }

  // Bisects the panel of largest error until the errors are below kTolerance of the totals.
  // The second sum's error counts relative to its total, in units of the zeroth (the scale
  // taken from the first panels).
  void refine() {
    double s0 = 0, s2 = 0;
    for (const Panel& p : panels_) {
      s0 += p.s0;
      s2 += p.s2;
    }
    second_scale_ = s2 > 0 ? s0 / s2 : 0.0;
    for (Panel& p : panels_) p.error = error_of(p);
    while (panels_.size() < kMaxPanels) {
      double total = 0, error = 0;
      std::size_t worst = 0;
      for (std::size_t i = 0; i < panels_.size(); ++i) {
        total += panels_[i].s0;
        error += panels_[i].error;
        if (panels_[i].error > panels_[worst].error) worst = i;
      }
      if (!(error > kTolerance * total)) return;
      const Panel p = panels_[worst];
      panels_.erase(panels_.begin() + static_cast<std::ptrdiff_t>(worst));
      const double mid = 0.5 * (p.a + p.b);
      add(p.a, mid);
      add(mid, p.b);
    }
  }

  TiltedMoments moments() const {
    double s0 = 0, s1 = 0, s2 = 0;
    for (const Panel& p : panels_) {
      s0 += p.s0;
      s1 += p.s1;
      s2 += p.s2;
    }
    const double shift = s1 / s0;
    TiltedMoments out;
    out.log_z = top_ + std::log(s0) - 0.5 * std::log(2.0 * M_PI * phi_.v);
    out.mean = center_ + shift;
    out.variance = std::max(s2 / s0 - shift * shift, 0.0);
    return out;
  }

  void rule(TiltedRule& out) const {
    double s0 = 0;
    for (const Panel& p : panels_) s0 += p.s0;
    const KronrodRule& rule = kronrod();
    out.nodes.clear();
    out.weights.clear();
    for (const Panel& p : panels_) {
      const double half = 0.5 * (p.b - p.a);
      for (int j = 0; j < kKronrodNodes; ++j) {
        out.nodes.push_back(p.f[j]);
        out.weights.push_back(rule.kronrod[j] * std::exp(p.phi[j] - top_) * half / s0);
      }
    }
    out.log_z = moments().log_z;
  }

 private:
  double error_of(const Panel& p) const {
    const KronrodRule& rule = kronrod();
    const double half = 0.5 * (p.b - p.a);
    double g0 = 0, g2 = 0, a0 = 0, a2 = 0;
    for (int j = 0; j < kKronrodNodes; ++j) {
      const double e = std::exp(p.phi[j] - top_) * half, d = p.f[j] - center_;
      g0 += rule.gauss[j] * e;
      g2 += rule.gauss[j] * e * d * d;
    }
    const double mean0 = p.s0 / (2 * half), mean2 = p.s2 / (2 * half);
    for (int j = 0; j < kKronrodNodes; ++j) {
      const double e = std::exp(p.phi[j] - top_), d = p.f[j] - center_;
      a0 += rule.kronrod[j] * std::fabs(e - mean0) * half;
      a2 += rule.kronrod[j] * std::fabs(e * d * d - mean2) * half;
    }
    return std::max(scaled_error(std::fabs(p.s0 - g0), a0),
                    scaled_error(std::fabs(p.s2 - g2), a2) * second_scale_);
  }

  // QUADPACK's estimate of the Kronrod sum's error from |Kronrod - Gauss| (which measures the
  // Gauss sum's, of degree 13 against 23): a (200 d / a)^1.5 of the panel's absolute deviation
  // a = \int |g - mean g|.
  static double scaled_error(double difference, double deviation) {
    if (!(deviation > 0)) return difference;
    return deviation * std::min(1.0, std::pow(200.0 * difference / deviation, 1.5));
  }

  // A node above the highest maximum the scan found: every sum is rescaled to the new top.
  void rescale(double value) {
    const double factor = std::exp(top_ - value);
    for (Panel& p : panels_) {
      p.s0 *= factor;
      p.s1 *= factor;
      p.s2 *= factor;
      p.error *= factor;
    }
    top_ = value;
  }

  const Phi& phi_;
  double center_, top_;
  double second_scale_ = 0.0;
  std::vector<Panel> panels_;
};

Integration integrate(const Phi& phi) {
  int steps = 0;
  const double f1 = ascend(phi, phi.m);
  const double v1 = phi.value(f1);
  if (!std::isfinite(v1))
    throw NumericalError("tilted_rule",
                         "the tilted density is not finite at its mode f = " + std::to_string(f1) +
                             " (cavity m = " + std::to_string(phi.m) +
                             ", v = " + std::to_string(phi.v) + ")");
  const Phi::Slope s1 = phi.slope(f1);
  const double c1 = phi.curvature(s1);
  std::vector<Maximum> maxima{{f1, v1, 1.0 / std::sqrt(c1 > 0 ? c1 : 1.0 / phi.v)}};
  double top = v1;
  const double lo = scan(phi, maxima.front(), -1, maxima, top, steps);
  const double hi = scan(phi, maxima.front(), 1, maxima, top, steps);
  // Cuts: the ends, every maximum and 2 and 8 of its widths either side.
  std::vector<double> cuts{lo, hi};
  double center = f1, best = v1;
  for (const Maximum& x : maxima) {
    if (x.value > best) {
      best = x.value;
      center = x.f;
    }
    for (double d : {0.0, -8.0, -2.0, 2.0, 8.0}) {
      const double c = x.f + d * x.width;
      if (c > lo && c < hi) cuts.push_back(c);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  Integration integration(phi, center, top);
  for (std::size_t i = 1; i < cuts.size(); ++i) integration.add(cuts[i - 1], cuts[i]);
  integration.refine();
  return integration;
}

}  // namespace

TiltedRule tilted_rule(const TiltedPowerSite& site, double m, double v, int k) {
  check_tilted_power_arguments(m, v, k);
  if (k < 1) throw std::invalid_argument("tilted_rule: k must be >= 1");
  const Phi phi{site, m, v, static_cast<double>(k)};
  TiltedRule out;
  integrate(phi).rule(out);
  return out;
}

TiltedMoments tilted_moments_adaptive(const TiltedPowerSite& site, double m, double v, int k) {
  check_tilted_power_arguments(m, v, k);
  if (k < 1) throw std::invalid_argument("tilted_moments_adaptive: k must be >= 1");
  const Phi phi{site, m, v, static_cast<double>(k)};
  return integrate(phi).moments();
}

namespace {

// Whether p(y|f)^k N(f; m, v) is log-concave by the likelihood's curvature bound b: k v b < 1.
bool concave_tilted(const Likelihood& likelihood, double v, int k) {
  return k * v * likelihood.curvature_bound() < 1.0;
}

}  // namespace

TiltedRule tilted_site_rule(const Likelihood& likelihood, const Observation& y, double m, double v,
                            int k) {
  const LikelihoodSite site(likelihood, y);
  if (concave_tilted(likelihood, v, k))
    return tilted_power_rule(site, m, v, k, std::max(likelihood.curvature_bound(), 0.0));
  return tilted_rule(site, m, v, k);
}

TiltedMoments tilted_site_moments(const Likelihood& likelihood, const Observation& y, double m,
                                  double v, int k) {
  const LikelihoodSite site(likelihood, y);
  if (concave_tilted(likelihood, v, k))
    return tilted_power_moments(site, m, v, k, std::max(likelihood.curvature_bound(), 0.0));
  return tilted_moments_adaptive(site, m, v, k);
}

LikelihoodSite::Slope LikelihoodSite::slope(double f) const {
  return {lik_.d_log_likelihood(y_, f), lik_.d2_log_likelihood(y_, f)};
}

void LikelihoodSite::values(const double* f, double* out, std::size_t n) const {
  for (std::size_t i = 0; i < n; ++i) out[i] = lik_.log_likelihood(y_, f[i]);
}

}  // namespace quench
