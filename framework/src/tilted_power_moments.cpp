#include "quench/tilted_power_moments.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include <Eigen/Eigenvalues>

#include "quench/errors.h"

namespace quench {

namespace {

// log T_k must drop by kDrop (e^-38 ~ 3e-17) at the limits; the Newton search for a limit
// stops anywhere in [kDrop, kDrop + kDropSlack].
constexpr double kDrop = 38.0;
constexpr double kDropSlack = 8.0;
// Gauss-Legendre panels of length <= kPanel in the sinh variable t, of kNodes nodes, or of
// kNodesKnownTransitions on the halves of two-scale pieces when the site names its
// transitions. A piece whose curvature -phi'' at its ends differs by at most kSingleScaleRatio
// is one pass (kNodes) from the end nearer the mode. Measured against dense quadrature
// (probit, 1020 cavities, k <= 30): 1.1e-10 with the probit's cuts (10 nodes on halves: 6e-8;
// single passes of 12 nodes: 7e-9), 5e-9 with the automatic transition search (12 nodes:
// 3e-8); panels of 2.5 lose 2-3 digits.
constexpr int kNodes = 16;
constexpr int kNodesKnownTransitions = 12;
constexpr double kSingleScaleRatio = 4.0;
constexpr double kPanel = 1.5;
// Transition search (sites that do not name their transitions).
constexpr double kCurvatureRatio = 64.0;
constexpr int kMaxSplits = 4;
constexpr int kSplitBisections = 12;

// n-point Gauss-Legendre rule on [0, 1] (Golub-Welsch: the Jacobi matrix of the Legendre
// polynomials has off-diagonal j / sqrt(4 j^2 - 1)), n <= kNodes.
struct LegendreRule {
  int n = 0;
  std::array<double, kNodes> x{}, w{};
};
LegendreRule make_legendre(int n) {
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n, n);
  for (int j = 1; j < n; ++j) J(j, j - 1) = J(j - 1, j) = j / std::sqrt(4.0 * j * j - 1.0);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(J);
  LegendreRule rule;
  rule.n = n;
  for (int j = 0; j < n; ++j) {
    rule.x[j] = 0.5 * (1.0 + eig.eigenvalues()(j));
    rule.w[j] = eig.eigenvectors()(0, j) * eig.eigenvectors()(0, j);  // sums to 1 on [0, 1]
  }
  return rule;
}
const LegendreRule& legendre(int nodes) {
  static const LegendreRule rule = make_legendre(kNodes);
  static const LegendreRule short_rule = make_legendre(kNodesKnownTransitions);
  return nodes == kNodes ? rule : short_rule;
}

// log T_k up to its normalization: phi(f) = k l(f) - (f - m)^2 / (2 v), with -phi'' >= 1 /
// spread > 0 (spread = v for a concave l, 1 / (1/v - k b) when l'' <= b).
struct LogTilted {
  const TiltedPowerSite& site;
  double m, v, k, spread;
  double at(double f, double l) const { return k * l - 0.5 * (f - m) * (f - m) / v; }
  double value(double f) const {
    double l;
    site.values(&f, &l, 1);
    return at(f, l);
  }
  // phi'(f) and -phi''(f) > 0.
  std::pair<double, double> slope(double f) const {
    const TiltedPowerSite::Slope s = site.slope(f);
    return {k * s.d1 - (f - m) / v, 1.0 / v - k * s.d2};
  }
};

// The mode of the concave phi: Newton's method kept inside the bracket [lo, hi] with
// phi'(lo) >= 0 >= phi'(hi) (bisection when a step leaves it, or when after three steps a step
// is more than half the one before: Newton creeping down a steep wall, as on a Poisson site's
// e^f, gains one unit per step). Returns the mode and -phi''; NumericalError when 200 steps do
// not find it.
std::pair<double, double> find_mode(const LogTilted& phi) {
  auto [g, c] = phi.slope(phi.m);
  double f = phi.m;
  if (!std::isfinite(g) || !std::isfinite(c))
    throw NumericalError(
        "tilted_power_moments",
        "the log-likelihood's derivatives are not finite at f = " + std::to_string(f));
  // phi' <= phi'(m) - (f - m) / spread for f > m, so the root lies in
  // [m, m + spread phi'(m)] when phi'(m) > 0, and in the mirror bracket otherwise.
  double lo = g >= 0 ? f : f + phi.spread * g, hi = g >= 0 ? f + phi.spread * g : f;
  double previous = std::numeric_limits<double>::infinity();
  for (int it = 0; it < 200 && g != 0.0; ++it) {
    double next = f + g / c;
    if (!(next > lo && next < hi) || (it >= 3 && std::fabs(next - f) > 0.5 * previous))
      next = 0.5 * (lo + hi);
    const auto [g_next, c_next] = phi.slope(next);
    previous = std::fabs(next - f);
    if (!std::isfinite(g_next) || !std::isfinite(c_next)) {
      // Beyond where l' can be evaluated (e^f overflows): the mode lies between f and next.
      (next > f ? hi : lo) = next;
      continue;
    }
    const double width = 1.0 / std::sqrt(c);
    f = next;
    g = g_next;
    c = c_next;
    (g > 0 ? lo : hi) = f;
    // Quadratic convergence: after a step of 1e-6 widths the error is ~1e-12 widths.
    if (previous <= 1e-6 * width || hi - lo <= 1e-15 * (std::fabs(lo) + std::fabs(hi)))
      return {f, c};
  }
  if (g == 0.0) return {f, c};
  throw NumericalError("tilted_power_moments",
                       "the mode of the tilted density was not found in 200 steps (m = " +
                           std::to_string(phi.m) + ", v = " + std::to_string(phi.v) + ")");
}

// Distance d > 0 from the mode in direction dir where phi has dropped by kDrop..kDrop+slack.
// h(d) = phi(f* + dir d) - phi* + kDrop is concave and decreasing in d, h(0) = kDrop > 0 and
// h(cap) <= 0 at cap = sqrt(2 kDrop spread) (phi'' <= -1/spread): Newton's method kept inside
// that bracket. A Newton iterate from a point with h <= 0 stays there and approaches the root
// monotonically; the first iterate from h > 0 is capped at cap. Bisection where an iterate
// leaves the bracket or is not finite (phi = -inf where e^f overflows), and where after three
// steps a step is more than half the one before: Newton creeping back up a steep wall (a
// Poisson site's -e^f far beyond the limit gains one unit per step).
double find_limit(const LogTilted& phi, double mode, double top, double width, int dir) {
  const double cap = std::sqrt(2.0 * kDrop * phi.spread);
  double lo = 0.0, hi = cap;
  double d = std::min(std::sqrt(2.0 * kDrop) * width, cap);
  double previous = std::numeric_limits<double>::infinity();
  for (int it = 0; it < 100; ++it) {
    const double f = mode + dir * d;
    const double h = phi.value(f) - top + kDrop;
    if (h <= 0 && h >= -kDropSlack) break;
    if (h > 0) {
      lo = d;
    } else {
      hi = d;  // below the band, or not finite: beyond the limit
    }
    const double dh = dir * phi.slope(f).first;  // < 0
    double next = d - h / dh;
    if (h > 0) next = std::min(next, cap);
    if (h > 0 && d == cap) break;  // rounding: phi cannot lie above its bound
    if (!(next > lo && next <= hi) || (it >= 3 && std::fabs(next - d) > 0.5 * previous))
      next = 0.5 * (lo + hi);
    previous = std::fabs(next - d);
    d = next;
  }
  return d;
}

// A point of a piece: f, phi'(f) and -phi''(f).
struct Point {
  double f, g, c;
  // The length scale of log T_k at f: the Laplace width at the mode, 1/|phi'| in a tail.
  double width() const { return 1.0 / std::sqrt(c + g * g); }
};

// Moments of d = f - mode under e^{phi - top}: sums of w e, w e d, w e d^2; with `rule`, every
// node f and its weight w e as well.
struct Sums {
  double m0 = 0, m1 = 0, m2 = 0;
  double mode = 0;  // the reference of d
  TiltedRule* rule = nullptr;
};

class Integrator {
 public:
  Integrator(const LogTilted& phi, double mode, double top, bool find_transitions)
      : phi_(phi), mode_(mode), top_(top), find_transitions_(find_transitions) {}
  Point at(double f) const {
    const auto [g, c] = phi_.slope(f);
    return {f, g, c};
  }
  // A piece [a, b] (a.f < b.f) on which phi is monotone. When the curvature at its ends
  // differs by more than kCurvatureRatio, phi changes scale inside it (e.g. the probit's
  // transition far from the mode): it is split where log(-phi'') crosses the mean of its end
  // values (found by bisection) and each half treated alike, up to kMaxSplits deep.
  void piece(const Point& a, const Point& b, int depth, Sums& sums) const {
    if (find_transitions_ && depth < kMaxSplits &&
        std::fabs(std::log(a.c / b.c)) > std::log(kCurvatureRatio)) {
      const double target = 0.5 * (std::log(a.c) + std::log(b.c));
      const bool a_above = std::log(a.c) > target;
      double lo = a.f, hi = b.f;
      for (int it = 0; it < kSplitBisections; ++it) {
        const double mid = 0.5 * (lo + hi);
        ((std::log(phi_.slope(mid).second) > target) == a_above ? lo : hi) = mid;
      }
      const Point p = at(0.5 * (lo + hi));
      piece(a, p, depth + 1, sums);
      piece(p, b, depth + 1, sums);
      return;
    }
    graded(a, b, sums);
  }

 private:
  // Each half of [a, b] by Gauss-Legendre panels of length <= kPanel in t, f = e +- s_e sinh(t)
  // from its outer end e with that end's length scale s_e: nodes dense where log T_k varies
  // fastest (at the mode, at a transition, or in a steep tail), geometrically sparser inward.
  void graded(const Point& a, const Point& b, Sums& sums) const {
    // One scale (curvature within kSingleScaleRatio): one pass from the end nearer the mode,
    // where the density is larger, with the full rule.
    if (std::max(a.c, b.c) <= kSingleScaleRatio * std::min(a.c, b.c)) {
      if (b.f <= mode_)
        graded_half(b.f, b.width(), a.f - b.f, sums, kNodes);
      else
        graded_half(a.f, a.width(), b.f - a.f, sums, kNodes);
      return;
    }
    const double half = 0.5 * (b.f - a.f);
    const int nodes = find_transitions_ ? kNodes : kNodesKnownTransitions;
    graded_half(a.f, a.width(), half, sums, nodes);
    graded_half(b.f, b.width(), -half, sums, nodes);
  }
  void graded_half(double e, double s, double length, Sums& sums, int nodes) const {
    const double dir = length > 0 ? 1.0 : -1.0;
    const double t_max = std::asinh(std::fabs(length) / s);
    const int panels = std::max(1, static_cast<int>(std::ceil(t_max / kPanel)));
    const double h = t_max / panels;
    const LegendreRule& rule = legendre(nodes);
    std::array<double, kNodes> f, l, jac;
    for (int p = 0; p < panels; ++p) {
      for (int j = 0; j < rule.n; ++j) {
        const double et = std::exp((p + rule.x[j]) * h);  // sinh, cosh from one exp
        f[j] = e + dir * s * 0.5 * (et - 1.0 / et);
        jac[j] = rule.w[j] * h * s * 0.5 * (et + 1.0 / et);
      }
      phi_.site.values(f.data(), l.data(), static_cast<std::size_t>(rule.n));
      for (int j = 0; j < rule.n; ++j) {
        const double w = jac[j] * std::exp(phi_.at(f[j], l[j]) - top_), d = f[j] - mode_;
        sums.m0 += w;
        sums.m1 += w * d;
        sums.m2 += w * d * d;
        if (sums.rule) {
          sums.rule->nodes.push_back(f[j]);
          sums.rule->weights.push_back(w);
        }
      }
    }
  }

  const LogTilted& phi_;
  double mode_, top_;
  bool find_transitions_;
};

}  // namespace

TiltedPowerSite::~TiltedPowerSite() = default;

void check_tilted_power_arguments(double m, double v, int k) {
  if (k < 0)
    throw std::invalid_argument("tilted_moments_power: the occupation k must be >= 0, got " +
                                std::to_string(k));
  // A cavity that is not finite comes from a solver's iterate, not from the caller's code: a
  // numerical state the solver can undo or report as its status.
  if (!(v > 0) || !std::isfinite(v) || !std::isfinite(m))
    throw NumericalError("tilted_moments_power",
                         "need a finite cavity mean and variance v > 0, got m = " +
                             std::to_string(m) + ", v = " + std::to_string(v));
}

namespace {

// The quadrature of tilted_power_moments into `sums`; returns log Z_k.
double integrate(const TiltedPowerSite& site, double m, double v, int k, double curvature_bound,
                 Sums& sums) {
  check_tilted_power_arguments(m, v, k);
  if (k < 1) throw std::invalid_argument("tilted_power_moments: k must be >= 1");
  if (!(k * v * curvature_bound < 1.0))
    throw std::invalid_argument(
        "tilted_power_moments: the tilted density is not log-concave (k v b = " +
        std::to_string(k * v * curvature_bound) + " >= 1)");
  // 1 / (1/v - k b), exactly v for a concave l.
  const double spread = curvature_bound > 0 ? 1.0 / (1.0 / v - k * curvature_bound) : v;
  const LogTilted phi{site, m, v, static_cast<double>(k), spread};
  const auto [mode, curvature] = find_mode(phi);
  sums.mode = mode;
  const double top = phi.value(mode);
  if (!std::isfinite(top))
    throw NumericalError("tilted_power_moments",
                         "log T_k is not finite at its mode f = " + std::to_string(mode));
  const double width = 1.0 / std::sqrt(curvature);
  // The cuts: the limits, the mode and the site's transition points between them.
  std::array<double, TiltedPowerSite::kMaxTransitions + 3> cuts;
  std::size_t n = 0;
  cuts[n++] = mode - find_limit(phi, mode, top, width, -1);
  cuts[n++] = mode;
  cuts[n++] = mode + find_limit(phi, mode, top, width, 1);
  std::array<double, TiltedPowerSite::kMaxTransitions> points;
  const int known = site.transitions(points.data());
  for (int i = 0; i < known; ++i)
    if (points[i] > cuts[0] && points[i] < cuts[2] && points[i] != mode) cuts[n++] = points[i];
  for (std::size_t i = 1; i < n; ++i)  // insertion sort of at most 7 cuts
    for (std::size_t j = i; j > 0 && cuts[j] < cuts[j - 1]; --j) std::swap(cuts[j], cuts[j - 1]);
  const Integrator integrator(phi, mode, top, known < 0);
  Point a = integrator.at(cuts[0]);
  for (std::size_t i = 1; i < n; ++i) {
    const Point b = cuts[i] == mode ? Point{mode, 0.0, curvature} : integrator.at(cuts[i]);
    integrator.piece(a, b, 0, sums);
    a = b;
  }
  // Z_k = int e^phi df / sqrt(2 pi v).
  return top + std::log(sums.m0) - 0.5 * std::log(2.0 * M_PI * v);
}

}  // namespace

TiltedMoments tilted_power_moments(const TiltedPowerSite& site, double m, double v, int k,
                                   double curvature_bound) {
  Sums sums;
  const double log_z = integrate(site, m, v, k, curvature_bound, sums);
  const double shift = sums.m1 / sums.m0;
  TiltedMoments out;
  out.log_z = log_z;
  out.mean = sums.mode + shift;
  out.variance = std::max(sums.m2 / sums.m0 - shift * shift, 0.0);
  return out;
}

TiltedRule tilted_power_rule(const TiltedPowerSite& site, double m, double v, int k,
                             double curvature_bound) {
  TiltedRule rule;
  Sums sums;
  sums.rule = &rule;
  rule.log_z = integrate(site, m, v, k, curvature_bound, sums);
  for (double& w : rule.weights) w /= sums.m0;
  return rule;
}

TiltedMoments TiltedRule::moments() const {
  double mean = 0;
  for (std::size_t j = 0; j < nodes.size(); ++j) mean += weights[j] * nodes[j];
  double variance = 0;
  for (std::size_t j = 0; j < nodes.size(); ++j)
    variance += weights[j] * (nodes[j] - mean) * (nodes[j] - mean);
  return {log_z, mean, variance};
}

}  // namespace quench
