// Scalar learnable blocks shared by the kernels here (amplitude, bias, noise, period, alpha,
// value): the block as hyperparameters() reports it, and the checks of set_hyperparameter() and
// cross_derivative().
#pragma once

#include <string>

#include <Eigen/Core>

#include "quench/hyperparameter.h"

namespace quench::kernels {

/// The one-entry block `name` at `value`, bounds [lower, upper], optimized on the log scale.
Hyperparameter scalar_block(const std::string& name, double value, double lower, double upper);

/// The entry of a value given for the one-entry block `name`. Throws ConfigError unless it has one
/// entry, finite and >= 0 (> 0 when `positive`).
double checked_scalar(const std::string& name, const Eigen::VectorXd& value, bool positive);

/// Throws ConfigError unless entry j lies in a flat vector of n entries.
void check_flat_entry(Eigen::Index j, Eigen::Index n);

}  // namespace quench::kernels
