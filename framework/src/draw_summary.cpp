#include "quench/draw_summary.h"

#include <algorithm>
#include <cmath>

#include "quench/rng.h"

namespace quench {

double quantile(Eigen::VectorXd v, double q) {
  const Eigen::Index n = v.size();
  if (n == 0) return NAN;
  std::sort(v.data(), v.data() + n);
  const double h = (static_cast<double>(n) - 1) * q;
  const auto lo = static_cast<Eigen::Index>(std::floor(h));
  const Eigen::Index hi = std::min(lo + 1, n - 1);
  return v(lo) + (h - static_cast<double>(lo)) * (v(hi) - v(lo));
}

DrawSummary summarize_draws(const Eigen::MatrixXd& draws, double level) {
  const Eigen::Index T = draws.rows(), p = draws.cols();
  DrawSummary s;
  s.mean = draws.colwise().mean().transpose();
  s.sd.resize(p);
  s.median.resize(p);
  s.lower.resize(p);
  s.upper.resize(p);
  s.zero_fraction.resize(p);
  for (Eigen::Index j = 0; j < p; ++j) {
    const Eigen::VectorXd c = draws.col(j);
    s.sd(j) = T > 1 ? std::sqrt((c.array() - s.mean(j)).square().sum() / double(T - 1)) : 0.0;
    s.median(j) = quantile(c, 0.5);
    s.lower(j) = quantile(c, (1 - level) / 2);
    s.upper(j) = quantile(c, (1 + level) / 2);
    s.zero_fraction(j) = (c.array() == 0.0).cast<double>().mean();
  }
  return s;
}

Eigen::VectorXd kernel_density(const Eigen::VectorXd& x, const Eigen::VectorXd& grid) {
  const auto T = static_cast<double>(x.size());
  const double mean = x.mean();
  const double sd = std::sqrt((x.array() - mean).square().sum() / std::max(T - 1, 1.0));
  const double iqr = quantile(x, 0.75) - quantile(x, 0.25);
  double spread = std::min(sd, iqr / 1.34);
  if (spread <= 0) spread = sd > 0 ? sd : 1e-3 * (std::abs(mean) + 1);
  const double h = 0.9 * spread * std::pow(T, -0.2);
  Eigen::VectorXd f(grid.size());
  for (Eigen::Index g = 0; g < grid.size(); ++g)
    f(g) =
        ((-0.5 * ((x.array() - grid(g)) / h).square()).exp()).sum() / (T * h * std::sqrt(2 * M_PI));
  return f;
}

Eigen::VectorXd exponential_draws(RngStream& rng, Eigen::Index n) {
  Eigen::VectorXd w(n);
  for (Eigen::Index i = 0; i < n; ++i) w(i) = -std::log(rng.uniform());
  return w;
}

}  // namespace quench
