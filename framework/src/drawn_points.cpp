#include "quench/drawn_points.h"

#include <cmath>

#include "quench/errors.h"

namespace quench {

DrawnPoints drawn_points(const Eigen::VectorXd& weights, Eigen::Index n,
                         const std::string& engine) {
  if (weights.size() != n) throw NumericalError(engine, "weight vector has the wrong length");
  DrawnPoints drawn;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(weights(i) >= 0.0) || std::floor(weights(i)) != weights(i))
      throw ConfigError({}, engine +
                                " retrains on occupation counts (a bootstrap resampler), got "
                                "the weight " +
                                std::to_string(weights(i)));
    if (weights(i) > 0) drawn.rows.push_back(i);
  }
  drawn.counts.resize(static_cast<Eigen::Index>(drawn.rows.size()));
  for (std::size_t b = 0; b < drawn.rows.size(); ++b)
    drawn.counts(static_cast<Eigen::Index>(b)) = static_cast<int>(weights(drawn.rows[b]));
  return drawn;
}

}  // namespace quench
