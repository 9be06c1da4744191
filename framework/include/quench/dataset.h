// Data sets: CSV with a header row, a target column chosen by name, a train/test split and
// optional standardization over the training set.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "quench/errors.h"
#include "quench/export.h"
#include "quench/target.h"

namespace quench {

/// A CSV file as text cells (RFC 4180, read by libcsv): quotes removed, surrounding blanks of
/// unquoted fields trimmed. An unnamed first column (R's write.csv, pandas' to_csv with an
/// index) holds row names and is dropped; `row_names` says so.
struct QUENCH_API CsvTable {
  std::string file;
  std::vector<std::string> columns;
  std::vector<std::string> cells;  ///< rows x columns, row-major
  std::vector<int> rows;           ///< 1-based file line of each data row (the header is 1)
  bool row_names = false;          ///< an unnamed first column was dropped
  Eigen::Index size() const { return static_cast<Eigen::Index>(rows.size()); }
  const std::string& cell(Eigen::Index row, Eigen::Index column) const;
  Eigen::Index column_index(const std::string& name) const;  ///< -1 when absent
};

/// Reads a comma-separated file with a header. Throws DataError naming the row and column for
/// malformed quoting, ragged rows, duplicate or empty header names, empty files.
QUENCH_API CsvTable read_csv(const std::string& path);

/// What a cell holds: a finite number, a missing value (empty, NA, <NA>, N/A, NaN in any
/// case), a non-finite number (inf, 1e400) or other text.
enum class CellKind { number, missing, not_finite, text };
struct Cell {
  CellKind kind;
  double value = 0.0;  ///< for numbers (underflow reads as a signed zero)
};
QUENCH_API Cell read_cell(std::string_view text);

/// The DataError for a cell that is not a finite number (names the file, row and column).
QUENCH_API DataError cell_error(const CsvTable& table, Eigen::Index row, Eigen::Index column,
                                const Cell& cell);

/// Every cell as a number (rows x columns); throws cell_error for the first that is not one.
QUENCH_API Eigen::MatrixXd to_numbers(const CsvTable& table);

enum class SplitRule {
  none,         ///< every row trains (unless a test file is given)
  column,       ///< a 0/1 column (default name "train") marks training rows; it is not an input
  first_train,  ///< the first `count` rows train, the rest test
  first_test,   ///< the first `count` rows test, the rest train
  fraction,     ///< a seeded random `fraction` of rows trains
};

/// Rows with a missing value in a used column: refused, or dropped (and counted).
enum class MissingRule { error, drop_rows };

/// The most distinct labels a TargetKind::classes target may hold.
inline constexpr Eigen::Index kMaxClasses = 1000;

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
  bool center_target = false;  ///< subtract the training rows' mean only (not with standardize)
  MissingRule missing = MissingRule::error;
  /// How the target is read (quench/target.h): from the likelihood, or an engine that reads it
  /// itself.
  TargetKind target_kind = TargetKind::any;
  /// Who asks for that reading, for messages (e.g. "likelihood 'poisson'").
  std::string target_reader = "the likelihood";
  /// A column of per-row sizes (Observation::size): the exposure of a count target, the trials
  /// of a successes target; empty: none. Never an input.
  std::string size_column;
  /// Tables already in memory (a host's arrays, e.g. Python), read instead of train_file and
  /// test_file; the file names then only name them in messages.
  std::shared_ptr<const CsvTable> train_table, test_table;
};

struct Dataset {
  std::string name;
  std::string train_file, test_file, target_name;
  std::vector<std::string> input_names;
  Eigen::MatrixXd X_train;
  Eigen::VectorXd y_train;
  Eigen::MatrixXd X_test;  ///< 0 rows when there is no test set
  Eigen::VectorXd y_test;
  std::vector<int> train_rows, test_rows;  ///< file row (1-based, header = 1) of each row
  /// How the target was read (DataSpec::target_kind).
  TargetKind target_kind = TargetKind::any;
  /// The size column's name and values (DataSpec::size_column); empty when there is none.
  std::string size_name;
  Eigen::VectorXd size_train, size_test;
  /// Standardization applied (x - mean) / scale; mean 0 and scale 1 when none.
  Eigen::RowVectorXd input_mean, input_scale;
  double target_mean = 0.0, target_scale = 1.0;
  std::int64_t dropped_rows = 0;  ///< rows dropped for missing values (missing: drop_rows)
  /// A target of two text classes: the texts read as -1 and +1 (empty for numeric targets).
  /// A classes target (TargetKind::classes): the C labels in index order (strings as they are,
  /// integers as their text: "1", "7").
  std::vector<std::string> class_names;
  /// Number of classes C of a classes target (TargetKind::classes), whose y_train and y_test
  /// hold the class indices 0..C-1 (labels in sorted order: numbers by value, strings by
  /// byte order); 0 for any other target.
  Eigen::Index classes = 0;
  /// What the loader decided that a reader of the results should know ("data.label_mapping",
  /// "data.row_names", "data.dropped_rows"), written into results.json.
  std::map<std::string, std::string> notes;
};

enum class DataPart { train, test };

/// DataError for row i of the training or test rows of `data`, in the target column (names the
/// file, the file's row and the column).
QUENCH_API DataError target_error(const Dataset& data, DataPart part, Eigen::Index i,
                                  const std::string& message);

/// The training or test targets of a two-class problem as t_i = +-1 (accepts {-1, 1} and
/// {0, 1}); throws target_error naming the file, row and column, with "<engine> needs class
/// labels -1/+1 or 0/1", otherwise.
QUENCH_API Eigen::VectorXd class_labels(const Dataset& data, DataPart part, const char* engine);

/// The training or test rows' observations as a likelihood of target kind `kind` reads them:
/// the target (+-1 labels for a binary kind, by class_labels, naming `engine` in its errors) and
/// the sizes of the size column (empty when there is none).
QUENCH_API Observations observations(const Dataset& data, DataPart part, TargetKind kind,
                                     const char* engine);

/// The training or test targets of a classes target (TargetKind::classes) as class indices
/// 0..classes-1; throws target_error naming the file, row and column, with "<engine> needs class
/// labels 0..C-1 (a classes target)", when data.classes < 2 or a value is not such an index.
QUENCH_API Eigen::VectorXi class_indices(const Dataset& data, DataPart part, const char* engine);

/// Loads and splits a data set. Throws DataError for bad file content, for unknown columns
/// (naming the column and listing the available ones), for an invalid split and for a target
/// that does not fit spec.target_kind. A classes target is refused when a number is not an
/// integer, numbers and strings are mixed, the training rows hold fewer than two classes, a
/// class occurs only in test rows, or there are more than kMaxClasses distinct labels.
/// Standardization uses the training rows' mean and sample standard deviation (n - 1).
QUENCH_API Dataset load_dataset(const DataSpec& spec);

/// The same loading, but every problem found is collected (one per column at most) instead of
/// the first thrown; empty when load_dataset would succeed. For `quench validate`. `columns`,
/// when given, receives the training file's column names (for did-you-mean suggestions);
/// `loaded`, when given and nothing was found, the data set load_dataset returns (the files are
/// read once).
QUENCH_API std::vector<DataError> check_dataset(const DataSpec& spec,
                                                std::vector<std::string>* columns = nullptr,
                                                Dataset* loaded = nullptr);

}  // namespace quench
