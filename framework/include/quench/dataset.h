// Data sets: CSV with a header row, a target column chosen by name, a train/test split and
// optional standardization over the training set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "quench/export.h"

namespace quench {

/// A CSV file as numbers. Every field is parsed; errors name the file, row and column.
struct QUENCH_API CsvTable {
  std::string file;
  std::vector<std::string> columns;
  Eigen::MatrixXd values;                                    ///< rows x columns
  Eigen::Index column_index(const std::string& name) const;  ///< -1 when absent
};

/// Reads a comma-separated file with a header. Throws DataError naming the row and column
/// for non-numeric fields, NaN/Inf, ragged rows, duplicate or empty header names, empty files.
QUENCH_API CsvTable read_csv(const std::string& path);

enum class SplitRule {
  none,         ///< every row trains (unless a test file is given)
  column,       ///< a 0/1 column (default name "train") marks training rows; it is not an input
  first_train,  ///< the first `count` rows train, the rest test
  first_test,   ///< the first `count` rows test, the rest train
  fraction,     ///< a seeded random `fraction` of rows trains
};

struct DataSpec {
  std::string train_file;           ///< path
  std::string test_file;            ///< optional second file holding only test rows
  std::string target = "y";         ///< target column
  std::vector<std::string> inputs;  ///< input columns; empty = all but target and split column
  SplitRule split = SplitRule::none;
  std::string split_column = "train";
  std::int64_t count = 0;           ///< for first_train / first_test
  double fraction = 0.0;            ///< for fraction
  std::uint64_t seed = 0;           ///< for fraction
  bool standardize_inputs = false;  ///< zero mean, unit variance over the training rows
  bool standardize_target = false;
};

struct Dataset {
  std::string name;
  std::vector<std::string> input_names;
  Eigen::MatrixXd X_train;
  Eigen::VectorXd y_train;
  Eigen::MatrixXd X_test;  ///< 0 rows when there is no test set
  Eigen::VectorXd y_test;
  /// Standardization applied (x - mean) / scale; mean 0 and scale 1 when none.
  Eigen::RowVectorXd input_mean, input_scale;
  double target_mean = 0.0, target_scale = 1.0;
};

/// Loads and splits a data set. Throws DataError for bad file content, for unknown columns
/// (naming the column and listing the available ones) and for an invalid split.
/// Standardization uses the training rows' mean and sample standard deviation (n - 1).
QUENCH_API Dataset load_dataset(const DataSpec& spec);

}  // namespace quench
