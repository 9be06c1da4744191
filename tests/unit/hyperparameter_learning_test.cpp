// The learner on objectives with known optima: it finds them in log coordinates, stops at a
// bound with the entry flagged, reports failures as statuses, and refuses bad requests with
// every problem listed.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "toy_models.h"

#include "quench/errors.h"
#include "quench/hyperparameter_learning.h"

namespace quench::hyperparameter_learning_test {
namespace {

// Steepest descent with a backtracking line search: slow but independent of Ceres.
class GradientDescent final : public Optimizer {
 public:
  OptimizerReport minimize(const SmoothObjective& f, Eigen::VectorXd& x) const override {
    OptimizerReport r;
    double value = 0;
    Eigen::VectorXd g;
    if (!f.evaluate(x, &value, &g)) return r;
    for (r.iterations = 0; r.iterations < 20000; ++r.iterations) {
      if (g.norm() < 1e-10) {
        r.converged = true;
        break;
      }
      double step = 1.0, trial = 0;
      Eigen::VectorXd y, gy;
      while (step > 1e-20 && !(f.evaluate(x - step * g, &trial, &gy) && trial < value)) step /= 2;
      if (step <= 1e-20) {
        r.converged = true;  // no further decrease at rounding level
        break;
      }
      x -= step * g;
      value = trial;
      g = gy;
    }
    r.final_value = value;
    return r;
  }
};

// value = -sum_j (log theta_j - log target_j)^2 over the kernel's flat entries and the
// likelihood's noise, maximized at theta = target.
class LogQuadratic final : public HyperparameterObjective {
 public:
  explicit LogQuadratic(Eigen::VectorXd target) : target_(std::move(target)) {}
  std::string quantity() const override { return "test"; }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override {
    Eigen::VectorXd theta(target_.size());
    Eigen::Index k = 0;
    for (const auto& h : kernel.hyperparameters())
      for (Eigen::Index i = 0; i < h.value.size(); ++i) theta(k++) = h.value(i);
    for (const auto& h : likelihood.hyperparameters()) theta(k++) = h.value(0);
    ObjectiveValue v;
    if (theta(0) > fail_above_) {
      v.status = {RunStatus::failed, "no fixed point", 0};
      return v;
    }
    const Eigen::ArrayXd r = theta.array().log() - target_.array().log();
    v.value = -r.square().sum();
    v.gradient = (-2.0 * r / theta.array()).matrix();
    return v;
  }
  double fail_above_ = 1e300;

 private:
  Eigen::VectorXd target_;
};

struct Components {
  testing::ArdSquaredExponential kernel{Eigen::Vector2d(1.0, 1.0), 1.0, 0.1};
  testing::NoiseOnlyGaussian likelihood{0.5};
  GradientDescent optimizer;
};

TEST(HyperparameterLearning, FindsTheOptimumOfEveryRequestedBlock) {
  Components s;
  Eigen::VectorXd target(5);
  target << 3.0, 0.2, 7.0, 0.1, 0.05;  // length scales, amplitude, kernel noise, likelihood noise
  LogQuadratic objective(target);
  LearningOptions o;
  o.parameters = {"kernel.length_scales", "kernel.amplitude", "likelihood.noise"};
  const LearningReport r = learn_hyperparameters(s.kernel, s.likelihood, objective, s.optimizer, o);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  ASSERT_EQ(r.learned.size(), 3u);
  EXPECT_EQ(r.learned[0].key, "kernel.length_scales");
  EXPECT_TRUE(r.learned[0].is_list);
  EXPECT_NEAR(r.learned[0].value(0), 3.0, 1e-7);
  EXPECT_NEAR(r.learned[0].value(1), 0.2, 1e-7);
  EXPECT_NEAR(r.learned[1].value(0), 7.0, 1e-6);
  EXPECT_NEAR(r.learned[2].value(0), 0.05, 1e-8);
  // The unlearned kernel noise keeps its value; the components hold the learned values.
  EXPECT_EQ(s.kernel.diagonal_noise(), 0.1);
  EXPECT_NEAR(*s.likelihood.gaussian_noise_variance(), 0.05, 1e-8);
  EXPECT_LT(r.gradient_norm, 1e-8);
  EXPECT_NEAR(r.value, -std::pow(std::log(0.1 / 0.1), 2), 1e-12);
}

// The learner asks for the value at the start, at the optimizer's result and, after its
// probe's steps (docs/hyperparameters.md, "Status"), at the learned values again: each an
// objective's fit (an EP evaluation) unless kept. Without restarts or continuations every point
// reaches the objective once, the count is the report's, and the components end at the learned
// values (checked above).
TEST(HyperparameterLearning, NoPointIsEvaluatedTwice) {
  class Recorded final : public HyperparameterObjective {
   public:
    explicit Recorded(Eigen::VectorXd target) : inner_(std::move(target)) {}
    std::string quantity() const override { return "test"; }
    ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override {
      Eigen::VectorXd theta(5);  // 2 length scales, amplitude, kernel noise, likelihood noise
      Eigen::Index k = 0;
      for (const auto& h : kernel.hyperparameters())
        for (Eigen::Index i = 0; i < h.value.size(); ++i) theta(k++) = h.value(i);
      theta(k) = likelihood.hyperparameters().front().value(0);
      points.push_back(theta);
      return inner_.evaluate(kernel, likelihood);
    }
    std::vector<Eigen::VectorXd> points;

   private:
    LogQuadratic inner_;
  };
  Components s;
  Eigen::VectorXd target(5);
  target << 3.0, 0.2, 7.0, 0.1, 0.05;
  Recorded objective(target);
  LearningOptions o;
  o.parameters = {"kernel.length_scales", "kernel.amplitude", "likelihood.noise"};
  const LearningReport r = learn_hyperparameters(s.kernel, s.likelihood, objective, s.optimizer, o);
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  EXPECT_EQ(r.evaluations, static_cast<int>(objective.points.size()));
  for (std::size_t a = 0; a < objective.points.size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      EXPECT_NE(objective.points[a], objective.points[b]) << "evaluations " << b << " and " << a;
}

TEST(HyperparameterLearning, StopsAtABoundAndSaysSo) {
  Components s;
  Eigen::VectorXd target(5);
  target << 3.0, 0.2, 7.0, 0.1, 0.05;
  LogQuadratic objective(target);
  LearningOptions o;
  o.parameters = {"kernel.amplitude"};
  o.bounds["kernel.amplitude"] = {0.5, 2.0};  // the optimum 7 lies above
  const LearningReport r = learn_hyperparameters(s.kernel, s.likelihood, objective, s.optimizer, o);
  EXPECT_TRUE(r.learned[0].at_bound);
  EXPECT_NEAR(r.learned[0].value(0), 2.0, 1e-3);
  EXPECT_EQ(r.gradient_norm, 0.0);  // the only entry is at its bound
}

// An optimizer that says it converged without moving (a premature stop).
class StopsAtOnce final : public Optimizer {
 public:
  OptimizerReport minimize(const SmoothObjective&, Eigen::VectorXd&) const override {
    OptimizerReport r;
    r.converged = true;
    r.message = "stopped at once";
    return r;
  }
  OptimizerReport minimize_within(const SmoothObjective& f, const Box&,
                                  Eigen::VectorXd& x) const override {
    return minimize(f, x);
  }
};

// The kernel's amplitude of `s` learned by `objective` with an optimizer that stops at once.
LearningReport learn_amplitude_stopping_at_once(Components& s, HyperparameterObjective& objective) {
  LearningOptions o;
  o.parameters = {"kernel.amplitude"};
  return learn_hyperparameters(s.kernel, s.likelihood, objective, StopsAtOnce(), o);
}

// The learner checks a stop, not the optimizer's word: from a stop short of the optimum it
// goes on from where a step along the gradient gains (3 times at most), and reports a point
// still improvable then as not converged; with an optimizer that converges, learning is ok.
TEST(HyperparameterLearning, AStopShortOfTheOptimumIsNotConverged) {
  Components s;
  Eigen::VectorXd target(5);
  target << 1.0, 1.0, 50.0, 0.1, 0.5;  // the amplitude's optimum 3.9 log units away
  LogQuadratic objective(target);
  const LearningReport r = learn_amplitude_stopping_at_once(s, objective);
  EXPECT_EQ(r.status.code, RunStatus::not_converged);
  EXPECT_NE(r.status.message.find("stopped at once, went on: stopped at once"), std::string::npos)
      << r.status.message;
  EXPECT_NE(r.status.message.find("a step along the gradient still gains"), std::string::npos);
  // It went on 3 times, each by at most 0.01 log units along the gradient: up to e^0.03.
  EXPECT_GT(r.learned[0].value(0), std::exp(0.02));
  EXPECT_LE(r.learned[0].value(0), std::exp(0.03) * (1 + 1e-12));
  Components t;
  LearningOptions o;
  o.parameters = {"kernel.amplitude"};
  const LearningReport done =
      learn_hyperparameters(t.kernel, t.likelihood, objective, t.optimizer, o);
  EXPECT_EQ(done.status.code, RunStatus::ok) << done.status.message;
  EXPECT_NEAR(done.learned[0].value(0), 50.0, 1e-5);
}

// An objective whose gradient is not its values' (the log quadratic's, 10 off in log a): at the
// values' optimum no step gains, but the gradient promises a gain: not converged, not ok.
class GradientOffByAConstant final : public HyperparameterObjective {
 public:
  std::string quantity() const override { return "test"; }
  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood&) override {
    const double a = kernel.hyperparameters()[1].value(0);  // the amplitude, optimum 2
    ObjectiveValue v;
    v.value = -std::pow(std::log(a / 2.0), 2);
    v.gradient = Eigen::VectorXd::Zero(5);  // 2 length scales, amplitude, noise; likelihood noise
    v.gradient(2) = -2.0 * std::log(a / 2.0) / a + 10.0 / a;  // d/d log a is off by 10
    return v;
  }
};

TEST(HyperparameterLearning, AGradientTheValuesDoNotFollowIsNotConverged) {
  Components s;
  s.kernel.set_hyperparameter("amplitude", Eigen::VectorXd::Constant(1, 2.0));
  GradientOffByAConstant objective;
  const LearningReport r = learn_amplitude_stopping_at_once(s, objective);
  EXPECT_EQ(r.status.code, RunStatus::not_converged);
  EXPECT_NE(r.status.message.find("do not follow its gradient"), std::string::npos)
      << r.status.message;
}

TEST(HyperparameterLearning, RestartsAreSeededAndCounted) {
  Components s1, s2;
  Eigen::VectorXd target(5);
  target << 3.0, 0.2, 7.0, 0.1, 0.05;
  LogQuadratic f1(target), f2(target);
  LearningOptions o;
  o.parameters = {"kernel.amplitude"};
  o.restarts = 3;
  o.seed = 9;
  const LearningReport a = learn_hyperparameters(s1.kernel, s1.likelihood, f1, s1.optimizer, o);
  const LearningReport b = learn_hyperparameters(s2.kernel, s2.likelihood, f2, s2.optimizer, o);
  ASSERT_EQ(a.start_results.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(a.start_results[i], b.start_results[i]);
}

TEST(HyperparameterLearning, AnObjectiveThatCannotBeEvaluatedIsAFailedStatus) {
  Components s;
  LogQuadratic objective(Eigen::VectorXd::Constant(5, 2.0));
  objective.fail_above_ = 0.0;  // fails everywhere
  LearningOptions o;
  o.parameters = {"kernel.amplitude"};
  const LearningReport r = learn_hyperparameters(s.kernel, s.likelihood, objective, s.optimizer, o);
  EXPECT_EQ(r.status.code, RunStatus::failed);
  EXPECT_NE(r.status.message.find("no fixed point"), std::string::npos) << r.status.message;
}

TEST(HyperparameterLearning, BadRequestsAreRefusedAllAtOnce) {
  Components s;
  LearningOptions o;
  o.parameters = {"kernel.lenght_scales", "kernel.amplitude", "kernel.amplitude", "noise",
                  "likelihood.kappa"};
  o.bounds["kernel.amplitude"] = {2.0, 5.0};  // excludes the start value 1
  try {
    check_learning_request(s.kernel, s.likelihood, o);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.diagnostics().size(), 5u) << m;
    EXPECT_NE(m.find("unknown hyperparameter 'kernel.lenght_scales'"), std::string::npos) << m;
    EXPECT_NE(m.find("kernel.length_scales, kernel.amplitude, kernel.noise"), std::string::npos);
    EXPECT_NE(m.find("outside its bounds [2, 5]"), std::string::npos) << m;
    EXPECT_NE(m.find("'noise' is not kernel.<name> or likelihood.<name>"), std::string::npos);
    EXPECT_NE(m.find("'likelihood.kappa'"), std::string::npos) << m;
    EXPECT_NE(m.find("'kernel.amplitude' is named twice"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace quench::hyperparameter_learning_test
