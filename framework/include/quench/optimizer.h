// Minimizers of smooth objectives (value + gradient).
#pragma once

#include <functional>
#include <string>

#include <Eigen/Core>

#include "quench/component.h"

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
};

}  // namespace quench
