// Summaries of Monte-Carlo draws (rows = draws, columns = quantities): means, standard
// deviations, quantile intervals, kernel density estimates. Used by posterior samplers.
#pragma once

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

struct DrawSummary {
  Eigen::VectorXd mean, sd, median, lower, upper;  ///< per column; sd with T - 1
  Eigen::VectorXd zero_fraction;                   ///< fraction of draws exactly 0
};

/// Per-column summary of draws (T x p); [lower, upper] is the central `level` interval
/// (quantiles (1 -/+ level)/2, type-7 linear interpolation as R's quantile()).
QUENCH_API DrawSummary summarize_draws(const Eigen::MatrixXd& draws, double level = 0.95);

/// Type-7 quantile of v (copied, sorted) at probability q in [0, 1].
QUENCH_API double quantile(Eigen::VectorXd v, double q);

/// Gaussian kernel density of x on `grid`, Silverman's bandwidth 0.9 min(sd, IQR/1.34) T^-1/5.
QUENCH_API Eigen::VectorXd kernel_density(const Eigen::VectorXd& x, const Eigen::VectorXd& grid);

/// Draws of i.i.d. Exp(1) variates, -log u (004 Algorithm 1).
class RngStream;
QUENCH_API Eigen::VectorXd exponential_draws(RngStream& rng, Eigen::Index n);

}  // namespace quench
