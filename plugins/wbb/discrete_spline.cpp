#include "discrete_spline.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "quench/errors.h"

namespace quench::wbb {

DiscreteSpline::DiscreteSpline(Eigen::VectorXd positions, int order)
    : x_(std::move(positions)), order_(order) {
  if (order_ < 0 || x_.size() < order_ + 1)
    throw ConfigError({}, "a discrete spline of order " + std::to_string(order_) +
                              " needs at least " + std::to_string(order_ + 1) +
                              " design points, got " + std::to_string(x_.size()));
}

SplineStencil DiscreteSpline::stencil(double x) const {
  const Eigen::Index n = x_.size(), k = order_;
  // m = #{x_i < x}: x lies in (x_m, x_{m+1}] (1-based); its piece interpolates the k + 1 points
  // ending at x_{m+1}, the first piece for m <= k, the last one beyond x_n.
  const Eigen::Index m = std::lower_bound(x_.data(), x_.data() + n, x) - x_.data();
  SplineStencil s;
  s.first = std::clamp<Eigen::Index>(m - k, 0, n - k - 1);
  s.weights.resize(k + 1);
  for (Eigen::Index j = 0; j <= k; ++j) {
    const double xj = x_(s.first + j);
    double w = 1.0;
    for (Eigen::Index l = 0; l <= k; ++l)
      if (l != j) w *= (x - x_(s.first + l)) / (xj - x_(s.first + l));
    s.weights(j) = w;
  }
  return s;
}

std::string check_positions(const Eigen::MatrixXd& X, int order) {
  if (X.cols() != 1)
    return "it needs one input column (the positions of the y values), got " +
           std::to_string(X.cols());
  const Eigen::Index n = X.rows();
  if (n < order + 1)
    return "order " + std::to_string(order) + " needs at least " + std::to_string(order + 1) +
           " training rows, got " + std::to_string(n);
  if (n == 1) return "";
  const double spacing = (X(n - 1, 0) - X(0, 0)) / static_cast<double>(n - 1);
  for (Eigen::Index i = 1; i < n; ++i) {
    const double step = X(i, 0) - X(i - 1, 0);
    if (!(step > 0))
      return "its training inputs must increase strictly in row order (row " +
             std::to_string(i + 1) + " does not)";
    if (!(std::abs(step - spacing) <= 1e-6 * spacing))
      return "its training inputs must be equally spaced (the unit-spaced D^(k+1) of 004 Sec. "
             "3.3); rows " +
             std::to_string(i) + " and " + std::to_string(i + 1) + " are " + std::to_string(step) +
             " apart, the mean spacing is " + std::to_string(spacing);
  }
  return "";
}

}  // namespace quench::wbb
