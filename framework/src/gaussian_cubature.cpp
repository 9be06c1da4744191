#include "quench/gaussian_cubature.h"

#include <cmath>
#include <string>

#include "quench/errors.h"
#include "quench/gauss_hermite.h"

namespace quench {

namespace {

void require_dimension(int r, const char* who) {
  if (r < 0) throw NumericalError(who, "the dimension must be >= 0, got " + std::to_string(r));
}

GaussianCubature origin_only(int r) {
  return {Eigen::MatrixXd::Zero(r, 1), Eigen::VectorXd::Ones(1)};
}

}  // namespace

GaussianCubature symmetric_cubature_3(int r) {
  require_dimension(r, "symmetric_cubature_3");
  if (r == 0) return origin_only(0);
  GaussianCubature c{Eigen::MatrixXd::Zero(r, 2 * r), Eigen::VectorXd::Constant(2 * r, 0.5 / r)};
  const double a = std::sqrt(static_cast<double>(r));
  for (int i = 0; i < r; ++i) {
    c.nodes(i, 2 * i) = a;
    c.nodes(i, 2 * i + 1) = -a;
  }
  return c;
}

GaussianCubature symmetric_cubature_5(int r) {
  require_dimension(r, "symmetric_cubature_5");
  if (r == 0) return origin_only(0);
  const double d = r + 2.0;
  const int n = 2 * r * r + 1;
  GaussianCubature c{Eigen::MatrixXd::Zero(r, n), Eigen::VectorXd(n)};
  int j = 0;
  c.weights(j++) = 2.0 / d;  // the origin
  const double axis = std::sqrt(d), w_axis = (4.0 - r) / (2.0 * d * d);
  for (int i = 0; i < r; ++i)
    for (const double s : {1.0, -1.0}) {
      c.nodes(i, j) = s * axis;
      c.weights(j++) = w_axis;
    }
  const double pair = std::sqrt(d / 2.0), w_pair = 1.0 / (d * d);
  for (int i = 0; i < r; ++i)
    for (int k = i + 1; k < r; ++k)
      for (const double si : {1.0, -1.0})
        for (const double sk : {1.0, -1.0}) {
          c.nodes(i, j) = si * pair;
          c.nodes(k, j) = sk * pair;
          c.weights(j++) = w_pair;
        }
  return c;
}

GaussianCubature product_gauss_hermite(int r, int n) {
  require_dimension(r, "product_gauss_hermite");
  const GaussHermiteRule& rule = gauss_hermite(n);
  const double points = std::pow(static_cast<double>(n), r);
  if (points > 1e6)
    throw NumericalError("product_gauss_hermite",
                         std::to_string(n) + "^" + std::to_string(r) + " points exceed 10^6");
  const auto count = static_cast<Eigen::Index>(points);
  GaussianCubature c{Eigen::MatrixXd(r, count), Eigen::VectorXd(count)};
  for (Eigen::Index j = 0; j < count; ++j) {  // j's base-n digits index the coordinates' nodes
    Eigen::Index rest = j;
    double w = 1.0;
    for (int i = 0; i < r; ++i) {
      const auto digit = static_cast<std::size_t>(rest % n);
      rest /= n;
      c.nodes(i, j) = rule.nodes[digit];
      w *= rule.weights[digit];
    }
    c.weights(j) = w;
  }
  return c;
}

}  // namespace quench
