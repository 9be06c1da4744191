// The check of a likelihood's positive real parameters, at construction and in
// set_hyperparameter, with a message naming the plugin and the parameter.
#pragma once

#include <string>

#include <Eigen/Core>

namespace quench::likelihoods {

/// `value` when it is finite and > 0; else ConfigError "<plugin>: '<name>' must be > 0, got
/// <value>" (or "must be finite").
double positive_parameter(const std::string& plugin, const std::string& name, double value);
/// The one entry of a hyperparameter block, checked as positive_parameter does; ConfigError
/// for a block of another size.
double positive_block(const std::string& plugin, const std::string& name,
                      const Eigen::VectorXd& value);

}  // namespace quench::likelihoods
