// The multinomial probit likelihood against independent computations: p(y | f) by dense
// long-double trapezoid quadrature over u; the nested-EP sites against closed forms (C = 2), a
// slow parallel EP on w = (u, f) in natural parameters (C = 3, 4) and the exact log Z as a
// multivariate normal orthant probability by nested Simpson quadrature.
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "multinomial_probit_likelihood.h"
#include "probit_power_reference.h"
#include "quench/errors.h"

namespace quench::likelihoods::multinomial_probit_test {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ld = long double;
using power_reference::log_phi;
using power_reference::mills;

MultinomialProbitLikelihood make() {
  return MultinomialProbitLikelihood(Params(MultinomialProbitLikelihood::schema(), {}));
}

// log \int N(u; 0, 1) prod_{j != y} Phi(u + f_y - f_j) du by the trapezoid rule with 4001
// points on [c - 12, c + 12], c the maximum of the log integrand on a 0.1 grid. The integrand
// is entire and falls below exp(-70) of its peak at the ends (its log has curvature <= -1), so
// the rule converges geometrically: h = 6e-3 against widths >= 1 / sqrt(C) agrees with 20001
// points to 1.4e-17 (measured).
ld dense_log_probability(Index y, const VectorXd& f) {
  auto log_g = [&](ld u) {
    ld s = -0.5L * u * u - 0.5L * std::log(2 * M_PIl);
    for (Index j = 0; j < f.size(); ++j)
      if (j != y) s += log_phi(u + f(y) - f(j));
    return s;
  };
  ld c = 0, top = log_g(0);
  for (ld u = 0; u <= 300; u += 0.1L)  // the mode is > 0 (log_probability's bracket)
    if (log_g(u) > top) top = log_g(c = u);
  const int n = 4001;
  const ld h = 24.0L / (n - 1);
  ld sum = 0;
  for (int i = 0; i < n; ++i) {
    const ld w = (i == 0 || i == n - 1) ? 0.5L : 1.0L;
    sum += w * std::exp(log_g(c - 12 + i * h) - top);
  }
  return top + std::log(sum * h);
}

// The orthant probability P(W <= a), W ~ N(0, S) of dimension <= 3, by conditioning on W_1:
//   \int_{-inf}^{a_1} N(t; 0, S_11) P(W_r <= a_r - S_r1 t / S_11 | cov S_rr - S_r1 S_1r / S_11) dt
// with composite Simpson of n intervals on [min(a_1, 0) - 10 sd, a_1] (error ~ (h / sd)^4 / 180
// < 1e-9 relative for h <= sd / 50, as here; the tail below holds < 1e-23).
ld orthant(const std::vector<ld>& a, const std::vector<std::vector<ld>>& S, int n = 1000) {
  const std::size_t d = a.size();
  const ld sd = std::sqrt(S[0][0]);
  if (d == 1) return 0.5L * std::erfc(-a[0] / (sd * std::sqrt(2.0L)));
  std::vector<std::vector<ld>> cond(d - 1, std::vector<ld>(d - 1));
  for (std::size_t i = 1; i < d; ++i)
    for (std::size_t j = 1; j < d; ++j) cond[i - 1][j - 1] = S[i][j] - S[i][0] * S[0][j] / S[0][0];
  const ld lo = std::min(a[0], 0.0L) - 10 * sd, h = (a[0] - lo) / n;
  ld sum = 0;
  std::vector<ld> rest(d - 1);
  for (int i = 0; i <= n; ++i) {
    const ld t = lo + i * h;
    for (std::size_t j = 1; j < d; ++j) rest[j - 1] = a[j] - S[j][0] * t / S[0][0];
    const ld w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    sum += w * std::exp(-0.5L * t * t / S[0][0]) / (sd * std::sqrt(2 * M_PIl)) *
           orthant(rest, cond, n);
  }
  return sum * h / 3;
}

// The exact log \int p(y | f) N(f; m, V) df: with e_j ~ N(0, 1) the probit noises,
// p(y | f) = P(e_j - u <= f_y - f_j, j != y), so Z = P(W <= mu0), W = e - u 1 - (A f - A m) ~
// N(0, I + 1 1^T + A V A^T), mu0 = A m (rows of A: e_y - e_j).
double exact_log_z(Index y, const VectorXd& m, const MatrixXd& V) {
  const Index c = m.size();
  MatrixXd A = MatrixXd::Zero(c - 1, c);
  for (Index j = 0, k = 0; j < c; ++j)
    if (j != y) {
      A(k, y) = 1;
      A(k++, j) = -1;
    }
  const MatrixXd S =
      MatrixXd::Identity(c - 1, c - 1) + MatrixXd::Ones(c - 1, c - 1) + A * V * A.transpose();
  const VectorXd mu0 = A * m;
  std::vector<ld> a(c - 1);
  std::vector<std::vector<ld>> s(c - 1, std::vector<ld>(c - 1));
  for (Index i = 0; i + 1 < c; ++i) {
    a[i] = mu0(i);
    for (Index j = 0; j + 1 < c; ++j) s[i][j] = S(i, j);
  }
  return static_cast<double>(std::log(orthant(a, s)));
}

// The same EP fixed point as match_site, found independently: parallel EP with damping 1/2 on
// w = (u, f) in R^{C+1}, the posterior recomputed by matrix inversion from the natural
// parameters Lambda = Lambda0 + sum_j tau_j b_j b_j^T, eta = eta0 + sum_j nu_j b_j every
// iteration (b_j = e_u + e_{f_y} - e_{f_j}), long-double tilted moments, until no site moves by
// 1e-13; log Z literally as Phi(post) - Phi(q0) + sum_j [log Zhat_j + Phi(cav_j) - Phi(marg_j)]
// with Phi(eta, Lambda) = eta^T Lambda^-1 eta / 2 - log det Lambda / 2.
struct EpReference {
  VectorXd tau, nu;
  double log_z;
};
EpReference reference_ep(Index y, const VectorXd& m, const MatrixXd& V) {
  const Index c = m.size(), d = c + 1;
  MatrixXd lambda0 = MatrixXd::Zero(d, d);
  lambda0(0, 0) = 1;
  lambda0.bottomRightCorner(c, c) = V.inverse();
  VectorXd eta0 = VectorXd::Zero(d);
  eta0.tail(c) = V.inverse() * m;
  auto b = [&](Index j) {
    VectorXd v = VectorXd::Zero(d);
    v(0) = 1;
    v(1 + y) += 1;
    v(1 + j) -= 1;
    return v;
  };
  auto phi = [](const VectorXd& eta, const MatrixXd& lambda) {
    return 0.5 * eta.dot(lambda.ldlt().solve(eta)) - 0.5 * std::log(lambda.determinant());
  };
  EpReference r{VectorXd::Zero(c), VectorXd::Zero(c), 0.0};
  MatrixXd lambda;
  VectorXd eta;
  for (int it = 0; it < 100000; ++it) {
    lambda = lambda0;
    eta = eta0;
    for (Index j = 0; j < c; ++j) {
      lambda += r.tau(j) * b(j) * b(j).transpose();
      eta += r.nu(j) * b(j);
    }
    const MatrixXd sigma = lambda.inverse();
    const VectorXd mu = sigma * eta;
    double change = 0;
    r.log_z = phi(eta, lambda) - phi(eta0, lambda0);
    for (Index j = 0; j < c; ++j) {
      if (j == y) continue;
      const ld s = b(j).dot(sigma * b(j)), mm = b(j).dot(mu);
      const ld sc = 1 / (1 / s - r.tau(j)), mc = sc * (mm / s - r.nu(j));
      const ld q = std::sqrt(1 + sc), zeta = mc / q, rr = mills(zeta);
      const ld mean = mc + sc * rr / q, var = sc - sc * sc * rr * (zeta + rr) / (q * q);
      const ld tau = 1 / var - 1 / sc, nu = mean / var - mc / sc;
      r.log_z += static_cast<double>(log_phi(zeta) + 0.5L * mc * mc / sc + 0.5L * std::log(sc) -
                                     0.5L * mm * mm / s - 0.5L * std::log(s));
      change = std::max({change, std::fabs(static_cast<double>(tau) - r.tau(j)),
                         std::fabs(static_cast<double>(nu) - r.nu(j))});
      r.tau(j) = 0.5 * (r.tau(j) + static_cast<double>(tau));
      r.nu(j) = 0.5 * (r.nu(j) + static_cast<double>(nu));
    }
    if (change < 1e-13) return r;  // log_z is that of the sites before this last half step
  }
  ADD_FAILURE() << "reference EP did not converge";
  return r;
}

// The exact moments of Phi(a^T f / sqrt 2) N(f; m, V), a = e_y - e_j: p(y | f) for C = 2,
// since E_u Phi(u + x) = Phi(x / sqrt 2). With s^2 = 2 + a^T V a, zeta = a^T m / s and
// r = D/Phi(zeta): mean m + V a r / s, covariance V - V a a^T V r (zeta + r) / s^2.
struct Moments {
  double log_z;
  VectorXd mean;
  MatrixXd cov;
};
Moments exact_two_class(Index y, const VectorXd& m, const MatrixXd& V) {
  VectorXd a = VectorXd::Zero(2);
  a(y) = 1;
  a(1 - y) = -1;
  const ld s = std::sqrt(2.0L + a.dot(V * a)), zeta = a.dot(m) / s, r = mills(zeta);
  const VectorXd va = V * a;
  return {static_cast<double>(log_phi(zeta)), m + va * static_cast<double>(r / s),
          V - va * va.transpose() * static_cast<double>(r * (zeta + r) / (s * s))};
}

// The f-marginal of the inner EP posterior: N(f; m, V) times the site of class_site_form,
// precision Pi = diag(pi) - pi pi^T / sum(pi) and linear term h.
Moments site_posterior(Index y, const VectorXd& m, const MatrixXd& V, const ClassSite& site) {
  const ClassSiteForm form = class_site_form(y, site);
  const MatrixXd pi_mat =
      MatrixXd(form.pi.asDiagonal()) - form.pi * form.pi.transpose() / form.pi.sum();
  const MatrixXd cov = (V.inverse() + pi_mat).inverse();
  return {0.0, cov * (V.inverse() * m + form.h), cov};
}

MatrixXd test_covariance(Index c, double scale) {
  MatrixXd L(c, c);
  for (Index i = 0; i < c; ++i)
    for (Index j = 0; j < c; ++j) L(i, j) = std::sin(1.0 + 3.0 * i + 7.0 * j);
  return scale * (0.5 * MatrixXd::Identity(c, c) + L * L.transpose() / c);
}

TEST(MultinomialProbit, LogProbabilityMatchesDenseQuadrature) {
  const auto l = make();
  std::vector<VectorXd> fs = {VectorXd{{0.3, -0.2, 1.1}}, VectorXd{{0.0, 30.0, 30.0}},
                              VectorXd{{-30.0, 0.0, 0.0, 0.0}}, VectorXd{{30.0, 0.0, 25.0}},
                              VectorXd{{1.0, -2.0, 0.5, 3.0, -0.7}}};
  // Many classes, and latents spread so far that log Phi at the mode is ~ -2e4 (the
  // implementation must not difference such values).
  for (auto [c, scale] : {std::pair<Index, double>{26, 2.0}, {26, 30.0}, {6, 100.0}}) {
    VectorXd f(c);
    for (Index j = 0; j < c; ++j) f(j) = scale * std::sin(1.3 * j + 0.4);
    fs.push_back(f);
  }
  for (const VectorXd& f : fs)
    for (Index y = 0; y < f.size(); ++y) {
      const double ref = static_cast<double>(dense_log_probability(y, f));
      // 1e-10 in log p is 1e-10 relative in p, probabilities down to exp(-1e4) included
      // (measured: 1.7e-13 for |log p| < 1000, 1.8e-12 = 1 ulp of log p at -1e4).
      EXPECT_NEAR(l.log_probability(y, f), ref, 1e-10) << f.transpose() << " y " << y;
    }
  // The probabilities of all classes sum to 1 (the argmax of f_c + e_c is one class).
  for (const VectorXd& f : fs) {
    double total = 0;
    for (Index y = 0; y < f.size(); ++y) total += std::exp(l.log_probability(y, f));
    EXPECT_NEAR(total, 1.0, 1e-13);
  }
}

TEST(MultinomialProbit, TwoClassesAreTheExactProbit) {
  const auto l = make();
  const VectorXd m{{0.4, -1.3}};
  for (const MatrixXd& V : {test_covariance(2, 1.0), test_covariance(2, 30.0),
                            MatrixXd(MatrixXd::Identity(2, 2) * 1e-3)})
    for (Index y = 0; y < 2; ++y) {
      const Moments exact = exact_two_class(y, m, V);
      for (int sweeps : {0, 1}) {
        ClassSite site = ClassSite::zero(2);
        const double log_z = l.match_site(y, m, V, site, sweeps);
        // One factor: its tilted moments are matched exactly in one step, so the rest is
        // rounding (1e-12 on O(1) numbers; 1e-8 on moments of the f-posterior, which is formed
        // here by two inversions; measured 2.2e-16 and 2.1e-14).
        EXPECT_NEAR(log_z, exact.log_z, 1e-12);
        EXPECT_EQ(site.tau(y), 0.0);
        EXPECT_EQ(site.nu(y), 0.0);
        const Moments post = site_posterior(y, m, V, site);
        EXPECT_LT((post.mean - exact.mean).cwiseAbs().maxCoeff(), 1e-8);
        EXPECT_LT((post.cov - exact.cov).cwiseAbs().maxCoeff(), 1e-8);
      }
    }
}

TEST(MultinomialProbit, InnerEpMatchesSlowReferenceAndExactIntegral) {
  const auto l = make();
  struct Case {
    VectorXd m;
    double scale;
    double tolerance;  // of |Z_EP / Z - 1|, from measurement
  };
  // EP approximates the correlated orthant probability Z (the z_k share u and f_y): measured
  // |Z_EP / Z - 1| <= 7.9e-3 (C = 3) and 7.9e-3 (C = 4) at unit scale, 1.7e-2 and 1.4e-2 at
  // scale 5, always Z_EP < Z; the tolerances are 1.5x the largest of each scale.
  const std::vector<Case> cases = {{VectorXd{{0.3, -0.5, 1.0}}, 1.0, 1.2e-2},
                                   {VectorXd{{0.3, -0.5, 1.0}}, 5.0, 2.5e-2},
                                   {VectorXd{{0.2, 1.5, -0.4, 0.0}}, 1.0, 1.2e-2},
                                   {VectorXd{{0.2, 1.5, -0.4, 0.0}}, 5.0, 2.5e-2}};
  for (const Case& k : cases) {
    const Index c = k.m.size();
    const MatrixXd V = test_covariance(c, k.scale);
    double total = 0;
    for (Index y = 0; y < c; ++y) {
      ClassSite site = ClassSite::zero(c);
      const double log_z = l.match_site(y, k.m, V, site, 0);
      const EpReference ref = reference_ep(y, k.m, V);
      // Both are the same fixed point: 1e-8 leaves room for the reference's inversions
      // (measured 8e-14 for the sites, 1.3e-15 for log Z).
      EXPECT_LT((site.tau - ref.tau).cwiseAbs().maxCoeff(), 1e-8) << "C " << c << " y " << y;
      EXPECT_LT((site.nu - ref.nu).cwiseAbs().maxCoeff(), 1e-8) << "C " << c << " y " << y;
      EXPECT_NEAR(log_z, ref.log_z, 1e-8) << "C " << c << " y " << y;
      const double exact = exact_log_z(y, k.m, V);
      total += std::exp(exact);
      const double error = std::expm1(log_z - exact);
      std::printf("C %ld scale %g y %ld: log Z_EP %.10f exact %.10f, Z_EP / Z - 1 = %.2e\n",
                  static_cast<long>(c), k.scale, static_cast<long>(y), log_z, exact, error);
      EXPECT_LT(std::fabs(error), k.tolerance) << "C " << c << " y " << y;
    }
    // The reference itself: the exact Z of all classes sum to 1 (measured within 4e-11).
    EXPECT_NEAR(total, 1.0, 1e-9) << "C " << c;
  }
}

TEST(MultinomialProbit, PredictiveIsNormalizedAndExactForTwoClasses) {
  const auto l = make();
  const VectorXd m2{{0.4, -1.3}};
  const MatrixXd V2 = test_covariance(2, 2.0);
  const VectorXd p2 = l.predictive(m2, V2);
  for (Index y = 0; y < 2; ++y)
    EXPECT_NEAR(p2(y), std::exp(exact_two_class(y, m2, V2).log_z), 1e-10);

  const VectorXd m{{0.2, 1.5, -0.4, 0.0, 0.9}};
  const VectorXd p = l.predictive(m, test_covariance(5, 1.0));
  EXPECT_NEAR(p.sum(), 1.0, 1e-12);
  EXPECT_GT(p.minCoeff(), 0.0);

  // V -> 0: p(y | f = m) itself, up to the error of EP on the one-dimensional u integral
  // (z_k = u + m_y - m_k all move with u); measured 4.0e-4 at most, asserted at 8e-4.
  const VectorXd p0 = l.predictive(m, 1e-10 * MatrixXd::Identity(5, 5));
  VectorXd direct(5);
  for (Index y = 0; y < 5; ++y) direct(y) = std::exp(l.log_probability(y, m));
  direct /= direct.sum();
  const double error = (p0 - direct).cwiseAbs().maxCoeff();
  std::printf("V -> 0: max |p_EP - p| = %.2e\n", error);
  EXPECT_LT(error, 8e-4);
}

TEST(MultinomialProbit, WarmStartedSingleSweepsConverge) {
  const auto l = make();
  const VectorXd m{{0.2, 1.5, -0.4, 0.0, 0.9, -1.1}};
  const MatrixXd V = test_covariance(6, 2.0);
  for (Index y : {0, 3}) {
    ClassSite converged = ClassSite::zero(6), warm = ClassSite::zero(6);
    const double log_z = l.match_site(y, m, V, converged, 0);
    double warm_log_z = 0;
    for (int i = 0; i < 200; ++i) warm_log_z = l.match_site(y, m, V, warm, 1);
    EXPECT_LT((warm.tau - converged.tau).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((warm.nu - converged.nu).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_NEAR(warm_log_z, log_z, 1e-10);
    EXPECT_GE(converged.tau.minCoeff(), 0.0);
  }
}

TEST(MultinomialProbit, ScalarInterfaceRefusedAndBadCavitiesThrow) {
  const auto l = make();
  EXPECT_EQ(l.classes(), &l);
  EXPECT_THROW(l.log_likelihood({1}, 0.0), ConfigError);
  EXPECT_THROW(l.d_log_likelihood({1}, 0.0), ConfigError);
  EXPECT_THROW(l.d2_log_likelihood({1}, 0.0), ConfigError);
  EXPECT_THROW(l.tilted_moments({1}, 0.0, 1.0), ConfigError);
  EXPECT_THROW(l.tilted_moments_power({1}, 0.0, 1.0, 2), ConfigError);

  ClassSite site = ClassSite::zero(3);
  const VectorXd m = VectorXd::Zero(3);
  MatrixXd indefinite = MatrixXd::Identity(3, 3);
  indefinite(1, 1) = -2.0;
  EXPECT_THROW(l.match_site(0, m, indefinite, site, 0), NumericalError);
  MatrixXd nan = MatrixXd::Identity(3, 3);
  nan(2, 1) = NAN;
  EXPECT_THROW(l.match_site(0, m, nan, site, 0), NumericalError);
  EXPECT_THROW(l.match_site(3, m, MatrixXd::Identity(3, 3), site, 0), std::invalid_argument);
  EXPECT_THROW(l.match_site(0, m, MatrixXd::Identity(2, 2), site, 0), std::invalid_argument);
  // A semidefinite V (here 0: f known) is accepted: the inner EP on u alone.
  EXPECT_NO_THROW(l.match_site(0, m, MatrixXd::Zero(3, 3), site, 0));
}

}  // namespace
}  // namespace quench::likelihoods::multinomial_probit_test
