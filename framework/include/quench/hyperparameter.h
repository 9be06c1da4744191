// Learnable hyperparameters of a component (kernel or likelihood): named blocks of positive
// numbers with bounds, laid out one after the other in a flat vector theta. Derivatives
// (Kernel::cross_derivative, Likelihood::d_log_tilted_normalizer) are taken with respect to
// the entries of that flat vector, on the natural scale of the values.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

struct Hyperparameter {
  std::string name;       ///< the component's parameter name: "length_scales", "noise", ...
  Eigen::VectorXd value;  ///< current value(s), within [lower, upper]
  double lower = 0.0;     ///< bounds of every entry, natural scale
  double upper = std::numeric_limits<double>::infinity();
  bool log_scale = true;  ///< optimized as log(value) (all positive scales)
  bool is_list = false;   ///< written as a YAML list (ARD length scales), else a number
  /// Whether a host that learns "the component's hyperparameters" without naming them
  /// (Python's learn_noise=True) learns this block; false for one whose evidence is typically
  /// flat or multimodal (the Student-t's degrees of freedom). Pipelines name what they learn.
  bool learned_by_default = true;
  /// The block's values are in the target's units to this power (the Student-t's scale 1, a
  /// noise variance 2; 0: dimensionless). A host that standardizes the targets (sd 1) may
  /// search such a block on its own interval, [0.01^p, 1000^p], rather than the plugin's wider
  /// bounds (Python's estimators do).
  int target_unit_power = 0;
};

/// Number of entries of the flat vector (the sum of the blocks' sizes).
QUENCH_API Eigen::Index flat_size(const std::vector<Hyperparameter>& blocks);
/// Offset of the block named `name` in the flat vector; -1 when there is none.
QUENCH_API Eigen::Index flat_offset(const std::vector<Hyperparameter>& blocks,
                                    const std::string& name);
/// The block named `name`, or nullptr.
QUENCH_API const Hyperparameter* find_hyperparameter(const std::vector<Hyperparameter>& blocks,
                                                     const std::string& name);

}  // namespace quench
