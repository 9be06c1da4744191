// The Gibbs sampler in the lambda -> 0 limit against closed-form Bayesian linear regression:
// with tau_j^2 -> infinity the prior beta | s2 ~ N(0, s2 D_tau) keeps only its s2^(-p/2)
// factor, so with pi(s2) = 1/s2 and the flat intercept integrated out,
//   beta | y ~ t_{n-1}(beta_OLS, SSR/(n-1) (X^T X)^-1)  (centred X, y),
// with mean beta_OLS and variance SSR/(n-3) (X^T X)^-1.
#include <cmath>

#include <gtest/gtest.h>
#include <Eigen/Cholesky>
#include <Eigen/LU>

#include "bayesian_lasso.h"
#include "quench/rng.h"

namespace quench::bayesian_lasso {
namespace {

// Batch-means standard error of the mean of a chain (20 batches).
double batch_se(const Eigen::VectorXd& x) {
  const Eigen::Index B = 20, m = x.size() / B;
  Eigen::VectorXd means(B);
  for (Eigen::Index b = 0; b < B; ++b) means(b) = x.segment(b * m, m).mean();
  return std::sqrt((means.array() - means.mean()).square().sum() / (B - 1) / B);
}

TEST(BayesianLasso, SmallLambdaLimitIsBayesianLinearRegression) {
  RngStream rng(21, 0);
  const int n = 40, p = 4;
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < p; ++j) X(i, j) = rng.normal();
    y(i) = 2 + X(i, 0) - 0.5 * X(i, 1) + 0.8 * rng.normal();
  }
  GibbsOptions o;
  o.draws = 20000;
  o.burn_in = 500;
  o.lambda = 1e-4;
  o.seed = 5;
  const GibbsDraws d = bayesian_lasso_gibbs(X, y, o);

  const Eigen::MatrixXd Xc = X.rowwise() - X.colwise().mean();
  const Eigen::VectorXd yc = y.array() - y.mean();
  const Eigen::MatrixXd XtX = Xc.transpose() * Xc;
  const Eigen::VectorXd ols = XtX.ldlt().solve(Xc.transpose() * yc);
  const double ssr = (yc - Xc * ols).squaredNorm();
  const Eigen::VectorXd var = (ssr / (n - 3.0)) * XtX.inverse().diagonal();
  for (int j = 0; j < p; ++j) {
    const Eigen::VectorXd b = d.beta.col(j);
    EXPECT_NEAR(b.mean(), ols(j), 4 * batch_se(b)) << j;
    const double sd = std::sqrt((b.array() - b.mean()).square().mean());
    // The sd of a sample sd is about sd / sqrt(2 T_eff); 5 % covers T_eff >= 2000 at 3 sigma.
    EXPECT_NEAR(sd, std::sqrt(var(j)), 0.05 * std::sqrt(var(j))) << j;
  }
  // sigma^2 | y ~ InvGamma((n-1)/2, SSR/2): mean SSR / (n - 3).
  EXPECT_NEAR(d.sigma2.mean(), ssr / (n - 3.0), 4 * batch_se(d.sigma2));
}

}  // namespace
}  // namespace quench::bayesian_lasso
