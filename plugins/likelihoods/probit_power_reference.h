// Independent dense long-double quadrature of the probit's k-fold tilted moments
// Phi(g / sigma)^k N(g; mu, v) / Z_k (g = y f), shared by probit_power_test and
// quench_bench_tilted: tanh-sinh pieces cut at the mode (found by bisection) and at the step
// g = 0. Converged to 1e-13 (probit_power_test, DenseReferenceHasConverged).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace quench::likelihoods::power_reference {

using ld = long double;

// log Phi(z) in long double: from erfc down to z = -100, below it the asymptotic series
// log D(z) - log(-z) + log(1 - z^-2 + 3 z^-4 - 15 z^-6 + 105 z^-8) (next term 945 z^-10 <
// 1e-17).
inline ld log_phi(ld z) {
  if (z > 0) return std::log1p(-0.5L * std::erfc(z / std::sqrt(2.0L)));
  if (z > -100) return std::log(0.5L * std::erfc(-z / std::sqrt(2.0L)));
  const ld q = 1 / (z * z);
  return -0.5L * z * z - 0.5L * std::log(2 * M_PIl) - std::log(-z) +
         std::log1p(q * (-1 + q * (3 + q * (-15 + q * 105))));
}
// r(z) = D(z) / Phi(z).
inline ld mills(ld z) { return std::exp(-0.5L * z * z - 0.5L * std::log(2 * M_PIl) - log_phi(z)); }

struct Ref {
  ld log_z, mean, var;
};

// Sums of e^{phi(g) - top} (g - c)^j, j = 0, 1, 2, over [a, b] by the tanh-sinh rule
// g = a + (b - a) / (1 + e^{-2u}), u = (pi/2) sinh t, t in [-4.5, 4.5] with n steps: nodes
// cluster doubly exponentially at both ends, so a feature at an end (the step of Phi^k at
// g = 0, the mode) is resolved at any scale; spectrally accurate for an analytic integrand.
template <class Phi>
void tanh_sinh(const Phi& phi, ld a, ld b, ld c, ld top, long n, ld* sums) {
  const ld T = 4.5L, dt = 2 * T / n, L = b - a;
  for (long i = 1; i < n; ++i) {
    const ld t = -T + i * dt, u = M_PI_2l * std::sinh(t);
    const ld from_a = L / (1 + std::exp(-2 * u)), from_b = L / (1 + std::exp(2 * u));
    const ld g = u < 0 ? a + from_a : b - from_b;
    const ld w = 2 * L * M_PI_2l * std::cosh(t) / ((1 + std::exp(-2 * u)) * (1 + std::exp(2 * u)));
    const ld e = std::exp(phi(g) - top) * w * dt;
    sums[0] += e;
    sums[1] += e * (g - c);
    sums[2] += e * (g - c) * (g - c);
  }
}

// Phi(g / sigma)^k N(g; mu, v) in g = y f. The mode is found by bisection on phi' = k r(g /
// sigma) / sigma - (g - mu) / v (positive at mu, negative beyond mu + k v r(mu / sigma) /
// sigma), with the Laplace width s there; R = 40 (sqrt v + s) is where phi has dropped by >= 800
// (phi'' <= -1/v). [mode - R, mode + R] is cut at the mode and at g = 0 (the step of Phi^k) and
// every piece integrated by tanh-sinh with n steps.
inline Ref dense_probit(double mu, double v, int k, double sigma, long n = 1L << 12) {
  const ld kk = k, sg = sigma, vv = v, mm = mu;
  auto phi = [&](ld g) { return kk * log_phi(g / sg) - (g - mm) * (g - mm) / (2 * vv); };
  auto dphi = [&](ld g) { return kk * mills(g / sg) / sg - (g - mm) / vv; };
  ld lo = mm, hi = mm + vv * kk * mills(mm / sg) / sg;
  for (int i = 0; i < 200; ++i) (dphi(0.5L * (lo + hi)) > 0 ? lo : hi) = 0.5L * (lo + hi);
  const ld mode = 0.5L * (lo + hi), z = mode / sg, r = mills(z);
  const ld s = 1 / std::sqrt(kk * r * (z + r) / (sg * sg) + 1 / vv), R = 40 * (std::sqrt(vv) + s);
  std::vector<ld> cuts = {mode - R, mode, mode + R};
  if (std::fabs(mode) < R && mode != 0) cuts.push_back(0);
  std::sort(cuts.begin(), cuts.end());
  const ld top = phi(mode);
  ld sums[3] = {0, 0, 0};
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    tanh_sinh(phi, cuts[i], cuts[i + 1], mode, top, n, sums);
  const ld shift = sums[1] / sums[0];
  return {top + std::log(sums[0]) - 0.5L * std::log(2 * M_PIl * vv), mode + shift,
          sums[2] / sums[0] - shift * shift};
}

}  // namespace quench::likelihoods::power_reference
