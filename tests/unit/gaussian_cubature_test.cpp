// The symmetric and product cubature rules against the moments of N(0, I_r): every monomial
// up to the rule's degree integrates exactly, and the first degree beyond it does not (so the
// test would see a rule of lower degree).
#include <cmath>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "quench/gaussian_cubature.h"

namespace quench::gaussian_cubature_test {
namespace {

// E[prod_i Z_i^p_i] for independent N(0, 1): prod_i (p_i - 1)!! over even p_i, 0 if any is odd.
double normal_moment(const std::vector<int>& powers) {
  double m = 1.0;
  for (const int p : powers) {
    if (p % 2 == 1) return 0.0;
    for (int k = p - 1; k > 0; k -= 2) m *= k;
  }
  return m;
}

double rule_moment(const GaussianCubature& c, const std::vector<int>& powers) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < c.nodes.cols(); ++j) {
    double term = c.weights(j);
    for (std::size_t i = 0; i < powers.size(); ++i)
      term *= std::pow(c.nodes(static_cast<Eigen::Index>(i), j), powers[i]);
    s += term;
  }
  return s;
}

// Every exponent vector of r coordinates with total degree <= degree.
void for_each_monomial(int r, int degree, const std::function<void(const std::vector<int>&)>& f) {
  std::vector<int> p(static_cast<std::size_t>(r), 0);
  std::function<void(int, int)> rec = [&](int i, int left) {
    if (i == r) {
      f(p);
      return;
    }
    for (int e = 0; e <= left; ++e) {
      p[static_cast<std::size_t>(i)] = e;
      rec(i + 1, left - e);
    }
    p[static_cast<std::size_t>(i)] = 0;
  };
  rec(0, degree);
}

void expect_exact_to_degree(const GaussianCubature& c, int r, int degree) {
  ASSERT_EQ(c.nodes.rows(), r);
  EXPECT_NEAR(c.weights.sum(), 1.0, 1e-14);
  for_each_monomial(r, degree, [&](const std::vector<int>& p) {
    const double exact = normal_moment(p);
    EXPECT_NEAR(rule_moment(c, p), exact, 1e-12 * (1.0 + exact)) << "r=" << r;
  });
}

TEST(GaussianCubature, Degree3RuleIsExactToDegree3AndNotBeyond) {
  for (int r = 1; r <= 7; ++r) {
    const GaussianCubature c = symmetric_cubature_3(r);
    EXPECT_EQ(c.nodes.cols(), 2 * r);
    expect_exact_to_degree(c, r, 3);
    std::vector<int> p(static_cast<std::size_t>(r), 0);
    p[0] = 4;  // E[Z^4] = 3, the rule gives r
    if (r != 3) EXPECT_GT(std::abs(rule_moment(c, p) - 3.0), 0.5);
    if (r >= 2) {  // E[Z1^2 Z2^2] = 1, the rule gives 0 (no node off the axes)
      p[0] = p[1] = 2;
      EXPECT_GT(std::abs(rule_moment(c, p) - 1.0), 0.5);
    }
  }
}

TEST(GaussianCubature, Degree5RuleIsExactToDegree5AndNotBeyond) {
  for (int r = 1; r <= 7; ++r) {
    const GaussianCubature c = symmetric_cubature_5(r);
    EXPECT_EQ(c.nodes.cols(), 2 * r * r + 1);
    expect_exact_to_degree(c, r, 5);
    std::vector<int> p(static_cast<std::size_t>(r), 0);
    p[0] = 6;  // E[Z^6] = 15; the rule gives (r + 2)(7 - r) / 2
    EXPECT_GT(std::abs(rule_moment(c, p) - 15.0), 0.5) << "r=" << r;
  }
}

TEST(GaussianCubature, ProductRuleIsTheGaussHermiteRuleInEveryCoordinate) {
  const GaussianCubature c = product_gauss_hermite(3, 4);
  EXPECT_EQ(c.nodes.cols(), 64);
  // Degree 2n - 1 = 7 in each coordinate: Z1^6 Z2^4 Z3^2 is exact (15 * 3 * 1).
  EXPECT_NEAR(rule_moment(c, {6, 4, 2}), 45.0, 1e-11);
  expect_exact_to_degree(c, 3, 7);
  EXPECT_GT(std::abs(rule_moment(c, {8, 0, 0}) - 105.0), 1.0);
}

TEST(GaussianCubature, ZeroDimensionsIsOneNode) {
  for (const GaussianCubature& c :
       {symmetric_cubature_3(0), symmetric_cubature_5(0), product_gauss_hermite(0, 5)}) {
    EXPECT_EQ(c.nodes.rows(), 0);
    ASSERT_EQ(c.weights.size(), 1);
    EXPECT_EQ(c.weights(0), 1.0);
  }
}

}  // namespace
}  // namespace quench::gaussian_cubature_test
