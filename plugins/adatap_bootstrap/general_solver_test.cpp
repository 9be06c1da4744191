// The general-likelihood ADATAP (docs/adatap_classification.md) against exact reductions: one
// training point (the cavity is the prior: exact), a deterministic occupation p_k = delta_{k,K}
// (no bootstrap randomness: EP on the data with every point repeated K times, computed here by
// an independent EP), and the Gaussian likelihood (the regression ADATAP of 000 eqs 63-66).
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include "general_solver.h"
#include "probit_likelihood.h"

namespace quench::adatap::general_solver_test {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

MatrixXd rbf(const MatrixXd& X, double amplitude, double length) {
  MatrixXd K(X.rows(), X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.rows(); ++j)
      K(i, j) =
          amplitude * std::exp(-0.5 * (X.row(i) - X.row(j)).squaredNorm() / (length * length));
  return K;
}

// Two overlapping Gaussian classes in 2-D.
struct Problem2d {
  MatrixXd X;
  VectorXd y;
  explicit Problem2d(int n, unsigned seed = 3) : X(n, 2), y(n) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> z;
    for (int i = 0; i < n; ++i) {
      y(i) = i % 2 == 0 ? 1.0 : -1.0;
      X(i, 0) = 0.8 * y(i) + z(gen);
      X(i, 1) = z(gen);
    }
  }
};

Occupation poisson(double nu, int kmax) {
  Occupation o;
  o.pmf.resize(kmax + 1);
  double p = std::exp(-nu);
  for (int k = 0; k <= kmax; ++k) {
    o.pmf(k) = p;
    p *= nu / (k + 1);
  }
  o.pmf /= o.pmf.sum();
  return o;
}

GeneralOptions tight() {
  GeneralOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 5000;
  o.threads = 1;
  return o;
}

// N = 1: the cavity of the only point is the prior N(0, K11), so the bootstrap mean of the
// posterior mean is sum_k p_k a_k with a_k the k-fold tilted mean under the prior, and its
// bootstrap variance sum_k p_k a_k^2 - mean^2 (000 eq 58 with nothing approximated).
TEST(GeneralAdatap, OneTrainingPointIsExact) {
  const likelihoods::ProbitLikelihood probit(0.3, 0.0);
  MatrixXd K(1, 1);
  K << 1.7;
  const VectorXd y = VectorXd::Constant(1, -1.0);
  const Occupation occ = poisson(1.3, 14);
  const GeneralSolution s = solve_general(K, y, probit, occ, tight());
  ASSERT_TRUE(s.converged) << s.message;
  double mean = 0, second = 0, within = 0;
  for (int k = 0; k < occ.pmf.size(); ++k) {
    const TiltedMoments t = probit.tilted_moments_power({-1.0}, 0.0, 1.7, k);
    mean += occ.pmf(k) * t.mean;
    second += occ.pmf(k) * t.mean * t.mean;
    within += occ.pmf(k) * t.variance;
  }
  EXPECT_NEAR(s.m(0), mean, 1e-10);
  EXPECT_NEAR(s.C(0), second - mean * mean, 1e-10);
  EXPECT_NEAR(s.V(0), within, 1e-10);
  EXPECT_NEAR(s.dlc(0), 1.0 / 1.7, 1e-10);  // the cavity is the prior
  EXPECT_NEAR(s.gammac(0), 0.0, 1e-10);
}

// EP for the posterior prod_i p(y_i | f_i)^{k_i} N(f; 0, K): sites N(f_i; nu_i/tau_i, 1/tau_i)
// fitted in parallel, damped, to the k_i-fold tilted moments; returns the posterior mean and
// the marginal variances.
void ep_with_counts(const MatrixXd& K, const VectorXd& y, const Likelihood& lik, int k,
                    VectorXd& mean, VectorXd& variance) {
  const Eigen::Index n = K.rows();
  VectorXd tau = VectorXd::Zero(n), nu = VectorXd::Zero(n);
  for (int it = 0; it < 20000; ++it) {
    // Sigma = (K^-1 + T)^-1 = K - K S (I + S K S)^-1 S K.
    const VectorXd s = tau.cwiseSqrt();
    MatrixXd B = s.asDiagonal() * K * s.asDiagonal();
    B.diagonal().array() += 1.0;
    const Eigen::LLT<MatrixXd> llt(B);
    const MatrixXd SK = s.asDiagonal() * K;
    const MatrixXd Sigma = K - SK.transpose() * llt.solve(SK);
    mean = Sigma * nu;
    variance = Sigma.diagonal();
    double change = 0;
    VectorXd tau_new(n), nu_new(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double cav_tau = 1.0 / variance(i) - tau(i);
      const double cav_nu = mean(i) / variance(i) - nu(i);
      const TiltedMoments t = lik.tilted_moments_power({y(i)}, cav_nu / cav_tau, 1.0 / cav_tau, k);
      tau_new(i) = std::max(1.0 / t.variance - cav_tau, 0.0);
      nu_new(i) = t.mean / t.variance - cav_nu;
      change = std::max({change, std::abs(t.mean - mean(i)), std::abs(t.variance - variance(i))});
    }
    if (change < 1e-13) return;
    tau = 0.5 * tau + 0.5 * tau_new;
    nu = 0.5 * nu + 0.5 * nu_new;
  }
  FAIL() << "reference EP did not converge";
}

// p_k = delta_{k,K}: every resample is the data with each point K times, so the bootstrap
// variance vanishes (lambda = 0) and the replica fixed point is EP on that data.
TEST(GeneralAdatap, DeterministicOccupationIsEpOnRepeatedData) {
  const Problem2d d(25);
  const MatrixXd K = rbf(d.X, 2.0, 1.2);
  const likelihoods::ProbitLikelihood probit(0.2, 0.0);
  for (int k : {1, 2, 3}) {
    Occupation occ;
    occ.pmf = VectorXd::Zero(k + 1);
    occ.pmf(k) = 1.0;
    const GeneralSolution s = solve_general(K, d.y, probit, occ, tight());
    ASSERT_TRUE(s.converged) << s.message;
    VectorXd mean, variance;
    ep_with_counts(K, d.y, probit, k, mean, variance);
    EXPECT_LT((s.m - mean).cwiseAbs().maxCoeff(), 1e-8) << "K = " << k;
    EXPECT_LT((s.V - variance).cwiseAbs().maxCoeff(), 1e-8) << "K = " << k;
    EXPECT_LT(s.C.cwiseAbs().maxCoeff(), 1e-10) << "K = " << k;
    EXPECT_LT(s.lam.cwiseAbs().maxCoeff(), 1e-10) << "K = " << k;
  }
}

// The fast path against its definition: the coarse u-rules first, then the uniform 20-node rule,
// with steps of length 1 halved when the change grows (solve_general with a likelihood) reach
// the fixed point of the uniform rule iterated alone with the fixed damping 0.5 of the note's
// Algorithm 1. Both stop at 1e-9; the fixed points agree to 1e-7 (the tolerance times the
// contraction's amplification, measured <= 3e-8). At nu = 0.5 the coarse rule alone is 3e-5
// off: the defect correction of solve_general takes it to the fine rule's fixed point.
TEST(GeneralAdatap, CoarseStageAndLongStepsReachTheFixedPointOfTheDefinition) {
  const Problem2d d(24, 7);
  const MatrixXd K = rbf(d.X, 3.0, 1.0);
  const likelihoods::ProbitLikelihood probit(0.2, 0.0);
  for (double nu : {0.5, 2.0}) {
    const Occupation occ = poisson(nu, nu < 1 ? 10 : 16);  // tails below 1e-12
    GeneralOptions fast = tight();
    fast.tolerance = 1e-9;
    fast.threads = 2;
    const GeneralSolution s = solve_general(K, d.y, probit, occ, fast);
    ASSERT_TRUE(s.converged) << s.message;
    EXPECT_GT(s.coarse_iterations, 0);
    EXPECT_LT(s.coarse_iterations, s.iterations);  // the fine rule checked the coarse fixed point
    GeneralOptions plain = fast;
    plain.damping = 0.5;
    plain.min_damping = 0.5;
    const SiteQuadrature fine = uniform_site_quadrature(occ.pmf, plain.hermite_nodes);
    const GeneralSolution r = solve_general(
        K, d.y,
        [&](Eigen::Index, const Observation& yi, double dlc, double gammac, double lamc) {
          return averaged_site(probit, yi, dlc, gammac, lamc, fine);
        },
        plain);
    ASSERT_TRUE(r.converged) << r.message;
    EXPECT_EQ(r.coarse_iterations, 0);
    EXPECT_LT(s.iterations, r.iterations) << "nu = " << nu;
    EXPECT_LT((s.m - r.m).cwiseAbs().maxCoeff(), 1e-7) << "nu = " << nu;
    EXPECT_LT((s.V - r.V).cwiseAbs().maxCoeff(), 1e-7) << "nu = " << nu;
    EXPECT_LT((s.C - r.C).cwiseAbs().maxCoeff(), 1e-7) << "nu = " << nu;
    EXPECT_LT((s.gammac - r.gammac).cwiseAbs().maxCoeff(), 1e-7) << "nu = " << nu;
    EXPECT_LT((s.lamc - r.lamc).cwiseAbs().maxCoeff(), 1e-7) << "nu = " << nu;
  }
}

// The Gaussian likelihood N(y; f, s2), whose k-fold tilted moments are Gaussian: the general
// path solves the same equations as the regression ADATAP (000 eqs 63-66; the u-average of a
// mean linear in u is exact with Gauss-Hermite).
class GaussianSites final : public Likelihood {
 public:
  explicit GaussianSites(double s2) : s2_(s2) {}
  double log_likelihood(const Observation& y, double f) const override {
    return -0.5 * (std::log(2 * M_PI * s2_) + (y.y - f) * (y.y - f) / s2_);
  }
  double d_log_likelihood(const Observation& y, double f) const override { return (y.y - f) / s2_; }
  double d2_log_likelihood(const Observation&, double) const override { return -1.0 / s2_; }
  TiltedMoments tilted_moments_power(const Observation& y, double m, double v,
                                     int k) const override {
    const double precision = 1.0 / v + k / s2_;
    return {0.0, (m / v + k * y.y / s2_) / precision, 1.0 / precision};
  }

 private:
  double s2_;
};

TEST(GeneralAdatap, GaussianLikelihoodIsTheRegressionAdatap) {
  const Problem2d d(40, 5);
  VectorXd y(40);
  for (int i = 0; i < 40; ++i) y(i) = std::sin(1.3 * d.X(i, 0)) + 0.3 * d.X(i, 1);
  const MatrixXd K = rbf(d.X, 1.5, 0.9);
  const double s2 = 0.05;
  const Occupation occ = poisson(1.0, 16);
  const GeneralSolution g = solve_general(K, y, GaussianSites(s2), occ, tight());
  ASSERT_TRUE(g.converged) << g.message;
  SolverOptions o;
  o.tolerance = 1e-13;
  o.max_iterations = 100000;
  o.anderson_depth = 0;
  const Solution r = solve(K, y, s2, occ, o);
  ASSERT_TRUE(r.converged) << r.message;
  EXPECT_LT((g.dl - r.dl).cwiseAbs().maxCoeff() / r.dl.cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((g.dlc - r.dlc).cwiseAbs().maxCoeff() / r.dlc.cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((g.m - r.m).cwiseAbs().maxCoeff() / r.m.cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_LT((g.C - r.train_variance).cwiseAbs().maxCoeff() / r.train_variance.maxCoeff(), 1e-10);
}

}  // namespace
}  // namespace quench::adatap::general_solver_test
