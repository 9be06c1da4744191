#include "scalar_hyperparameters.h"

#include <cmath>

#include "quench/errors.h"

namespace quench::kernels {

Hyperparameter scalar_block(const std::string& name, double value, double lower, double upper) {
  Hyperparameter h;
  h.name = name;
  h.value = Eigen::VectorXd::Constant(1, value);
  h.lower = lower;
  h.upper = upper;
  h.log_scale = true;
  return h;
}

double checked_scalar(const std::string& name, const Eigen::VectorXd& value, bool positive) {
  if (value.size() != 1)
    throw ConfigError({}, "kernel hyperparameter '" + name + "' has 1 entry, got " +
                              std::to_string(value.size()));
  const double x = value(0);
  if (!((positive ? x > 0 : x >= 0) && std::isfinite(x)))
    throw ConfigError({}, "kernel hyperparameter '" + name + "' must be finite and " +
                              (positive ? "> 0" : ">= 0"));
  return x;
}

void check_flat_entry(Eigen::Index j, Eigen::Index n) {
  if (j < 0 || j >= n)
    throw ConfigError({}, "kernel hyperparameter entry " + std::to_string(j) +
                              " is outside the flat vector of " + std::to_string(n) + " entries");
}

}  // namespace quench::kernels
