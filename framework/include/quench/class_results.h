// The outputs of a C-class run (a classes target): class probabilities read from a model's
// probability.<c> columns, the test and leave-one-out outputs from class probabilities, and
// argmax with ties to the lower class. Shared by every multi-class engine.
#pragma once

#include <string>

#include <Eigen/Core>

#include "quench/dataset.h"
#include "quench/export.h"
#include "quench/model.h"
#include "quench/results.h"

namespace quench {

/// The column `name`.<c> of a multi-class model ("probability.2").
QUENCH_API std::string class_column(const char* name, Eigen::Index c);

/// The class probabilities (m x C) from C-column Predictions (probability.<c>).
QUENCH_API Eigen::MatrixXd class_probabilities(const Predictions& p, Eigen::Index classes);

/// A C-class run's outputs from class probabilities at the test inputs (m x C): the matrix
/// test_probability, the vector test_class (argmax, ties to the lower class) and, when the test
/// labels are known, test_error, test_errors and test_log_predictive (mean log probability of
/// the true class).
QUENCH_API void add_class_test_outputs(Results& r, const Dataset& data,
                                       const Eigen::MatrixXd& probability);

/// The leave-one-out outputs from LOO class probabilities (N x C): loo_probability, loo_error,
/// loo_errors (an exact count: argmax != label, ties to the lower class) and loo_log_predictive
/// (mean log probability of the left-out label).
QUENCH_API void add_class_loo_outputs(Results& r, const Eigen::VectorXi& y,
                                      const Eigen::MatrixXd& probability);

/// argmax of each row, the lower index on ties.
QUENCH_API Eigen::VectorXi row_argmax(const Eigen::MatrixXd& values);

}  // namespace quench
