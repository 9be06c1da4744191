// The mean-field classifiers of 001 against each other and against exact references: TAP vs
// EP at the fixed point, naive mean field as TAP with frozen lambda, built-in vs exact LOO,
// the SVM's KKT conditions, on separable and non-separable toy sets.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ep.h"
#include "exact_loo.h"
#include "mean_field.h"
#include "probit_likelihood.h"
#include "site_algebra.h"
#include "svm_limit.h"
#include "test_clouds.h"
#include "test_engines.h"

namespace quench::latent_gp::latent_gp_test {
namespace {

using exact_loo::ExactLooEngine;

// v0 exp(-1/2 sum_l w (x_l - x'_l)^2) + noise v2 on the training diagonal (001 App. B).
class ToyKernel final : public Kernel {
 public:
  ToyKernel(double w, double noise) : w_(w), noise_(noise) {}
  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    Eigen::MatrixXd K(A.rows(), B.rows());
    for (Eigen::Index i = 0; i < A.rows(); ++i)
      for (Eigen::Index j = 0; j < B.rows(); ++j)
        K(i, j) = std::exp(-0.5 * w_ * (A.row(i) - B.row(j)).squaredNorm());
    return K;
  }
  double diagonal_noise() const override { return noise_; }

 private:
  double w_, noise_;
};

using test_support::toy_clouds;

Problem problem_for(const Dataset& d, double w, double noise, double kappa = 0.0) {
  Problem p;
  p.data = &d;
  p.kernel = std::make_shared<ToyKernel>(w, noise);
  p.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(0.0, kappa);
  p.context.threads = 2;
  p.context.make_engine = latent_gp_engines();
  return p;
}

Results run(const std::string& engine, const Problem& p) { return make_classifier(engine)->run(p); }

TEST(Tap, ReachesTheEpFixedPoint) {
  for (double kappa : {0.0, 0.1}) {
    const Dataset d = toy_clouds(40, 25, 1.5, 7);  // overlapping classes
    const Problem p = problem_for(d, 0.5, 0.2, kappa);
    TapEngine tap(Params(TapEngine::schema(), {{"ftol", 1e-26}, {"lambda_tol", 1e-13}}));
    EpEngine ep(Params(EpEngine::schema(), {{"tol", 1e-14}}));
    const Results a = tap.run(p), b = ep.run(p);
    ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
    ASSERT_EQ(b.status.code, RunStatus::ok) << b.status.message;
    // Both solvers are converged to ~1e-12; the target is agreement to 1e-6 (issue), checked
    // at 1e-8 to leave no doubt that the fixed points are the same.
    for (const char* v :
         {"alpha", "mean_field", "cavity_mean", "cavity_variance", "test_probability"})
      EXPECT_LT((a.vectors.at(v) - b.vectors.at(v)).cwiseAbs().maxCoeff(), 1e-8)
          << v << " kappa " << kappa;
    if (kappa == 0.0) {  // the evidence needs log-concave sites (all tau_i >= 0)
      EXPECT_NEAR(a.scalars.at("log_evidence"), b.scalars.at("log_evidence"), 1e-8);
    }
    // The fixed point satisfies eq 23 with lambda from eq 28.
    const Eigen::VectorXd& alpha = a.vectors.at("alpha");
    if (kappa == 0.0) {
      EXPECT_GE(alpha.minCoeff(), 0.0);
    }
  }
}

TEST(Tap, NewtonAndPaperSolversReachTheSameFixedPoint) {
  // Two noise levels; on the noise-free kernel (nearly singular C) the paper's iteration does
  // not reach ftol in 2e5 steps, there Newton is checked against EP instead.
  for (double noise : {0.05, 0.2}) {
    const Dataset d = toy_clouds(40, 0, 1.5, 11);
    const Problem p = problem_for(d, 0.5, noise);
    const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
    MeanFieldOptions newton, paper;
    paper.solver = MeanFieldSolver::paper;
    newton.ftol = 1e-24;
    newton.lambda_tol = 1e-12;
    paper.ftol = 1e-20;  // the paper's iteration is slow: u to ~1e-10
    paper.lambda_tol = 1e-11;
    const MeanFieldFit a = solve_mean_field(C, d.y_train, *p.likelihood, newton);
    const MeanFieldFit b = solve_mean_field(C, d.y_train, *p.likelihood, paper);
    ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
    ASSERT_EQ(b.status.code, RunStatus::ok) << b.status.message << " noise " << noise;
    // Converged to |delta u| ~ 1e-12 and 1e-10; agreement to 1e-7 relative to max |u|.
    const double scale = std::max(1.0, b.slope.cwiseAbs().maxCoeff());
    EXPECT_LT((a.slope - b.slope).cwiseAbs().maxCoeff(), 1e-7 * scale) << "noise " << noise;
    EXPECT_LT(((a.cavity_variance - b.cavity_variance).array() / b.cavity_variance.array())
                  .abs()
                  .maxCoeff(),
              1e-7)
        << "noise " << noise;
    EXPECT_LT(a.status.iterations, b.status.iterations);
  }
}

TEST(Tap, NewtonReachesEpOnANoiseFreeKernel) {
  const Dataset d = toy_clouds(40, 0, 1.5, 11);
  const Problem p = problem_for(d, 0.5, 0.0);
  const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
  MeanFieldOptions o;
  o.ftol = 1e-24;
  o.lambda_tol = 1e-12;
  EpOptions e;
  e.tol = 1e-13;
  const MeanFieldFit a = solve_mean_field(C, d.y_train, *p.likelihood, o);
  const MeanFieldFit b = solve_ep(C, d.y_train, *p.likelihood, e);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  ASSERT_EQ(b.status.code, RunStatus::ok) << b.status.message;
  const double scale = std::max(1.0, b.slope.cwiseAbs().maxCoeff());
  EXPECT_LT((a.slope - b.slope).cwiseAbs().maxCoeff(), 1e-6 * scale);
}

TEST(Tap, JointNewtonConvergesQuadratically) {
  // The joint (u, lambda) Newton solver: after the global phase a handful of steps; the
  // old double loop (slope Newton + plain eq-28 refreshes) needed ~40 refreshes on letter.
  const Dataset d = toy_clouds(60, 0, 1.5, 17);
  const Problem p = problem_for(d, 0.5, 0.1);
  const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
  MeanFieldOptions o;
  o.ftol = 1e-24;
  o.lambda_tol = 1e-13;
  const MeanFieldFit a = solve_mean_field(C, d.y_train, *p.likelihood, o);
  ASSERT_EQ(a.status.code, RunStatus::ok) << a.status.message;
  EXPECT_LE(a.lambda_refreshes, 8);
  // The fixed point: eq 28 at the returned tau reproduces lambda, eq 23 reproduces u.
  const Eigen::VectorXd fresh = posterior_covariance(C, a.tau).lambda;
  EXPECT_LT(((fresh - a.cavity_variance).array() / a.cavity_variance.array()).abs().maxCoeff(),
            1e-12);
  for (Eigen::Index i = 0; i < d.y_train.size(); ++i)
    EXPECT_NEAR(
        site_moments(*p.likelihood, {d.y_train(i)}, a.cavity_mean(i), a.cavity_variance(i)).slope,
        a.slope(i), 1e-11);
}

TEST(SiteDerivatives, MatchFiniteDifferencesOfTheSiteMoments) {
  // Independent check of the heat-equation formulas: central differences of site_moments
  // (u, tau) in m and lambda with a step 1e-5 (truncation ~1e-10, rounding ~1e-11).
  const likelihoods::ProbitLikelihood lik(0.0, 0.0), noisy(0.3, 0.05);
  for (const Likelihood* l :
       {static_cast<const Likelihood*>(&lik), static_cast<const Likelihood*>(&noisy)})
    for (double m : {-3.0, -0.7, 0.0, 0.4, 2.5})
      for (double lam : {0.05, 1.0, 4.0}) {
        const Eigen::VectorXd t = Eigen::VectorXd::Constant(1, 1.0);
        const SiteDerivatives d = site_derivatives(*l, t, Eigen::VectorXd::Constant(1, m),
                                                   Eigen::VectorXd::Constant(1, lam));
        const double h = 1e-5;
        auto sm = [&](double mm, double ll) { return site_moments(*l, {1.0}, mm, ll); };
        const double fm = (sm(m + h, lam).slope - sm(m - h, lam).slope) / (2 * h);
        const double fl = (sm(m, lam + h).slope - sm(m, lam - h).slope) / (2 * h);
        const double tm = (sm(m + h, lam).tau - sm(m - h, lam).tau) / (2 * h);
        const double tl = (sm(m, lam + h).tau - sm(m, lam - h).tau) / (2 * h);
        const double scale = std::fabs(sm(m, lam).tau) + std::fabs(sm(m, lam).slope) + 1e-3;
        EXPECT_NEAR(d.fm(0), fm, 1e-5 * scale / lam) << m << " " << lam;
        EXPECT_NEAR(d.fl(0), fl, 1e-5 * scale / lam) << m << " " << lam;
        EXPECT_NEAR(d.tm(0), tm, 1e-5 * scale / lam) << m << " " << lam;
        EXPECT_NEAR(d.tl(0), tl, 1e-5 * scale / lam) << m << " " << lam;
      }
}

TEST(PosteriorCovariance, MatchesTheDirectInverse) {
  // Sigma = (I + C T)^{-1} C by an LU of the unscaled system (independent of the B^{-1} scaling
  // and of the Woodbury correction for negative sites), with site precisions from exactly 0
  // (floored inside) to 1e5, then three of them negative (-1e-12 to -0.4).
  const Dataset d = toy_clouds(12, 0, 1.0, 3);
  const Problem p = problem_for(d, 0.5, 0.01);
  const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
  Eigen::VectorXd tau(12);
  tau << 0.0, 1e-30, 1e-8, 1e-3, 0.3, 2.0, 50.0, 1e5, 0.0, 7.0, 1e-12, 0.9;
  for (bool negative : {false, true}) {
    if (negative) {  // sites of either sign: the negative-site correction
      tau(3) = -1e-3;
      tau(5) = -0.4;
      tau(10) = -1e-12;
    }
    Eigen::MatrixXd M = C * tau.asDiagonal();
    M.diagonal().array() += 1.0;
    const Eigen::MatrixXd ref = Eigen::PartialPivLU<Eigen::MatrixXd>(M).solve(C);
    const PosteriorCovariance post = posterior_covariance(C, tau);
    for (Eigen::Index i = 0; i < 12; ++i) {
      for (Eigen::Index j = 0; j < 12; ++j)
        EXPECT_NEAR(post.sigma(i, j), ref(i, j), 1e-10 * std::sqrt(ref(i, i) * ref(j, j)))
            << i << " " << j << " negative " << negative;
      const double lambda = ref(i, i) / (1.0 - tau(i) * ref(i, i));  // eq 28
      EXPECT_NEAR(post.lambda(i), lambda, 1e-10 * lambda) << i << " negative " << negative;
      EXPECT_NEAR(post.b(i), 1.0 - tau(i) * ref(i, i), 1e-12) << i;
    }
  }
}

TEST(PosteriorCovariance, CavityVariancesGiveTheMeanOfTheSites) {
  // The posterior mean Sigma nu that cavity_variances computes from L^{-1} (for the EP sweeps)
  // against (I + C T)^{-1} C nu by an LU of the unscaled system, with the same site precisions
  // as above (exactly 0 to 1e5, then three negative) and nu of either sign; in single precision to
  // the ~1e-7 cond(B) of a float factor.
  const Dataset d = toy_clouds(12, 0, 1.0, 3);
  const Problem p = problem_for(d, 0.5, 0.01);
  const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
  Eigen::VectorXd tau(12), nu(12);
  tau << 0.0, 1e-30, 1e-8, 1e-3, 0.3, 2.0, 50.0, 1e5, 0.0, 7.0, 1e-12, 0.9;
  nu << 0.0, 1e-30, -1e-8, 2e-3, 0.5, -1.0, 30.0, -2e4, 0.0, 3.0, 1e-12, -0.4;
  for (bool negative : {false, true}) {
    if (negative) {  // sites of either sign: the negative-site correction
      tau(3) = -1e-3;
      tau(5) = -0.4;
      tau(10) = -1e-12;
    }
    Eigen::MatrixXd M = C * tau.asDiagonal();
    M.diagonal().array() += 1.0;
    const Eigen::VectorXd ref = Eigen::PartialPivLU<Eigen::MatrixXd>(M).solve(C * nu);
    const double scale = ref.cwiseAbs().maxCoeff();
    const PosteriorCovariance full = cavity_variances(C, tau, Precision::full, &nu);
    const PosteriorCovariance lambda_only = cavity_variances(C, tau);
    EXPECT_EQ(lambda_only.mean.size(), 0);
    EXPECT_EQ(full.lambda, lambda_only.lambda);  // the mean adds to, never changes, the rest
    ASSERT_EQ(full.mean.size(), 12);
    for (Eigen::Index i = 0; i < 12; ++i)
      EXPECT_NEAR(full.mean(i), ref(i), 1e-10 * scale) << i << " negative " << negative;
    if (!negative) {
      const PosteriorCovariance single = cavity_variances(C, tau, Precision::single, &nu);
      EXPECT_LT((single.mean - ref).cwiseAbs().maxCoeff(), 1e-3 * scale);
    }
  }
}

// SiteSystem with sites of either sign (the Cholesky of B_+ and the correction of the negative
// ones) against the definitions by a dense LU of M = I + C T: Newton solves (I + T C)^{-1} r,
// Sigma v = M^{-1} C v, log det M and (Omega + C)^{-1} = T M^{-1}; 1e-10 relative to each
// quantity's scale (cond(M) ~ 1e4 here). A posterior that is not positive definite (a site of
// -50 against a prior variance ~ 1) has log_det NaN, as det M < 0 says.
TEST(SiteSystem, SitesOfEitherSignEqualTheDenseDefinitions) {
  const Dataset d = toy_clouds(12, 0, 1.0, 3);
  const Problem p = problem_for(d, 0.5, 0.01);
  const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
  Eigen::VectorXd tau(12), r(12);
  tau << 0.0, 1e-30, 1e-8, -1e-3, 0.3, -0.4, 50.0, 1e5, 0.0, 7.0, -1e-12, 0.9;
  r << 1.0, -2.0, 0.5, 3.0, -1.0, 0.25, 2.0, -0.5, 1.5, 0.0, -3.0, 0.75;
  Eigen::MatrixXd M = C * tau.asDiagonal();
  M.diagonal().array() += 1.0;
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(M);
  const SiteSystem sys(C, tau);
  EXPECT_FALSE(sys.nonnegative_sites());
  EXPECT_EQ(sys.b_factor(), nullptr);
  auto near = [](const Eigen::MatrixXd& got, const Eigen::MatrixXd& want, const char* what) {
    EXPECT_LT((got - want).cwiseAbs().maxCoeff(), 1e-10 * want.cwiseAbs().maxCoeff()) << what;
  };
  Eigen::MatrixXd TC = tau.asDiagonal() * C;
  TC.diagonal().array() += 1.0;
  near(sys.solve_newton(r), TC.partialPivLu().solve(r), "solve_newton");
  near(sys.sigma_times(r), lu.solve(C * r), "sigma_times");
  near(sys.inverse_omega_plus_c(), tau.asDiagonal() * lu.inverse(), "inverse_omega_plus_c");
  EXPECT_NEAR(sys.log_det(), std::log(lu.determinant()),
              1e-10 * std::fabs(std::log(lu.determinant())) + 1e-12);
  tau(5) = -50.0;
  M = C * tau.asDiagonal();
  M.diagonal().array() += 1.0;
  ASSERT_LT(M.determinant(), 0.0);
  EXPECT_TRUE(std::isnan(SiteSystem(C, tau).log_det()));
}

TEST(Ep, EveryPathReachesThePlainDampedFixedPoint) {
  // The slow definition: parallel EP with every sweep damped by 1/2, no extrapolation
  // (acceleration_depth 0) and no Newton finish. Anderson mixing and the Newton finish change
  // only the path: the same fixed point to the tolerance (1e-13 per sweep; a linear iteration
  // with rate r stops within ~1e-13 / (1 - r) of it, hence 1e-9), with and without label noise,
  // from cold and from a warm start one learning step away, the sweeps in a fraction of the
  // plain sweeps and the warm start in fewer iterations than the cold one.
  for (double kappa : {0.0, 0.1}) {
    const Dataset d = toy_clouds(60, 0, 1.5, 5);
    const Problem p = problem_for(d, 0.5, 0.05, kappa);
    const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
    EpOptions plain, sweeps, fast;
    plain.acceleration_depth = 0;
    plain.damping = 0.5;
    plain.newton = sweeps.newton = false;
    plain.tol = sweeps.tol = fast.tol = 1e-13;
    const MeanFieldFit a = solve_ep(C, d.y_train, *p.likelihood, plain);
    const MeanFieldFit b = solve_ep(C, d.y_train, *p.likelihood, sweeps);
    const MeanFieldFit c = solve_ep(C, d.y_train, *p.likelihood, fast);
    const Problem step = problem_for(d, 0.6, 0.06, kappa);
    const MeanFieldFit start =
        solve_ep(step.kernel->gram(d.X_train), d.y_train, *p.likelihood, fast);
    const MeanFieldFit warm = solve_ep(C, d.y_train, *p.likelihood, fast, &start);
    for (const MeanFieldFit* f : {&a, &b, &c, &warm})
      ASSERT_EQ(f->status.code, RunStatus::ok) << f->status.message << " kappa " << kappa;
    for (const MeanFieldFit* f : {&b, &c, &warm}) {
      EXPECT_LT((f->slope - a.slope).cwiseAbs().maxCoeff(), 1e-9) << "kappa " << kappa;
      EXPECT_LT((f->cavity_mean - a.cavity_mean).cwiseAbs().maxCoeff(), 1e-9);
      EXPECT_LT((f->cavity_variance - a.cavity_variance).cwiseAbs().maxCoeff(), 1e-9);
    }
    EXPECT_LT(2 * b.status.iterations, a.status.iterations) << "kappa " << kappa;
    EXPECT_LT(warm.status.iterations, c.status.iterations) << "kappa " << kappa;
  }
}

TEST(Tap, EvidenceIsExactForOnePoint) {
  // One site: EP is exact, Z = Phi(0) = 1/2 for any prior variance.
  Dataset d;
  d.X_train = Eigen::MatrixXd::Zero(1, 2);
  d.y_train = Eigen::VectorXd::Ones(1);
  const Problem p = problem_for(d, 1.0, 0.3);
  const Results r = run("tap", p);
  EXPECT_NEAR(r.scalars.at("log_evidence"), std::log(0.5), 1e-10);
}

TEST(NaiveMeanField, IsTapWithLambdaFrozenAtCii) {
  const Dataset d = toy_clouds(30, 0, 1.5, 3);
  const Problem p = problem_for(d, 0.5, 0.2);
  const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
  MeanFieldOptions o;
  o.refresh_lambda = false;
  o.ftol = 1e-26;
  const MeanFieldFit fit = solve_mean_field(C, d.y_train, *p.likelihood, o);
  ASSERT_EQ(fit.status.code, RunStatus::ok);
  EXPECT_EQ((fit.cavity_variance - C.diagonal()).cwiseAbs().maxCoeff(), 0.0);
  // Eq 23 with lambda_i = C_ii (eq 35) holds at the returned slopes u.
  for (Eigen::Index i = 0; i < d.y_train.size(); ++i) {
    const double m = fit.mean_field(i) - C(i, i) * fit.slope(i);
    EXPECT_NEAR(site_moments(*p.likelihood, {d.y_train(i)}, m, C(i, i)).slope, fit.slope(i), 1e-11);
  }
  // The engine gives the same alpha = t u as the solver.
  const Results r = run("naive_mean_field", p);
  EXPECT_LT((r.vectors.at("alpha") - d.y_train.cwiseProduct(fit.slope)).cwiseAbs().maxCoeff(),
            1e-8);
}

TEST(Loo, BuiltInAgreesWithExactWithinOneError) {
  for (const char* engine : {"tap", "naive_mean_field", "svm_limit"}) {
    const Dataset d = toy_clouds(40, 0, 1.2, 11);
    const Problem p = problem_for(d, 0.5, 0.3);
    ExactLooEngine loo(Params(ExactLooEngine::schema(), {{"inner", std::string(engine)}}));
    const Results r = loo.run(p);
    ASSERT_EQ(r.status.code, RunStatus::ok) << engine << r.status.message;
    // The built-in estimates are approximations (001 Sec. 5: linear response); the paper
    // observes agreement to within one error, which is the target.
    EXPECT_LE(std::fabs(r.scalars.at("loo_errors") - r.scalars.at("exact_loo_errors")), 1.0)
        << engine;
  }
}

TEST(Loo, PredictiveProbabilityAgreesWithRetraining) {
  // The built-in p(+1 | D without i) against N retrains without example i, each predicting
  // x_i by eq 12. The likelihood is the step (probit, noise 0), so eq 12 at the cavity is
  // Phi(m_i / sqrt(v_i)), computed here from the cavity without the likelihood plugin.
  const Dataset d = toy_clouds(40, 0, 1.2, 11);
  const Problem p = problem_for(d, 0.5, 0.3);
  for (const char* engine : {"tap", "ep", "naive_mean_field"}) {
    ExactLooEngine loo(Params(ExactLooEngine::schema(), {{"inner", std::string(engine)}}));
    const Results r = loo.run(p);
    ASSERT_EQ(r.status.code, RunStatus::ok) << engine << r.status.message;
    const Eigen::VectorXd& built_in = r.vectors.at("loo_probability");
    const Eigen::VectorXd& exact = r.vectors.at("exact_loo_probability");
    const Eigen::VectorXd& m = r.vectors.at("cavity_mean");
    const Eigen::VectorXd& v = r.vectors.at("cavity_variance");  // naive: C_ii (eq 35)
    double log_predictive = 0.0;
    for (Eigen::Index i = 0; i < d.y_train.size(); ++i) {
      EXPECT_NEAR(built_in(i), 0.5 * std::erfc(-m(i) / std::sqrt(2.0 * v(i))), 1e-13) << engine;
      log_predictive += std::log(d.y_train(i) > 0 ? built_in(i) : 1.0 - built_in(i));
    }
    EXPECT_NEAR(r.scalars.at("loo_log_predictive"), log_predictive / 40.0, 1e-12) << engine;
    // The built-in LOO is linear response (001 Sec. 5), not a retrain. Measured here: max
    // 0.020 (tap, ep) and 0.033 (naive), mean 0.004 and 0.002; the bounds allow 1.5-2.5x that.
    EXPECT_LT((built_in - exact).cwiseAbs().maxCoeff(), 0.05) << engine;
    EXPECT_LT((built_in - exact).cwiseAbs().mean(), 0.01) << engine;
  }
}

TEST(Loo, ErrorCountsAreExactIntegers) {
  // N = 200 with 7, 14, 28, 29, 55-58, ... errors is where (errors / N) * N is not an
  // integer in floating point: the counts must be counted, not recomputed from the rate.
  int checked = 0;
  for (const double gap : {1.45, 1.5, 1.55}) {  // 53 to 59 errors
    const Dataset d = toy_clouds(200, 0, gap, 1);
    const Problem p = problem_for(d, 0.5, 0.3);
    for (const char* engine : {"tap", "naive_mean_field", "svm_limit"}) {
      const Results r = run(engine, p);
      const double errors = std::round(r.scalars.at("loo_error") * 200);
      EXPECT_EQ(r.scalars.at("loo_errors"), errors) << engine << " gap " << gap;
      checked += errors / 200 * 200 != errors;
    }
  }
  EXPECT_GT(checked, 0) << "no case where the rate times N is inexact";
}

TEST(Loo, ExactLooDoesNotDependOnThreads) {
  const Dataset d = toy_clouds(20, 0, 1.2, 5);
  Problem p = problem_for(d, 0.5, 0.3);
  ExactLooEngine loo(Params(ExactLooEngine::schema(), {{"inner", std::string("tap")}}));
  p.context.threads = 1;
  const Results a = loo.run(p);
  p.context.threads = 3;
  const Results b = loo.run(p);
  EXPECT_EQ(a.vectors.at("exact_loo_mean_field"), b.vectors.at("exact_loo_mean_field"));
}

TEST(SvmLimit, SatisfiesKktAndSeparates) {
  const Dataset d = toy_clouds(40, 30, 5.0, 2);  // separable
  const Problem p = problem_for(d, 0.5, 0.0);
  const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
  const SvmFit fit = solve_svm(C, d.y_train, 1e-10, 1000000);
  ASSERT_EQ(fit.status.code, RunStatus::ok);
  EXPECT_LT(kkt_violation(d.y_train, fit.alpha, C * d.y_train.cwiseProduct(fit.alpha)), 1e-9);
  EXPECT_GE(fit.alpha.minCoeff(), 0.0);
  for (Eigen::Index i = 0; i < 40; ++i) {
    const double margin = d.y_train(i) * fit.mean_field(i);
    if (fit.alpha(i) > 0)
      EXPECT_NEAR(margin, 1.0, 1e-9);  // eq 37
    else
      EXPECT_GE(margin, 1.0 - 1e-9);
  }
  const Results r = run("svm_limit", p);
  EXPECT_EQ(r.scalars.at("train_error"), 0.0);
  EXPECT_LE(r.scalars.at("test_error"), 0.05);
  // Separable, well apart: TAP classifies the training set without error too.
  EXPECT_EQ(run("tap", p).scalars.at("train_error"), 0.0);
}

TEST(SvmLimit, Eq38MatchesExactLoo) {
  const Dataset d = toy_clouds(40, 0, 1.5, 13);  // not linearly separable; the noise makes C PD
  const Problem p = problem_for(d, 0.5, 0.5);
  ExactLooEngine loo(Params(ExactLooEngine::schema(), {{"inner", std::string("svm_limit")}}));
  const Results r = loo.run(p);
  ASSERT_EQ(r.status.code, RunStatus::ok);
  EXPECT_LE(std::fabs(r.scalars.at("loo_errors") - r.scalars.at("exact_loo_errors")), 1.0);
  // The SVM left-out field: eq 38's shift of h_i is exact when the support set is unchanged.
  const Eigen::VectorXd& cav = r.vectors.at("cavity_mean");
  const Eigen::VectorXd& exact = r.vectors.at("exact_loo_mean_field");
  int same = 0;
  for (Eigen::Index i = 0; i < cav.size(); ++i) same += std::fabs(cav(i) - exact(i)) < 1e-6;
  EXPECT_GE(same, 30);  // most removals leave the support set unchanged
  // Eq 38 is exact for a retrain on the fixed support set S \ {i}: C_{S\i} u = t_{S\i}
  // (every remaining support vector on the margin, eq 37), evaluated at x_i.
  const Eigen::MatrixXd C = p.kernel->gram(d.X_train);
  const Eigen::VectorXd& alpha = r.vectors.at("alpha");
  int checked = 0;
  for (Eigen::Index i = 0; i < alpha.size(); ++i) {
    if (alpha(i) <= 0) continue;
    std::vector<Eigen::Index> s;
    for (Eigen::Index j = 0; j < alpha.size(); ++j)
      if (alpha(j) > 0 && j != i) s.push_back(j);
    const auto k = static_cast<Eigen::Index>(s.size());
    Eigen::MatrixXd Cs(k, k);
    Eigen::VectorXd ts(k), ci(k);
    for (Eigen::Index a = 0; a < k; ++a) {
      ts(a) = d.y_train(s[a]);
      ci(a) = C(s[a], i);
      for (Eigen::Index b = 0; b < k; ++b) Cs(a, b) = C(s[a], s[b]);
    }
    const Eigen::VectorXd u = Eigen::PartialPivLU<Eigen::MatrixXd>(Cs).solve(ts);
    EXPECT_NEAR(cav(i), ci.dot(u), 1e-8 * std::max(1.0, std::fabs(cav(i)))) << i;
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(Classifiers, NonConvergenceIsReported) {
  const Dataset d = toy_clouds(30, 0, 1.0, 4);
  const Problem p = problem_for(d, 0.5, 0.1);
  TapEngine tap(Params(TapEngine::schema(), {{"max_iterations", std::int64_t{3}}}));
  const Results r = tap.run(p);
  EXPECT_EQ(r.status.code, RunStatus::not_converged);
  EXPECT_FALSE(r.status.message.empty());
  EXPECT_TRUE(r.vectors.at("alpha").allFinite());
}

}  // namespace
}  // namespace quench::latent_gp::latent_gp_test
