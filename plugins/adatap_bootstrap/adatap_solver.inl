// Implementation of the loss template of adatap_solver.h.
#include <algorithm>
#include <cmath>

namespace quench::adatap {

// Eq 54 by composite Simpson in u on [-10, 10] (2000 intervals): exact enough for losses
// with kinks such as the epsilon-insensitive loss, where Gauss-Hermite converges slowly.
template <class Loss>
double test_error(const Solution& sol, const Eigen::VectorXd& y, Loss loss) {
  constexpr int intervals = 2000;
  constexpr double range = 10.0, h = 2 * range / intervals;
  const double norm = 1.0 / std::sqrt(2 * M_PI);
  double total = 0;
  const Eigen::Index n = y.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    const double mu = sol.gammac(i) / sol.dlc(i) - y(i);
    const double sd = std::sqrt(std::max(0.0, -sol.lamc(i))) / sol.dlc(i);
    if (sd == 0) {
      total += loss(mu);
      continue;
    }
    double acc = 0;
    for (int q = 0; q <= intervals; ++q) {
      const double u = -range + q * h;
      const double w = (q == 0 || q == intervals) ? 1 : (q % 2 ? 4 : 2);
      acc += w * norm * std::exp(-0.5 * u * u) * loss(mu + sd * u);
    }
    total += acc * h / 3;
  }
  return total / static_cast<double>(n);
}

}  // namespace quench::adatap
