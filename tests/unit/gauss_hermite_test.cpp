// Gauss-Hermite rule against the moments of N(0, 1).
#include <cmath>

#include <gtest/gtest.h>

#include "quench/gauss_hermite.h"

namespace quench::gauss_hermite_test {
namespace {

TEST(GaussHermite, IntegratesNormalMomentsExactly) {
  const auto& rule = gauss_hermite(20);
  // An n-point rule is exact for polynomials up to degree 2n - 1: E[Z^2k] = (2k - 1)!!.
  double double_factorial = 1;
  for (int k = 0; k <= 8; ++k) {
    if (k > 0) double_factorial *= 2 * k - 1;
    double even = 0, odd = 0;
    for (std::size_t j = 0; j < rule.nodes.size(); ++j) {
      even += rule.weights[j] * std::pow(rule.nodes[j], 2 * k);
      odd += rule.weights[j] * std::pow(rule.nodes[j], 2 * k + 1);
    }
    EXPECT_NEAR(even, double_factorial, 1e-10 * double_factorial) << "k=" << k;
    EXPECT_NEAR(odd, 0.0, 1e-9 * double_factorial);
  }
  // E[cos Z] = exp(-1/2): smooth non-polynomial integrand.
  double c = 0;
  for (std::size_t j = 0; j < rule.nodes.size(); ++j)
    c += rule.weights[j] * std::cos(rule.nodes[j]);
  EXPECT_NEAR(c, std::exp(-0.5), 1e-12);
}

}  // namespace
}  // namespace quench::gauss_hermite_test
