// load_dataset: column selection, train/test split and standardization.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "quench/dataset.h"
#include "quench/errors.h"
#include "quench/printable.h"

namespace quench {

namespace {

using Index = Eigen::Index;

std::string available_columns(const CsvTable& table) {
  std::string text;
  for (const auto& c : table.columns) text += (text.empty() ? "" : ", ") + printable(c, 40);
  return printable(text, 400);
}

/// Uniform integer in [0, bound) from 64-bit draws, by rejection (no modulo bias). Written out
/// because std::uniform_int_distribution is implementation-defined.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const std::uint64_t r = rng();
    if (r >= threshold) return r % bound;
  }
}

/// Mean and scale of one training column. The scale is the sample standard deviation
/// (divisor n - 1); it is 1 for a constant column or a single row, so nothing is divided by 0.
void moments(const Eigen::Ref<const Eigen::VectorXd>& x, double& mean, double& scale) {
  const Index n = x.size();
  mean = x.mean();
  scale = 1.0;
  if (n < 2 || x.minCoeff() == x.maxCoeff()) return;
  scale = std::sqrt((x.array() - mean).square().sum() / static_cast<double>(n - 1));
}

std::string split_name(SplitRule rule) {
  switch (rule) {
    case SplitRule::none:
      return "none";
    case SplitRule::column:
      return "column";
    case SplitRule::first_train:
      return "first_train";
    case SplitRule::first_test:
      return "first_test";
    case SplitRule::fraction:
      return "fraction";
  }
  return "?";
}

}  // namespace

namespace {

/// Thrown to end check_dataset's collection early, when nothing further can be checked.
struct Stop {};

/// Reports problems: throws the first (load_dataset) or collects them (check_dataset).
class Problems {
 public:
  explicit Problems(std::vector<DataError>* sink) : sink_(sink) {}
  void add(DataError e) {
    if (!sink_) throw e;
    sink_->push_back(std::move(e));
  }
  /// Ends the collection when anything was found so far.
  void checkpoint() const {
    if (sink_ && !sink_->empty()) throw Stop{};
  }

 private:
  std::vector<DataError>* sink_;
};

/// One file's used columns read as cells: inputs, then the target, then the split column.
struct UsedColumns {
  const CsvTable* table = nullptr;
  std::vector<Index> columns;
  std::vector<std::vector<Cell>> cells;  // per used column, per row
  std::vector<bool> keep;                // rows without a missing value in a used column
};

Index find_column(const CsvTable& table, const std::string& name, const std::string& role,
                  Problems& problems) {
  const Index k = table.column_index(name);
  if (k < 0) {
    problems.add(
        DataError(table.file, 1, printable(name),
                  "no such " + role + " column; available columns: " + available_columns(table)));
  }
  return k;
}

/// Reads the used columns; refuses (or, with drop_rows, drops) rows with missing values and
/// refuses cells that are not finite numbers (except target text, read as class labels).
/// One problem per column at most.
UsedColumns read_columns(const CsvTable& table, std::vector<Index> columns, Index target,
                         MissingRule missing, Problems& problems) {
  UsedColumns used;
  used.table = &table;
  used.columns = std::move(columns);
  used.keep.assign(static_cast<std::size_t>(table.size()), true);
  for (const Index k : used.columns) {
    std::vector<Cell> cells(static_cast<std::size_t>(table.size()));
    for (Index i = 0; i < table.size(); ++i) {
      cells[static_cast<std::size_t>(i)] = read_cell(table.cell(i, k));
      if (cells[static_cast<std::size_t>(i)].kind == CellKind::missing &&
          missing == MissingRule::drop_rows)
        used.keep[static_cast<std::size_t>(i)] = false;
    }
    used.cells.push_back(std::move(cells));
  }
  for (std::size_t c = 0; c < used.columns.size(); ++c) {
    for (Index i = 0; i < table.size(); ++i) {
      const Cell& cell = used.cells[c][static_cast<std::size_t>(i)];
      const bool allowed = cell.kind == CellKind::number ||
                           (cell.kind == CellKind::text && used.columns[c] == target);
      if (!allowed && used.keep[static_cast<std::size_t>(i)]) {
        problems.add(cell_error(table, i, used.columns[c], cell));
        break;
      }
    }
  }
  return used;
}

std::vector<Index> kept_rows(const UsedColumns& used) {
  std::vector<Index> rows;
  for (std::size_t i = 0; i < used.keep.size(); ++i)
    if (used.keep[i]) rows.push_back(static_cast<Index>(i));
  return rows;
}

/// Maps string class labels to -1/+1 (byte order: the first class is -1, the second +1).
class LabelMap {
 public:
  void add(const std::string& label) { classes_.insert(label); }
  bool empty() const { return classes_.empty(); }
  std::size_t size() const { return classes_.size(); }
  double operator()(const std::string& label) const {
    return label == *classes_.begin() ? -1.0 : 1.0;
  }
  std::string describe() const {
    std::string text;
    std::size_t shown = 0;
    for (const auto& c : classes_) {
      if (shown++ == 10) return text + ", ...";
      text += (text.empty() ? "'" : ", '") + printable(c, 40) + "'";
    }
    return text;
  }
  std::vector<std::string> names() const { return {*classes_.begin(), *classes_.rbegin()}; }
  std::string mapping() const {
    return printable(*classes_.begin(), 40) + " -> -1, " + printable(*classes_.rbegin(), 40) +
           " -> +1";
  }

 private:
  std::set<std::string> classes_;
};

/// The labels of a classes target (TargetKind::classes) as class indices 0..C-1: numbers by
/// value, then strings in byte order (a target mixing both is refused, but still indexed so
/// that every check can run).
class ClassMap {
 public:
  /// Adds the target label of row `i` of `u` (p: the target's place among the used columns);
  /// true when it was not seen before.
  bool add(const UsedColumns& u, std::size_t p, Index i) {
    const Cell& cell = u.cells[p][static_cast<std::size_t>(i)];
    if (cell.kind == CellKind::text)
      return strings_.emplace(u.table->cell(i, u.columns[p]), 0).second;
    return numbers_.emplace(cell.value + 0.0, 0).second;  // (+ 0.0: -0 reads as 0)
  }
  Index size() const { return static_cast<Index>(numbers_.size() + strings_.size()); }
  /// Numbers the classes 0..C-1, after the last add.
  void finish() {
    Index c = 0;
    for (auto& entry : numbers_) entry.second = c++;
    for (auto& entry : strings_) entry.second = c++;
  }
  /// The class index of the target label of row `i` of `u` (added before finish).
  Index operator()(const UsedColumns& u, std::size_t p, Index i) const {
    const Cell& cell = u.cells[p][static_cast<std::size_t>(i)];
    if (cell.kind == CellKind::text) return strings_.at(u.table->cell(i, u.columns[p]));
    return numbers_.at(cell.value + 0.0);
  }
  /// The labels in index order: integers as their text ("7"), strings as they are.
  std::vector<std::string> names() const {
    std::vector<std::string> names;
    for (const auto& entry : numbers_) names.push_back(format_number(entry.first));
    for (const auto& entry : strings_) names.push_back(entry.first);
    return names;
  }
  /// "'cat' -> 0, 'dog' -> 1, 'eel' -> 2" (the first 10 classes, then ", ...").
  std::string mapping() const {
    const std::vector<std::string> all = names();
    std::string text;
    for (std::size_t c = 0; c < all.size(); ++c) {
      if (c == 10) return text + ", ...";
      text += (c == 0 ? "'" : ", '") + printable(all[c], 40) + "' -> " + std::to_string(c);
    }
    return text;
  }

 private:
  std::map<double, Index> numbers_;
  std::map<std::string, Index> strings_;
};

/// "'a', 'b'" for the first 10 names, then ", ...".
std::string quoted_names(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (k == 10) return text + ", ...";
    text += (k == 0 ? "'" : ", '") + printable(names[k], 40) + "'";
  }
  return text;
}

/// Rows of one file: its used columns and the positions of the rows taken.
struct RowSet {
  const UsedColumns* used;
  const std::vector<Index>* rows;
};

/// Reads a classes target (TargetKind::classes) over `parts` (the kept rows of the training
/// file, then of the test file) into `classes`. Reports, each once at the first row where it
/// shows, a number that is not an integer, numbers mixed with strings and more than
/// kMaxClasses distinct labels. Returns false when the target cannot be a class label at all
/// (mixed or too many labels): the checks after the split are then skipped.
bool scan_classes(const std::string& target, const std::vector<RowSet>& parts, std::size_t p,
                  ClassMap& classes, Problems& problems) {
  const std::string column = printable(target);
  bool non_integer = false, mixed = false;
  std::string first_label, first_file;  // the first label read, for the message on mixing
  bool first_text = false;
  int first_row = 0;
  std::string too_many_file;  // where the (kMaxClasses + 1)-th distinct label first occurs
  int too_many_row = 0;
  for (const RowSet& part : parts) {
    const UsedColumns& u = *part.used;
    const std::string& file = u.table->file;
    for (const Index i : *part.rows) {
      const Cell& cell = u.cells[p][static_cast<std::size_t>(i)];
      const int row = u.table->rows[static_cast<std::size_t>(i)];
      const bool text = cell.kind == CellKind::text;
      const std::string label = text ? "'" + printable(u.table->cell(i, u.columns[p]), 40) + "'"
                                     : format_number(cell.value);
      if (!text && !non_integer && cell.value != std::floor(cell.value)) {
        non_integer = true;
        problems.add(
            DataError(file, row, column, "class labels must be integers or strings, got " + label));
      }
      // From 2^53 on, distinct integers read as the same double (2^53 + 1 as 2^53): such labels
      // would be merged into one class without a word.
      if (!text && !non_integer && std::fabs(cell.value) >= 0x1p53) {
        non_integer = true;
        problems.add(DataError(
            file, row, column,
            "integer class label '" + printable(u.table->cell(i, u.columns[p]), 40) +
                "' is at least 2^53 in magnitude, where distinct integers read as the same "
                "number; number the classes with smaller integers or name them with strings"));
      }
      if (first_row == 0) {
        first_label = label;
        first_text = text;
        first_file = file;
        first_row = row;
      } else if (text != first_text && !mixed) {
        mixed = true;
        problems.add(
            DataError(file, row, column,
                      std::string("class labels must be all integers or all strings, got ") +
                          (text ? "the string " : "the number ") + label + " here and " +
                          (first_text ? "the string " : "the number ") + first_label + " at row " +
                          std::to_string(first_row) +
                          (first_file == file ? "" : " of " + printable(first_file))));
      }
      if (classes.add(u, p, i) && classes.size() == kMaxClasses + 1) {
        too_many_file = file;
        too_many_row = row;
      }
    }
  }
  classes.finish();
  if (too_many_row > 0) {
    problems.add(DataError(too_many_file, too_many_row, column,
                           "found " + std::to_string(classes.size()) +
                               " distinct labels, more than " + std::to_string(kMaxClasses) +
                               " classes (is the target a class label?)"));
  }
  return !mixed && too_many_row == 0;
}

/// Checks a classes target once the split is known: at least two classes in the training rows,
/// and no class that occurs only in test rows (reported at the first test row holding one,
/// naming the others).
void check_class_split(const std::string& target, const ClassMap& classes, const RowSet& train,
                       const RowSet& test, std::size_t p, Problems& problems) {
  const std::string column = printable(target);
  const std::vector<std::string> names = classes.names();
  std::vector<bool> trained(names.size(), false);
  for (const Index i : *train.rows)
    trained[static_cast<std::size_t>(classes(*train.used, p, i))] = true;
  std::vector<std::string> found;
  for (std::size_t c = 0; c < names.size(); ++c)
    if (trained[c]) found.push_back(names[c]);
  if (found.size() < 2) {
    problems.add(DataError(
        train.used->table->file, 0, column,
        "a class target needs at least two classes in the training rows, found " +
            std::to_string(found.size()) + (found.empty() ? "" : ": " + quoted_names(found))));
  }
  std::vector<std::string> test_only;
  int first_row = 0;
  for (const Index i : *test.rows) {
    const auto c = static_cast<std::size_t>(classes(*test.used, p, i));
    if (trained[c]) continue;
    trained[c] = true;  // (reported once)
    test_only.push_back(names[c]);
    if (first_row == 0) first_row = test.used->table->rows[static_cast<std::size_t>(i)];
  }
  if (!test_only.empty()) {
    const std::vector<std::string> others(test_only.begin() + 1, test_only.end());
    problems.add(DataError(test.used->table->file, first_row, column,
                           "class '" + printable(test_only.front(), 40) +
                               "' occurs only in test rows" +
                               (others.empty() ? "" : " (so do " + quoted_names(others) + ")")));
  }
}

/// Rows `rows` of `used` as inputs X (the first p used columns) and target y: a number, a
/// string class label read by `labels` or, with `classes`, the class index.
void gather(const UsedColumns& used, const std::vector<Index>& rows, std::size_t p,
            const LabelMap& labels, const ClassMap* classes, Eigen::MatrixXd& X, Eigen::VectorXd& y,
            std::vector<int>& lines) {
  const Index n = static_cast<Index>(rows.size());
  X.resize(n, static_cast<Index>(p));
  y.resize(n);
  lines.resize(rows.size());
  const Index target = used.columns[p];
  for (Index i = 0; i < n; ++i) {
    const Index row = rows[static_cast<std::size_t>(i)];
    const auto r = static_cast<std::size_t>(row);
    for (std::size_t j = 0; j < p; ++j) X(i, static_cast<Index>(j)) = used.cells[j][r].value;
    const Cell& t = used.cells[p][r];
    if (classes)
      y(i) = static_cast<double>((*classes)(used, p, row));
    else
      y(i) = t.kind == CellKind::text ? labels(used.table->cell(row, target)) : t.value;
    lines[static_cast<std::size_t>(i)] = used.table->rows[r];
  }
}

/// Standardizes with the training rows' moments; refuses a column whose mean or standard
/// deviation overflows (they would turn it into zeros or non-finite values).
void standardize(const std::string& file, const std::string& column,
                 Eigen::Ref<Eigen::VectorXd> train, Eigen::Ref<Eigen::VectorXd> test, double& mean,
                 double& scale, Problems& problems) {
  moments(train, mean, scale);
  const bool ok = std::isfinite(mean) && std::isfinite(scale) && scale > 0.0;
  if (ok) {
    train = (train.array() - mean) / scale;
    test = (test.array() - mean) / scale;
  }
  if (!ok || !test.allFinite()) {
    problems.add(DataError(
        file, 0, printable(column),
        "standardizing overflows: the " +
            std::string(ok ? "standardized test values are" : "mean or standard deviation is") +
            " not finite (largest magnitude " + format_number(train.cwiseAbs().maxCoeff()) +
            "); rescale the column or turn standardization off"));
  }
}

/// Whether the kind reads its target as numbers only (text is refused).
bool numbers_only(TargetKind kind) {
  return kind == TargetKind::real || kind == TargetKind::count || kind == TargetKind::successes;
}

/// The values of the used column at position `at` for `rows`.
Eigen::VectorXd column_values(const UsedColumns& used, const std::vector<Index>& rows,
                              std::size_t at) {
  Eigen::VectorXd v(static_cast<Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    v(static_cast<Index>(i)) = used.cells[at][static_cast<std::size_t>(rows[i])].value;
  return v;
}

/// The targets of a count or successes kind and the size column (at position `size_at` of
/// the used columns, 0 when there is none): counts non-negative integers, exposures positive,
/// trials positive integers, successes integers from 0 to their trials. One problem per
/// column at most, at its first row.
void check_observations(const DataSpec& spec, const UsedColumns& used,
                        const std::vector<Index>& rows, std::size_t size_at, std::size_t target_at,
                        Problems& problems) {
  const TargetKind kind = spec.target_kind;
  const bool whole = kind == TargetKind::count || kind == TargetKind::successes;
  bool target_bad = false, size_bad = false;
  for (const Index i : rows) {
    const auto r = static_cast<std::size_t>(i);
    const int line = used.table->rows[r];
    const double y = used.cells[target_at][r].value;
    const double n = size_at ? used.cells[size_at][r].value : 1.0;
    if (size_at && !size_bad && !valid_size(kind, n)) {
      size_bad = true;
      problems.add(DataError(
          used.table->file, line, printable(spec.size_column),
          spec.target_reader + " needs " + size_requirement(kind) + ", got " + format_number(n)));
    }
    if (!whole || target_bad || valid_target(kind, {y, n})) continue;
    target_bad = true;
    if (!valid_target(TargetKind::count, {y, n}))
      problems.add(DataError(used.table->file, line, printable(spec.target),
                             spec.target_reader + " needs " +
                                 (kind == TargetKind::count ? "counts (non-negative integers)"
                                                            : "successes (non-negative integers)") +
                                 ", got " + format_number(y)));
    else
      problems.add(DataError(used.table->file, line, printable(spec.target),
                             spec.target_reader +
                                 " needs successes between 0 and the trials, got " +
                                 format_number(y) + " successes of " + format_number(n) +
                                 (size_at ? " trials (column '" + printable(spec.size_column) + "')"
                                          : " trial (no trials column: Bernoulli)")));
  }
}

Dataset load(const DataSpec& spec, Problems& problems, std::vector<std::string>* columns) {
  if (!spec.test_file.empty() && spec.split != SplitRule::none) {
    throw DataError(
        spec.train_file, 0, "",
        "split rule '" + split_name(spec.split) + "' cannot be combined with a separate test file");
  }
  const CsvTable train = spec.train_table ? *spec.train_table : read_csv(spec.train_file);
  if (columns) *columns = train.columns;

  // Columns.
  const Index target = find_column(train, spec.target, "target", problems);
  Index split_col = -1;
  if (spec.split == SplitRule::column) {
    split_col = find_column(train, spec.split_column, "split", problems);
    if (split_col >= 0 && split_col == target) {
      problems.add(DataError(train.file, 1, printable(spec.target),
                             "the target cannot also be the split column"));
    }
  }
  Index size_col = -1;
  if (!spec.size_column.empty()) {
    size_col = find_column(train, spec.size_column, size_meaning(spec.target_kind), problems);
    if (size_col >= 0 && (size_col == target || size_col == split_col)) {
      problems.add(DataError(train.file, 1, printable(spec.size_column),
                             std::string("the ") + size_meaning(spec.target_kind) +
                                 " column cannot also be the " +
                                 (size_col == target ? "target" : "split column")));
      size_col = -1;
    }
  }
  std::vector<Index> inputs;
  std::vector<std::string> input_names;
  if (spec.inputs.empty()) {
    for (Index k = 0; k < static_cast<Index>(train.columns.size()); ++k) {
      if (k == target || k == split_col || k == size_col) continue;
      inputs.push_back(k);
      input_names.push_back(train.columns[static_cast<std::size_t>(k)]);
    }
  } else {
    for (const auto& name : spec.inputs) {
      const Index k = find_column(train, name, "input", problems);
      const std::string shown = printable(name);
      if (k < 0) continue;
      if (k == target) {
        problems.add(DataError(train.file, 1, shown, "the target cannot be an input"));
      } else if (k == split_col) {
        problems.add(DataError(train.file, 1, shown, "the split column cannot be an input"));
      } else if (k == size_col) {
        problems.add(DataError(
            train.file, 1, shown,
            std::string("the ") + size_meaning(spec.target_kind) + " column cannot be an input"));
      } else if (std::find(inputs.begin(), inputs.end(), k) != inputs.end()) {
        problems.add(DataError(train.file, 1, shown, "input column listed twice"));
      } else {
        inputs.push_back(k);
        input_names.push_back(name);
      }
    }
  }
  if (target >= 0 && inputs.empty() && spec.inputs.empty()) {
    problems.add(DataError(train.file, 1, "",
                           "no input columns besides the target '" + printable(spec.target) + "'"));
  }
  problems.checkpoint();
  if (target < 0 || split_col == target) throw Stop{};  // (load_dataset has thrown already)

  // Cells of the used columns; missing values refused or their rows dropped.
  const std::size_t p = inputs.size();
  std::vector<Index> used = inputs;
  used.push_back(target);
  if (split_col >= 0) used.push_back(split_col);
  // The position of the size column among the used ones (after the split column).
  const std::size_t size_at = p + (split_col >= 0 ? 2 : 1);
  if (size_col >= 0) used.push_back(size_col);
  const UsedColumns train_cells = read_columns(train, used, target, spec.missing, problems);
  std::vector<Index> rows = kept_rows(train_cells);
  std::unique_ptr<CsvTable> test;
  UsedColumns test_cells;
  if (!spec.test_file.empty()) {
    // The test file's columns are matched by name (order may differ; extra columns ignored).
    test =
        std::make_unique<CsvTable>(spec.test_table ? *spec.test_table : read_csv(spec.test_file));
    std::vector<Index> test_used;
    for (const auto& name : input_names)
      test_used.push_back(find_column(*test, name, "input", problems));
    test_used.push_back(find_column(*test, spec.target, "target", problems));
    if (size_col >= 0)
      test_used.push_back(
          find_column(*test, spec.size_column, size_meaning(spec.target_kind), problems));
    problems.checkpoint();
    test_cells = read_columns(*test, test_used, test_used[p], spec.missing, problems);
  }
  problems.checkpoint();

  Dataset data;
  data.dropped_rows = static_cast<std::int64_t>(train_cells.keep.size() - rows.size());
  if (test) {
    data.dropped_rows += static_cast<std::int64_t>(test_cells.keep.size()) -
                         static_cast<std::int64_t>(kept_rows(test_cells).size());
  }
  const Index n = static_cast<Index>(rows.size());
  if (n == 0) throw DataError(train.file, 0, "", "no data rows left after dropping missing values");

  // Target: numbers, or two string classes; or, for a classes target, C >= 2 classes (numbers
  // or strings) read as class indices, checked again once the split is known.
  LabelMap labels;
  ClassMap classes;
  const bool class_target = spec.target_kind == TargetKind::classes;
  bool check_split_classes = false;
  if (class_target) {
    const std::vector<Index> test_kept = test ? kept_rows(test_cells) : std::vector<Index>{};
    std::vector<RowSet> parts{{&train_cells, &rows}};
    if (test) parts.push_back({&test_cells, &test_kept});
    check_split_classes = scan_classes(spec.target, parts, p, classes, problems);
    data.classes = classes.size();
    data.class_names = classes.names();
    data.notes["data.label_mapping"] = classes.mapping();
  }
  bool numeric_target = true;
  std::set<double> numbers;
  const auto scan_target = [&](const UsedColumns& u, const std::vector<Index>& kept) {
    for (const Index i : kept) {
      const Cell& cell = u.cells[p][static_cast<std::size_t>(i)];
      if (cell.kind == CellKind::text) {
        labels.add(u.table->cell(i, u.columns[p]));
        if (numeric_target && numbers_only(spec.target_kind)) {
          problems.add(DataError(u.table->file, u.table->rows[static_cast<std::size_t>(i)],
                                 printable(spec.target),
                                 spec.target_reader + " needs a numeric target, got '" +
                                     printable(u.table->cell(i, u.columns[p]), 40) + "'"));
        }
        numeric_target = false;
      } else {
        numbers.insert(cell.value);
      }
    }
  };
  if (!class_target) {
    scan_target(train_cells, rows);
    if (test) scan_target(test_cells, kept_rows(test_cells));
  }
  if (!class_target && !labels.empty()) {
    if (labels.size() != 2 || !numbers.empty()) {
      problems.add(DataError(train.file, 0, printable(spec.target),
                             "class labels must be exactly two classes, found " +
                                 std::to_string(labels.size() + numbers.size()) + ": " +
                                 labels.describe() + (numbers.empty() ? "" : " and numbers")));
    } else {
      data.notes["data.label_mapping"] = labels.mapping();
      data.class_names = labels.names();
    }
  } else if (spec.target_kind == TargetKind::binary) {
    const bool plus_minus =
        std::all_of(numbers.begin(), numbers.end(), [](double v) { return v == -1.0 || v == 1.0; });
    const bool zero_one =
        std::all_of(numbers.begin(), numbers.end(), [](double v) { return v == 0.0 || v == 1.0; });
    if (numbers.size() != 2 || !(plus_minus || zero_one)) {
      std::string found;
      for (const double v : numbers) {
        if (found.size() > 60) {
          found += ", ...";
          break;
        }
        found += (found.empty() ? "" : ", ") + format_number(v);
      }
      problems.add(DataError(train.file, 0, printable(spec.target),
                             "the likelihood needs exactly two classes (-1/+1, 0/1 or two "
                             "strings), found " +
                                 std::to_string(numbers.size()) + " distinct values: " + found));
    }
  }
  if (numeric_target) {
    // Counts and successes: integers in their range; sizes: positive (integer trials).
    const std::size_t test_size_at = p + 1;  // a test file holds no split column
    check_observations(spec, train_cells, rows, size_col >= 0 ? size_at : 0, p, problems);
    if (test)
      check_observations(spec, test_cells, kept_rows(test_cells), size_col >= 0 ? test_size_at : 0,
                         p, problems);
  }
  // (A classes target indexes every label, so check_dataset goes on to its checks after the
  // split.)
  if (!class_target) problems.checkpoint();

  // Split: positions (into `rows`) of training and test rows, each in file order.
  std::vector<Index> train_pos, test_pos;
  const auto check_count = [&](std::int64_t count, const std::string& what) {
    if (count < 1 || count > static_cast<std::int64_t>(n) - 1) {
      throw DataError(train.file, 0, "",
                      what + " " + std::to_string(count) + " is outside [1, " +
                          std::to_string(n - 1) + "] for " + std::to_string(n) + " rows");
    }
  };
  switch (spec.split) {
    case SplitRule::none:
      for (Index i = 0; i < n; ++i) train_pos.push_back(i);
      break;
    case SplitRule::column:
      for (Index i = 0; i < n; ++i) {
        const double v =
            train_cells.cells[p + 1][static_cast<std::size_t>(rows[static_cast<std::size_t>(i)])]
                .value;
        if (v == 1.0) {
          train_pos.push_back(i);
        } else if (v == 0.0) {
          test_pos.push_back(i);
        } else {
          throw DataError(train.file,
                          train.rows[static_cast<std::size_t>(rows[static_cast<std::size_t>(i)])],
                          printable(spec.split_column),
                          "split column values must be 0 or 1, got " + format_number(v));
        }
      }
      if (train_pos.empty()) {
        throw DataError(train.file, 0, printable(spec.split_column),
                        "no training rows (every value of the split column is 0)");
      }
      break;
    case SplitRule::first_train:
    case SplitRule::first_test: {
      check_count(spec.count, "count");
      const Index first = static_cast<Index>(spec.count);
      const bool first_trains = spec.split == SplitRule::first_train;
      for (Index i = 0; i < n; ++i)
        ((i < first) == first_trains ? train_pos : test_pos).push_back(i);
      break;
    }
    case SplitRule::fraction: {
      if (!(spec.fraction > 0.0 && spec.fraction < 1.0)) {
        throw DataError(train.file, 0, "",
                        "split fraction " + format_number(spec.fraction) + " is outside (0, 1)");
      }
      const auto n_train = static_cast<std::int64_t>(std::llround(spec.fraction * double(n)));
      check_count(n_train, "round(fraction * rows) =");
      // Fisher-Yates with a seeded mt19937_64; the first n_train entries train.
      std::vector<Index> order(static_cast<std::size_t>(n));
      for (Index i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
      std::mt19937_64 rng(spec.seed);
      for (std::size_t i = order.size() - 1; i > 0; --i) {
        std::swap(order[i], order[uniform_below(rng, i + 1)]);
      }
      const auto middle = order.begin() + n_train;
      train_pos.assign(order.begin(), middle);
      test_pos.assign(middle, order.end());
      std::sort(train_pos.begin(), train_pos.end());
      std::sort(test_pos.begin(), test_pos.end());
      break;
    }
  }
  const auto select = [&](const std::vector<Index>& positions) {
    std::vector<Index> selected;
    for (const Index i : positions) selected.push_back(rows[static_cast<std::size_t>(i)]);
    return selected;
  };

  data.name = std::filesystem::path(spec.train_file).stem().string();
  data.train_file = spec.train_file;
  data.test_file = spec.test_file.empty() ? spec.train_file : spec.test_file;
  data.target_name = spec.target;
  data.input_names = input_names;
  const std::vector<Index> train_selected = select(train_pos);
  const UsedColumns& test_source = test ? test_cells : train_cells;
  const std::vector<Index> test_selected = test ? kept_rows(test_cells) : select(test_pos);
  if (check_split_classes) {
    check_class_split(spec.target, classes, {&train_cells, &train_selected},
                      {&test_source, &test_selected}, p, problems);
  }
  const ClassMap* class_map = class_target ? &classes : nullptr;
  gather(train_cells, train_selected, p, labels, class_map, data.X_train, data.y_train,
         data.train_rows);
  gather(test_source, test_selected, p, labels, class_map, data.X_test, data.y_test,
         data.test_rows);
  data.target_kind = spec.target_kind;
  if (size_col >= 0) {
    data.size_name = spec.size_column;
    data.size_train = column_values(train_cells, train_selected, size_at);
    data.size_test = column_values(test_source, test_selected, test ? p + 1 : size_at);
  }
  if (train.row_names || (test && test->row_names)) {
    data.notes["data.row_names"] = "the unnamed first column holds row names and is ignored";
  }
  if (spec.missing == MissingRule::drop_rows) {
    data.notes["data.dropped_rows"] =
        std::to_string(data.dropped_rows) + " rows with missing values dropped";
  }

  // Standardization over the training rows, applied to train and test alike.
  const Index p_in = data.X_train.cols();
  data.input_mean = Eigen::RowVectorXd::Zero(p_in);
  data.input_scale = Eigen::RowVectorXd::Ones(p_in);
  if (spec.standardize_inputs) {
    for (Index j = 0; j < p_in; ++j)
      standardize(train.file, input_names[static_cast<std::size_t>(j)], data.X_train.col(j),
                  data.X_test.col(j), data.input_mean(j), data.input_scale(j), problems);
  }
  const char* target_transform = spec.standardize_target ? "standardize_target"
                                 : spec.center_target    ? "center_target"
                                                         : nullptr;
  if (spec.standardize_target && spec.center_target) {
    problems.add(DataError(train.file, 0, printable(spec.target),
                           "give standardize_target or center_target, not both"));
  } else if (target_transform && spec.target_kind == TargetKind::classes) {
    problems.add(DataError(train.file, 0, printable(spec.target),
                           std::string(target_transform) + " does not apply to class labels"));
  } else if (target_transform && spec.target_kind != TargetKind::any &&
             spec.target_kind != TargetKind::real) {
    problems.add(DataError(train.file, 0, printable(spec.target),
                           std::string(target_transform) + " applies to real targets only; " +
                               spec.target_reader + " reads a " + to_string(spec.target_kind) +
                               " target"));
  } else if (spec.standardize_target) {
    standardize(train.file, spec.target, data.y_train, data.y_test, data.target_mean,
                data.target_scale, problems);
  } else if (spec.center_target && data.y_train.size() > 0) {
    // A zero-mean prior on the deviations from the mean, in the target's units (R&W Sec. 5.4.3).
    data.target_mean = data.y_train.mean();
    data.y_train.array() -= data.target_mean;
    data.y_test.array() -= data.target_mean;
  }
  return data;
}

}  // namespace

DataError target_error(const Dataset& data, DataPart part, Index i, const std::string& message) {
  const bool train = part == DataPart::train;
  const std::vector<int>& rows = train ? data.train_rows : data.test_rows;
  const auto row = static_cast<std::size_t>(i);
  return DataError(train ? data.train_file : data.test_file, row < rows.size() ? rows[row] : 0,
                   printable(data.target_name), message);
}

Eigen::VectorXd class_labels(const Dataset& data, DataPart part, const char* engine) {
  const Eigen::VectorXd& y = part == DataPart::train ? data.y_train : data.y_test;
  Eigen::VectorXd t(y.size());
  const bool zero_one = y.size() > 0 && (y.array() == 0.0 || y.array() == 1.0).all();
  for (Index i = 0; i < y.size(); ++i) {
    if (zero_one)
      t(i) = y(i) > 0.5 ? 1.0 : -1.0;
    else if (y(i) == 1.0 || y(i) == -1.0)
      t(i) = y(i);
    else if (data.classes > 2)
      throw target_error(data, part, i,
                         std::string(engine) + " is a binary classifier and the target has " +
                             std::to_string(data.classes) +
                             " classes: use multiclass_ep, or one_vs_rest with inner: " + engine);
    else
      throw target_error(data, part, i, std::string(engine) + " needs class labels -1/+1 or 0/1");
  }
  return t;
}

Observations observations(const Dataset& data, DataPart part, TargetKind kind, const char* engine) {
  const bool train = part == DataPart::train;
  Observations o;
  o.y = kind == TargetKind::binary ? class_labels(data, part, engine)
                                   : (train ? data.y_train : data.y_test);
  o.sizes = train ? data.size_train : data.size_test;
  return o;
}

Eigen::VectorXi class_indices(const Dataset& data, DataPart part, const char* engine) {
  const Eigen::VectorXd& y = part == DataPart::train ? data.y_train : data.y_test;
  const std::string needs = std::string(engine) + " needs class labels 0..C-1 (a classes target)";
  if (data.classes < 2) {
    throw target_error(data, part, 0,
                       needs + "; the target was not read as class labels (" +
                           std::to_string(data.classes) + " classes)");
  }
  Eigen::VectorXi c(y.size());
  for (Index i = 0; i < y.size(); ++i) {
    const double v = y(i);
    if (!(v >= 0.0 && v < static_cast<double>(data.classes) && v == std::floor(v))) {
      throw target_error(
          data, part, i,
          needs + ", got " + format_number(v) + " with C = " + std::to_string(data.classes));
    }
    c(i) = static_cast<int>(v);
  }
  return c;
}

Dataset load_dataset(const DataSpec& spec) {
  Problems problems(nullptr);
  return load(spec, problems, nullptr);
}

std::vector<DataError> check_dataset(const DataSpec& spec, std::vector<std::string>* columns,
                                     Dataset* loaded) {
  std::vector<DataError> found;
  Problems problems(&found);
  try {
    Dataset data = load(spec, problems, columns);
    if (found.empty() && loaded) *loaded = std::move(data);
  } catch (const Stop&) {
  } catch (const DataError& e) {
    found.push_back(e);
  }
  return found;
}

}  // namespace quench
