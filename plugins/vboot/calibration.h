// Scores of predicted class probabilities (002 Sec. 5 and Tables 2-3): error, mean negative
// log-likelihood, expected calibration error and the reliability diagram's bins.
#pragma once

#include <Eigen/Core>

namespace quench::vboot {

struct ClassificationScores {
  double error = 0.0;  ///< fraction with argmax_c P_ic != y_i
  double mnll = 0.0;   ///< -(1/m) sum_i log P_{i y_i}
  /// ECE = sum_b (m_b / m) |accuracy_b - confidence_b| over equal-width confidence bins.
  double ece = 0.0;
  /// bins x 3: mean confidence, accuracy and count per bin (empty bins: 0, 0, 0).
  Eigen::MatrixXd reliability;
  Eigen::VectorXd predicted;  ///< argmax class per row
};

/// P (m x C, rows sum to one), labels 0..C-1. Probabilities below 1e-300 count as 1e-300 in
/// the MNLL so that a confident mistake gives a large finite value.
ClassificationScores score_probabilities(const Eigen::MatrixXd& P, const Eigen::VectorXd& labels,
                                         int bins);

}  // namespace quench::vboot
