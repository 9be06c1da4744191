// The function a k-th order trend filter estimates, evaluated between and beyond its design
// points: the discrete spline of degree k with knots at the design points x_1 < ... < x_n that
// takes the fitted values theta_i at x_i (Tibshirani 2014, Sec. 4; Wang, Smola & Tibshirani
// 2014, the falling factorial basis h_j(x) = prod_{l<j} (x - x_l) for j <= k + 1 and
// h_{k+1+j}(x) = prod_{l=1..k} (x - x_{j+l}) 1{x > x_{j+k}}). Each basis function beyond the
// first k + 1 switches on at x_{j+k} and vanishes at the k points before it, so on
// (x_m, x_{m+1}] the spline is the degree-k polynomial through the fitted values at
// x_{m-k+1}, ..., x_{m+1} (at x <= x_{k+1}: through x_1, ..., x_{k+1}; beyond x_n the last
// piece, through x_{n-k}, ..., x_n, continues). That local form is what is evaluated here: the
// same function as solving the lower-triangular basis system H alpha = theta and summing
// alpha_j h_j(x), without the cancellation of the global sum. Order 0: the fitted value at the
// right end of the interval; order 1: linear interpolation (linear extrapolation outside).
#pragma once

#include <string>

#include <Eigen/Core>

namespace quench::wbb {

/// The value at x is weights . theta.segment(first, order + 1).
struct SplineStencil {
  Eigen::Index first = 0;
  Eigen::VectorXd weights;
};

class DiscreteSpline {
 public:
  /// positions: strictly increasing, at least order + 1 of them (see check_positions).
  DiscreteSpline(Eigen::VectorXd positions, int order);

  /// Lagrange weights of the piece that contains x: exactly 1 at a design point and 0 at the
  /// other points of its stencil, so the spline reproduces the fitted values there.
  SplineStencil stencil(double x) const;
  int order() const { return order_; }
  Eigen::Index size() const { return x_.size(); }

 private:
  Eigen::VectorXd x_;
  int order_;
};

/// Why the n x d training inputs X cannot be a trend filter's design points, or "" when they
/// can: the trend filter of 004 Sec. 3.3 treats y as ordered 1..n with the unit-spaced
/// D^(k+1), so a spline in x needs one input column, strictly increasing and equally spaced
/// (to 1e-6 of the mean spacing), with at least k + 1 rows.
std::string check_positions(const Eigen::MatrixXd& X, int order);

}  // namespace quench::wbb
