// The points a resample draws, for engines retrained on occupation counts (mc_bootstrap's
// inner engines, exact_loo's): a bootstrap or subsample gives every training point a count
// k_i >= 0, and a retrain fits the points with k_i > 0, each counted k_i times.
#pragma once

#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

/// The points a sample draws: the i with k_i = weights_i > 0, in order, and their counts k_i.
struct DrawnPoints {
  std::vector<Eigen::Index> rows;
  Eigen::VectorXi counts;
};

/// The drawn points of `weights` over n training points: ConfigError naming `engine` when a
/// weight is not a non-negative integer (a retrain on occupation counts, not on real weights),
/// NumericalError when there are not n weights.
QUENCH_API DrawnPoints drawn_points(const Eigen::VectorXd& weights, Eigen::Index n,
                                    const std::string& engine);

}  // namespace quench
