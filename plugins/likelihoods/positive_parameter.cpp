#include "positive_parameter.h"

#include <cmath>

#include "quench/errors.h"
#include "quench/parameters.h"

namespace quench::likelihoods {

double positive_parameter(const std::string& plugin, const std::string& name, double value) {
  const char* broken = !(value > 0) ? "must be > 0" : !std::isfinite(value) ? "must be finite" : "";
  if (*broken)
    throw ConfigError(
        {}, plugin + ": '" + name + "' " + broken + ", got " + to_string(ParamValue(value)));
  return value;
}

double positive_block(const std::string& plugin, const std::string& name,
                      const Eigen::VectorXd& value) {
  if (value.size() != 1)
    throw ConfigError(
        {}, plugin + ": '" + name + "' takes one number, got " + std::to_string(value.size()));
  return positive_parameter(plugin, name, value(0));
}

}  // namespace quench::likelihoods
