#include "calibration.h"

#include <algorithm>
#include <cmath>

namespace quench::vboot {

ClassificationScores score_probabilities(const Eigen::MatrixXd& P, const Eigen::VectorXd& labels,
                                         int bins) {
  ClassificationScores s;
  const Eigen::Index m = P.rows();
  s.reliability = Eigen::MatrixXd::Zero(bins, 3);
  s.predicted.resize(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    Eigen::Index c = 0;
    const double confidence = P.row(i).maxCoeff(&c);
    const auto y = static_cast<Eigen::Index>(labels(i));
    const double correct = c == y ? 1.0 : 0.0;
    s.predicted(i) = double(c);
    s.error += 1.0 - correct;
    s.mnll -= std::log(std::max(P(i, y), 1e-300));
    const auto b = std::min<Eigen::Index>(bins - 1, static_cast<Eigen::Index>(confidence * bins));
    s.reliability(b, 0) += confidence;
    s.reliability(b, 1) += correct;
    s.reliability(b, 2) += 1.0;
  }
  if (m == 0) return s;
  s.error /= double(m);
  s.mnll /= double(m);
  for (Eigen::Index b = 0; b < bins; ++b) {
    const double count = s.reliability(b, 2);
    if (count == 0) continue;
    s.reliability(b, 0) /= count;
    s.reliability(b, 1) /= count;
    s.ece += count / double(m) * std::abs(s.reliability(b, 1) - s.reliability(b, 0));
  }
  return s;
}

}  // namespace quench::vboot
