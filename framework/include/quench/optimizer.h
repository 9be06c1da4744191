// Minimizers of smooth objectives (value + gradient).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/component.h"
#include "quench/rng.h"

namespace quench {

/// f(x) and, when gradient is non-null, its gradient.
class QUENCH_API SmoothObjective {
 public:
  virtual ~SmoothObjective();
  virtual Eigen::Index dimension() const = 0;
  /// Returns false when f cannot be evaluated at x (the optimizer then backs off).
  virtual bool evaluate(const Eigen::VectorXd& x, double* value,
                        Eigen::VectorXd* gradient) const = 0;
};

/// A smooth objective that is a sum over N examples, L(x) = sum_i l_i(x) + r(x), which can also
/// be evaluated on a mini-batch B as the unbiased estimate (N / |B|) sum_{i in B} l_i(x) + r(x)
/// (for stochastic optimizers such as Adam). evaluate() is the full sum.
class QUENCH_API StochasticObjective : public SmoothObjective {
 public:
  ~StochasticObjective() override;
  virtual Eigen::Index size() const = 0;  ///< N
  virtual bool evaluate_batch(const Eigen::VectorXd& x, const std::vector<Eigen::Index>& batch,
                              double* value, Eigen::VectorXd* gradient) const = 0;
};

/// Box constraints lower <= x <= upper, entry by entry; an infinite entry leaves that side open.
struct Box {
  Eigen::VectorXd lower, upper;
};

struct OptimizerReport {
  bool converged = false;
  int iterations = 0;
  double final_value = 0.0;
  std::string message;
};

class QUENCH_API Optimizer : public Component {
 public:
  ~Optimizer() override;
  /// Minimizes from the start value in x (a warm start), leaving the minimizer in x.
  virtual OptimizerReport minimize(const SmoothObjective& objective, Eigen::VectorXd& x) const = 0;
  /// Minimizes within the box from a start x inside it, leaving the minimizer in x, on a
  /// bound where the minimum lies on one. The default maps each entry with two finite bounds
  /// through a logistic function of an unconstrained coordinate onto its interval (entries
  /// with an open side are left free) and minimizes with minimize(): every iterate is
  /// feasible, but the map flattens near a bound, so a minimum on a bound is approached
  /// slowly and never reached. Optimizers that treat bounds themselves override it.
  virtual OptimizerReport minimize_within(const SmoothObjective& objective, const Box& box,
                                          Eigen::VectorXd& x) const;
  /// Minimizes a sum over examples; stochastic optimizers draw their mini-batches from rng
  /// (one stream per task keeps results independent of the thread count). The default
  /// ignores rng and minimizes the full objective with minimize().
  virtual OptimizerReport minimize_stochastic(const StochasticObjective& objective,
                                              Eigen::VectorXd& x, RngStream& rng) const;
};

}  // namespace quench
