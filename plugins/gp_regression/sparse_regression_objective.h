// The hyperparameter objective of inducing-point GP regression: the log evidence of the
// FITC or SoR model, or Titsias' (2009) variational lower bound for VFE,
//   log N(y | 0, K~ + sigma^2 I) - [VFE] 1/(2 sigma^2) sum_i (K_ii - Q_ii),
// with its analytic gradient by every kernel hyperparameter and the noise variance, in
// O(N M^2) (quench/low_rank_evidence.h). The inducing inputs stay where the pipeline chose them.
#pragma once

#include <memory>

#include "quench/hyperparameter_objective.h"
#include "quench/inducing_points.h"

namespace quench::gp_regression {

std::unique_ptr<HyperparameterObjective> make_sparse_evidence(const Eigen::MatrixXd& X,
                                                              const Eigen::VectorXd& y,
                                                              const InducingInputs& inducing);

}  // namespace quench::gp_regression
