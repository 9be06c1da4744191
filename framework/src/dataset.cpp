// load_dataset: column selection, train/test split and standardization.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "quench/dataset.h"
#include "quench/errors.h"

namespace quench {

namespace {

using Index = Eigen::Index;

// Data row i (0-based) is line i + 2 of its file: the header is line 1 and read_csv rejects
// empty lines before the last data row.
int line_of(Index row) { return static_cast<int>(row + 2); }

std::string available_columns(const CsvTable& table) {
  std::string text;
  for (const auto& c : table.columns) text += (text.empty() ? "" : ", ") + c;
  return text;
}

Index require_column(const CsvTable& table, const std::string& name, const std::string& role) {
  const Index k = table.column_index(name);
  if (k < 0) {
    throw DataError(table.file, 1, name,
                    "no such " + role + " column; available columns: " + available_columns(table));
  }
  return k;
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

/// Rows of `table` selected by `rows`, split into inputs and target.
void gather(const CsvTable& table, const std::vector<Index>& rows, const std::vector<Index>& inputs,
            Index target, Eigen::MatrixXd& X, Eigen::VectorXd& y) {
  const Index n = static_cast<Index>(rows.size());
  const Index p = static_cast<Index>(inputs.size());
  X.resize(n, p);
  y.resize(n);
  for (Index j = 0; j < p; ++j) {
    const auto column = table.values.col(inputs[static_cast<std::size_t>(j)]);
    for (Index i = 0; i < n; ++i) X(i, j) = column(rows[static_cast<std::size_t>(i)]);
  }
  for (Index i = 0; i < n; ++i) y(i) = table.values(rows[static_cast<std::size_t>(i)], target);
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

/// Shortest text that reads back as v.
std::string format_number(double v) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
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

Dataset load_dataset(const DataSpec& spec) {
  if (!spec.test_file.empty() && spec.split != SplitRule::none) {
    throw DataError(
        spec.train_file, 0, "",
        "split rule '" + split_name(spec.split) + "' cannot be combined with a separate test file");
  }
  const CsvTable train = read_csv(spec.train_file);
  const Index n = train.values.rows();

  // Columns.
  const Index target = require_column(train, spec.target, "target");
  Index split_col = -1;
  if (spec.split == SplitRule::column) {
    split_col = require_column(train, spec.split_column, "split");
    if (split_col == target) {
      throw DataError(train.file, 1, spec.target, "the target cannot also be the split column");
    }
  }
  std::vector<Index> inputs;
  std::vector<std::string> input_names;
  if (spec.inputs.empty()) {
    for (Index k = 0; k < static_cast<Index>(train.columns.size()); ++k) {
      if (k == target || k == split_col) continue;
      inputs.push_back(k);
      input_names.push_back(train.columns[static_cast<std::size_t>(k)]);
    }
  } else {
    for (const auto& name : spec.inputs) {
      const Index k = require_column(train, name, "input");
      if (k == target) throw DataError(train.file, 1, name, "the target cannot be an input");
      if (k == split_col) {
        throw DataError(train.file, 1, name, "the split column cannot be an input");
      }
      if (std::find(inputs.begin(), inputs.end(), k) != inputs.end()) {
        throw DataError(train.file, 1, name, "input column listed twice");
      }
      inputs.push_back(k);
      input_names.push_back(name);
    }
  }
  if (inputs.empty()) {
    throw DataError(train.file, 1, "", "no input columns besides the target '" + spec.target + "'");
  }

  // Split: indices of training and test rows, each in file order.
  std::vector<Index> train_rows, test_rows;
  const auto check_count = [&](std::int64_t count, const std::string& what) {
    if (count < 1 || count > static_cast<std::int64_t>(n) - 1) {
      throw DataError(train.file, 0, "",
                      what + " " + std::to_string(count) + " is outside [1, " +
                          std::to_string(n - 1) + "] for " + std::to_string(n) + " rows");
    }
  };
  switch (spec.split) {
    case SplitRule::none:
      for (Index i = 0; i < n; ++i) train_rows.push_back(i);
      break;
    case SplitRule::column:
      for (Index i = 0; i < n; ++i) {
        const double v = train.values(i, split_col);
        if (v == 1.0) {
          train_rows.push_back(i);
        } else if (v == 0.0) {
          test_rows.push_back(i);
        } else {
          throw DataError(train.file, line_of(i), spec.split_column,
                          "split column values must be 0 or 1, got " + format_number(v));
        }
      }
      if (train_rows.empty()) {
        throw DataError(train.file, 0, spec.split_column,
                        "no training rows (every value of the split column is 0)");
      }
      break;
    case SplitRule::first_train:
    case SplitRule::first_test: {
      check_count(spec.count, "count");
      const Index first = static_cast<Index>(spec.count);
      const bool first_trains = spec.split == SplitRule::first_train;
      for (Index i = 0; i < n; ++i)
        ((i < first) == first_trains ? train_rows : test_rows).push_back(i);
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
      train_rows.assign(order.begin(), middle);
      test_rows.assign(middle, order.end());
      std::sort(train_rows.begin(), train_rows.end());
      std::sort(test_rows.begin(), test_rows.end());
      break;
    }
  }

  Dataset data;
  data.name = std::filesystem::path(spec.train_file).stem().string();
  data.input_names = input_names;
  gather(train, train_rows, inputs, target, data.X_train, data.y_train);

  if (spec.test_file.empty()) {
    gather(train, test_rows, inputs, target, data.X_test, data.y_test);
  } else {
    // The test file's columns are matched by name (order may differ; extra columns are ignored).
    const CsvTable test = read_csv(spec.test_file);
    std::vector<Index> test_inputs;
    for (const auto& name : input_names) {
      test_inputs.push_back(require_column(test, name, "input"));
    }
    const Index test_target = require_column(test, spec.target, "target");
    std::vector<Index> all(static_cast<std::size_t>(test.values.rows()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<Index>(i);
    gather(test, all, test_inputs, test_target, data.X_test, data.y_test);
  }

  // Standardization over the training rows, applied to train and test alike.
  const Index p = data.X_train.cols();
  data.input_mean = Eigen::RowVectorXd::Zero(p);
  data.input_scale = Eigen::RowVectorXd::Ones(p);
  if (spec.standardize_inputs) {
    for (Index j = 0; j < p; ++j)
      moments(data.X_train.col(j), data.input_mean(j), data.input_scale(j));
    data.X_train =
        (data.X_train.rowwise() - data.input_mean).array().rowwise() / data.input_scale.array();
    if (data.X_test.rows() > 0) {
      data.X_test =
          (data.X_test.rowwise() - data.input_mean).array().rowwise() / data.input_scale.array();
    }
  }
  if (spec.standardize_target) {
    moments(data.y_train, data.target_mean, data.target_scale);
    data.y_train = (data.y_train.array() - data.target_mean) / data.target_scale;
    data.y_test = (data.y_test.array() - data.target_mean) / data.target_scale;
  }
  return data;
}

}  // namespace quench
