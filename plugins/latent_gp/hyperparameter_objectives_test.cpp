// The hyperparameter objectives of the EP/TAP classifiers against independent references: the
// evidence against a dense formula from the converged sites, the gradients against central
// finite differences of the re-converged objective, warm against cold starts.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include "ep.h"
#include "hyperparameter_objectives.h"
#include "mean_field.h"
#include "probit_likelihood.h"
#include "quench/errors.h"
#include "quench/hyperparameter_learning.h"
#include "test_kernel.h"

namespace quench::latent_gp::hyperparameter_objectives_test {
namespace {

using testing::TestKernel;

// Two overlapping Gaussian clouds in 2-D, labels alternating -1/+1.
Dataset toy(int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> g;
  Dataset d;
  d.X_train.resize(n, 2);
  d.y_train.resize(n);
  for (int i = 0; i < n; ++i) {
    d.y_train(i) = i % 2 ? 1.0 : -1.0;
    d.X_train(i, 0) = g(gen) + 0.75 * d.y_train(i);
    d.X_train(i, 1) = g(gen);
  }
  return d;
}

// Engines converged far beyond the FD steps' resolution (the evidence is stationary in the
// sites, so its error is quadratic in theirs).
std::unique_ptr<InferenceEngine> engine(const std::string& name, std::int64_t max_iterations = 0) {
  if (name == "ep") {
    Params p(EpEngine::schema(), {{"tol", 1e-13}});
    if (max_iterations) p = Params(EpEngine::schema(), {{"max_iterations", max_iterations}});
    return std::make_unique<EpEngine>(p);
  }
  Params p(TapEngine::schema(), {{"ftol", 1e-26}, {"lambda_tol", 1e-13}});
  if (max_iterations) p = Params(TapEngine::schema(), {{"max_iterations", max_iterations}});
  return std::make_unique<TapEngine>(p);
}

// The objectives read the training targets by the problem's likelihood (its target kind); the
// likelihood they are evaluated with is evaluate()'s.
Problem problem_for(const Dataset& d) {
  Problem p;
  p.data = &d;
  p.likelihood = std::make_shared<likelihoods::ProbitLikelihood>(0.0, 0.0);
  return p;
}

// log Z_EP from the converged sites by dense algebra, written from the definition
//   Z_EP = \int prod_i Z~_i exp(-tau_i h_i^2 / 2 + nu_i h_i) N(h; 0, C) dh,
// Z~_i = Zhat_i / \int exp(-tau h^2 / 2 + nu h) N(h; m_i, lambda_i) dh, with the sites
// nu = u + T <h> (Sigma^{-1} mu, mu = C u) and the cavities recomputed from Sigma.
double dense_log_evidence(const Eigen::MatrixXd& C, const Eigen::VectorXd& t, const Likelihood& lik,
                          const MeanFieldFit& fit) {
  const Eigen::Index n = t.size();
  const Eigen::VectorXd& tau = fit.tau;
  const Eigen::VectorXd& u = fit.slope;
  const Eigen::VectorXd mu = C * u;
  const Eigen::VectorXd nu = u + tau.cwiseProduct(mu);
  Eigen::MatrixXd P = C.inverse();
  P.diagonal() += tau;
  const Eigen::MatrixXd Sigma = P.inverse();
  Eigen::MatrixXd M = C * tau.asDiagonal();
  M.diagonal().array() += 1.0;
  double lz = -0.5 * std::log(M.determinant()) + 0.5 * nu.dot(Sigma * nu);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double lam = 1.0 / (1.0 / Sigma(i, i) - tau(i));
    const double m = lam * (mu(i) / Sigma(i, i) - nu(i));
    const double log_c = -0.5 * std::log1p(lam * tau(i)) +
                         std::pow(nu(i) + m / lam, 2) / (2.0 * (tau(i) + 1.0 / lam)) -
                         m * m / (2.0 * lam);
    lz += lik.tilted_moments({t(i)}, m, lam).log_z - log_c;
  }
  return lz;
}

TEST(EvidenceObjective, ValueEqualsTheDenseEvidenceOfTheSites) {
  for (unsigned seed : {3u, 5u})  // seed 5 with kappa 0.03 has sites with tau_i < 0
    for (const char* name : {"tap", "ep"})
      for (double kappa : {0.0, seed == 5 ? 0.03 : 0.02}) {
        const Dataset d = toy(24, seed);
        TestKernel k(1.3, 1.1, 0.2);
        const likelihoods::ProbitLikelihood lik(0.3, kappa);
        auto objective = engine(name)->hyperparameter_objective(problem_for(d), "evidence");
        EXPECT_EQ(objective->quantity(), "log_evidence");
        const ObjectiveValue v = objective->evaluate(k, lik);
        ASSERT_EQ(v.status.code, RunStatus::ok) << v.status.message;
        const auto& fit = *dynamic_cast<EvidenceObjective&>(*objective).last_fit();
        const double ref = dense_log_evidence(k.gram(d.X_train), d.y_train, lik, fit);
        EXPECT_NEAR(v.value, ref, 1e-9 * std::fabs(ref)) << name << " kappa " << kappa;
        if (seed == 5 && kappa > 0) {
          EXPECT_LT(fit.tau.minCoeff(), 0.0);
        }
      }
}

// Central differences of the re-converged objective, step 1e-4 relative per entry
// (truncation ~1e-8 relative; the value is converged to ~1e-13).
Eigen::VectorXd finite_differences(HyperparameterObjective& objective, TestKernel& k,
                                   likelihoods::ProbitLikelihood& lik) {
  const auto kb = k.hyperparameters(), lb = lik.hyperparameters();
  Eigen::VectorXd g(flat_size(kb) + flat_size(lb));
  Eigen::Index j = 0;
  auto probe = [&](auto& component, const Hyperparameter& h) {
    const double x = h.value(0), step = 1e-4 * x;
    double f[2];
    for (int s = 0; s < 2; ++s) {
      component.set_hyperparameter(h.name, Eigen::VectorXd::Constant(1, x + (s ? -step : step)));
      const ObjectiveValue v = objective.evaluate(k, lik);
      EXPECT_EQ(v.status.code, RunStatus::ok) << v.status.message;
      f[s] = v.value;
    }
    component.set_hyperparameter(h.name, Eigen::VectorXd::Constant(1, x));
    g(j++) = (f[0] - f[1]) / (2 * step);
  };
  for (const Hyperparameter& h : kb) probe(k, h);
  for (const Hyperparameter& h : lb) probe(lik, h);
  return g;
}

TEST(EvidenceObjective, GradientMatchesFiniteDifferences) {
  for (unsigned seed : {3u, 5u})  // seed 5 with kappa 0.03 has sites with tau_i < 0
    for (const char* name : {"tap", "ep"}) {
      const Dataset d = toy(24, seed);
      TestKernel k(1.3, 0.9, 0.2);
      likelihoods::ProbitLikelihood lik(0.4, seed == 5 ? 0.03 : 0.02);
      auto objective = engine(name)->hyperparameter_objective(problem_for(d), "evidence");
      const ObjectiveValue v = objective->evaluate(k, lik);
      ASSERT_EQ(v.status.code, RunStatus::ok) << v.status.message;
      ASSERT_EQ(v.gradient.size(), 5);  // amplitude, length_scale, noise; noise, kappa
      // The kernel's noise and the probit's input noise enter each site only as lambda_i +
      // noise (EP is invariant under moving site-local Gaussian noise): equal entries.
      EXPECT_NEAR(v.gradient(2), v.gradient(3), 1e-8 * std::fabs(v.gradient(3))) << name;
      const Eigen::VectorXd fd = finite_differences(*objective, k, lik);
      for (Eigen::Index j = 0; j < 5; ++j)
        EXPECT_NEAR(v.gradient(j), fd(j), 1e-6 * std::fabs(fd(j))) << name << " entry " << j;
    }
}

TEST(EvidenceObjective, WarmStartGivesTheColdStartValue) {
  const Dataset d = toy(24, 7);
  for (const char* name : {"tap", "ep"}) {
    likelihoods::ProbitLikelihood lik(0.3, 0.0);
    auto warm = engine(name)->hyperparameter_objective(problem_for(d), "evidence");
    TestKernel k0(1.0, 1.0, 0.2), k1(1.5, 0.8, 0.25);
    ASSERT_EQ(warm->evaluate(k0, lik).status.code, RunStatus::ok);
    const ObjectiveValue w = warm->evaluate(k1, lik);
    const ObjectiveValue c =
        engine(name)->hyperparameter_objective(problem_for(d), "evidence")->evaluate(k1, lik);
    ASSERT_EQ(w.status.code, RunStatus::ok) << w.status.message;
    ASSERT_EQ(c.status.code, RunStatus::ok) << c.status.message;
    EXPECT_NEAR(w.value, c.value, 1e-10 * std::fabs(c.value)) << name;
    EXPECT_LT((w.gradient - c.gradient).cwiseAbs().maxCoeff(), 1e-8) << name;
  }
}

TEST(EvidenceObjective, NonConvergenceIsNotOk) {
  const Dataset d = toy(24, 4);
  likelihoods::ProbitLikelihood lik(0.0, 0.0);
  TestKernel k(1.0, 1.0, 0.1);
  for (const char* name : {"tap", "ep"}) {
    const ObjectiveValue v =
        engine(name, 2)->hyperparameter_objective(problem_for(d), "evidence")->evaluate(k, lik);
    EXPECT_NE(v.status.code, RunStatus::ok) << name;
    EXPECT_FALSE(v.status.message.empty()) << name;
  }
}

// The probit, but a site's tilted moments cannot be formed (as a non-log-concave site's mode
// search fails at an absurd cavity).
class UnformableSites final : public Likelihood {
 public:
  std::optional<TargetKind> target_kind() const override { return TargetKind::binary; }
  double log_likelihood(const Observation& y, double f) const override {
    return probit_.log_likelihood(y, f);
  }
  double d_log_likelihood(const Observation& y, double f) const override {
    return probit_.d_log_likelihood(y, f);
  }
  double d2_log_likelihood(const Observation& y, double f) const override {
    return probit_.d2_log_likelihood(y, f);
  }
  TiltedMoments tilted_moments(const Observation&, double m, double v) const override {
    throw NumericalError(
        "test", "no tilted moments at m = " + std::to_string(m) + ", v = " + std::to_string(v));
  }

 private:
  likelihoods::ProbitLikelihood probit_{0.0, 0.0};
};

// Both objectives, on either engine: a failed status naming the error (the learner steps back
// from it), never an exception that ends the run.
TEST(Objectives, SitesThatCannotBeFormedAreAFailedStatus) {
  const Dataset d = toy(24, 4);
  const UnformableSites lik;
  TestKernel k(1.0, 1.0, 0.1);
  for (const char* name : {"tap", "ep"})
    for (const char* objective : {"evidence", "loo"}) {
      ObjectiveValue v;
      ASSERT_NO_THROW(
          v = engine(name)->hyperparameter_objective(problem_for(d), objective)->evaluate(k, lik))
          << name << " " << objective;
      EXPECT_NE(v.status.code, RunStatus::ok) << name << " " << objective;
      EXPECT_FALSE(v.status.message.empty()) << name << " " << objective;
    }
}

TEST(LooObjective, ValueEqualsTheDenseCavityPredictive) {
  // (1/N) sum_i log Z_i at the cavities recomputed from Sigma = (C^{-1} + T)^{-1} by dense
  // inverses, the sites nu = u + T <h> (as in dense_log_evidence).
  const Dataset d = toy(24, 5);
  for (const char* name : {"tap", "ep"})
    for (double kappa : {0.0, 0.03}) {  // 0.03: some tau_i < 0 on this set
      TestKernel k(1.3, 1.1, 0.2);
      const likelihoods::ProbitLikelihood lik(0.3, kappa);
      auto objective = engine(name)->hyperparameter_objective(problem_for(d), "loo");
      EXPECT_EQ(objective->quantity(), "loo_log_predictive");
      const ObjectiveValue v = objective->evaluate(k, lik);
      ASSERT_EQ(v.status.code, RunStatus::ok) << v.status.message;
      const auto& fit = *dynamic_cast<LooObjective&>(*objective).last_fit();
      const Eigen::MatrixXd C = k.gram(d.X_train);
      const Eigen::VectorXd& u = fit.slope;
      const Eigen::VectorXd mu = C * u;
      const Eigen::VectorXd nu = u + fit.tau.cwiseProduct(mu);
      Eigen::MatrixXd P = C.inverse();
      P.diagonal() += fit.tau;
      const Eigen::MatrixXd Sigma = P.inverse();
      double ref = 0.0;
      for (Eigen::Index i = 0; i < 24; ++i) {
        const double lam = 1.0 / (1.0 / Sigma(i, i) - fit.tau(i));
        const double m = lam * (mu(i) / Sigma(i, i) - nu(i));
        ref += lik.tilted_moments({d.y_train(i)}, m, lam).log_z / 24.0;
      }
      EXPECT_NEAR(v.value, ref, 1e-9 * std::fabs(ref)) << name << " kappa " << kappa;
      if (kappa > 0.0) {
        EXPECT_LT(fit.tau.minCoeff(), 0.0);
      }
    }
}

TEST(LooObjective, GradientMatchesFiniteDifferences) {
  // The cavities move with theta: the adjoint of the fixed point against central differences
  // of the re-converged objective (converged to ~1e-13; step 1e-4 relative).
  for (unsigned seed : {3u, 5u})  // seed 5 with kappa 0.03 has sites with tau_i < 0
    for (const char* name : {"tap", "ep"}) {
      const Dataset d = toy(24, seed);
      TestKernel k(1.3, 0.9, 0.2);
      likelihoods::ProbitLikelihood lik(0.4, seed == 5 ? 0.03 : 0.02);
      auto objective = engine(name)->hyperparameter_objective(problem_for(d), "loo");
      const ObjectiveValue v = objective->evaluate(k, lik);
      ASSERT_EQ(v.status.code, RunStatus::ok) << v.status.message;
      ASSERT_EQ(v.gradient.size(), 5);
      // The kernel's noise and the probit's input noise enter each site only as lambda_i +
      // noise (EP is invariant under moving site-local Gaussian noise): equal entries.
      EXPECT_NEAR(v.gradient(2), v.gradient(3), 1e-8 * std::fabs(v.gradient(3))) << name;
      const Eigen::VectorXd fd = finite_differences(*objective, k, lik);
      for (Eigen::Index j = 0; j < 5; ++j)
        EXPECT_NEAR(v.gradient(j), fd(j), 1e-6 * std::fabs(fd(j)))
            << name << " seed " << seed << " entry " << j;
    }
}

TEST(LooObjective, WarmStartGivesTheColdStartValue) {
  const Dataset d = toy(24, 7);
  for (const char* name : {"tap", "ep"}) {
    likelihoods::ProbitLikelihood lik(0.3, 0.0);
    auto warm = engine(name)->hyperparameter_objective(problem_for(d), "loo");
    TestKernel k0(1.0, 1.0, 0.2), k1(1.5, 0.8, 0.25);
    ASSERT_EQ(warm->evaluate(k0, lik).status.code, RunStatus::ok);
    const ObjectiveValue w = warm->evaluate(k1, lik);
    const ObjectiveValue c =
        engine(name)->hyperparameter_objective(problem_for(d), "loo")->evaluate(k1, lik);
    ASSERT_EQ(w.status.code, RunStatus::ok) << w.status.message;
    ASSERT_EQ(c.status.code, RunStatus::ok) << c.status.message;
    EXPECT_NEAR(w.value, c.value, 1e-10 * std::fabs(c.value)) << name;
    EXPECT_LT((w.gradient - c.gradient).cwiseAbs().maxCoeff(), 1e-8) << name;
    const ObjectiveValue f =
        engine(name, 2)->hyperparameter_objective(problem_for(d), "loo")->evaluate(k1, lik);
    EXPECT_NE(f.status.code, RunStatus::ok) << name;
  }
}

// A 1-D minimizer independent of Ceres: bisection on the sign of the derivative within 4 of
// the start (the learner's bounded coordinate).
class BisectionOptimizer final : public Optimizer {
 public:
  OptimizerReport minimize(const SmoothObjective& f, Eigen::VectorXd& x) const override {
    double lo = x(0) - 4.0, hi = x(0) + 4.0, v = 0.0;
    Eigen::VectorXd g(1), p(1);
    OptimizerReport r;
    for (r.iterations = 0; r.iterations < 45; ++r.iterations) {
      p(0) = 0.5 * (lo + hi);
      if (!f.evaluate(p, &v, &g)) return r;
      (g(0) > 0 ? hi : lo) = p(0);
    }
    x = p;
    r.converged = true;
    r.final_value = v;
    return r;
  }
};

// The objectives drive the core learner (what the removed `evidence_width` engine did for the
// Gaussian width): the learned length scale is stationary and beats its neighbours.
TEST(HyperparameterLearning, MaximizesEachObjective) {
  const Dataset d = toy(24, 3);
  for (const char* objective_name : {"evidence", "loo"}) {
    TestKernel k(1.0, 1.0, 0.1);
    likelihoods::ProbitLikelihood lik(0.0, 0.0);
    auto objective = engine("tap")->hyperparameter_objective(problem_for(d), objective_name);
    LearningOptions options;
    options.parameters = {"kernel.length_scale"};
    const LearningReport report =
        learn_hyperparameters(k, lik, *objective, BisectionOptimizer(), options);
    ASSERT_EQ(report.status.code, RunStatus::ok) << report.status.message;
    EXPECT_EQ(report.quantity, objective->quantity());
    const double l = k.hyperparameters()[1].value(0);
    EXPECT_GT(l, 0.05) << objective_name;  // an interior optimum of this toy set
    EXPECT_LT(l, 20.0) << objective_name;
    EXPECT_LT(report.gradient_norm, 1e-6) << objective_name;
    const double best = objective->evaluate(k, lik).value;
    EXPECT_NEAR(best, report.value, 1e-10 * std::fabs(best));
    for (double f : {1.2, 1.0 / 1.2}) {
      TestKernel q(1.0, l * f, 0.1);
      EXPECT_LT(objective->evaluate(q, lik).value, best) << objective_name << " " << f;
    }
  }
}

TEST(WarmStartedFixedPoint, RetriesColdWhenTheWarmSolveFails) {
  const Dataset d = toy(12, 2);
  const likelihoods::ProbitLikelihood lik(0.0, 0.0);
  const Eigen::MatrixXd C = TestKernel(1.0, 1.0, 0.1).gram(d.X_train);
  int warm = 0, cold = 0;
  WarmStartedFixedPoint fp;
  const auto solve = [&](const MeanFieldFit* start) {
    MeanFieldFit fit = solve_ep(C, d.y_train, lik, EpOptions{}, start);
    if (start) {
      ++warm;
      fit.status = {RunStatus::not_converged, "warm start refused", 1};
    } else {
      ++cold;
    }
    return fit;
  };
  EXPECT_EQ(fp.solve(solve).status.code, RunStatus::ok);
  EXPECT_EQ(fp.solve(solve).status.code, RunStatus::ok);
  EXPECT_EQ(warm, 1);
  EXPECT_EQ(cold, 2);
  ASSERT_TRUE(fp.last().has_value());
}

// Rated fits: the warm start is the fit of the largest value rated, not the last one (a
// worse fit, or one whose value is not finite, is not started from).
TEST(WarmStartedFixedPoint, RatedFitsStartFromTheBest) {
  int calls = 0;
  std::vector<int> started_from;  // the iteration count marking the warm start, 0 when cold
  WarmStartedFixedPoint fp;
  auto solve = [&] {
    return fp.solve([&](const MeanFieldFit* start) {
      started_from.push_back(start ? start->status.iterations : 0);
      MeanFieldFit fit;
      fit.status = {RunStatus::ok, "", ++calls};
      return fit;
    });
  };
  solve();
  fp.rate(-10.0);  // fit 1
  solve();
  fp.rate(-20.0);  // fit 2, worse
  solve();
  fp.rate(std::nan(""));  // fit 3, no value
  solve();
  fp.rate(-5.0);  // fit 4, the best
  solve();
  EXPECT_EQ(started_from, (std::vector<int>{0, 1, 1, 1, 4}));
  ASSERT_TRUE(fp.last().has_value());
  EXPECT_EQ(fp.last()->status.iterations, 4);
}

TEST(Engines, OfferTheirObjectives) {
  const Dataset d = toy(4, 1);
  const std::vector<std::string> both{"evidence", "loo"};
  EXPECT_EQ(engine("tap")->hyperparameter_objectives({}, PriorKind::exact), both);
  EXPECT_EQ(engine("ep")->hyperparameter_objectives({}, PriorKind::exact), both);
  const std::vector<std::string> evidence{"evidence"};  // loo is refused on inducing points
  EXPECT_EQ(engine("ep")->hyperparameter_objectives({}, PriorKind::inducing), evidence);
  EXPECT_THROW(engine("ep")->hyperparameter_objective(problem_for(d), "marginal"), ConfigError);
}

}  // namespace
}  // namespace quench::latent_gp::hyperparameter_objectives_test
