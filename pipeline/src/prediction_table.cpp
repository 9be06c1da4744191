#include "quench/prediction_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "quench/dataset.h"
#include "quench/printable.h"

namespace quench {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string exact(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

/// The header of prediction column `column`: with class names, "probability.<c>" (c a class
/// index, the columns of a multi-class model) becomes "probability.<name of class c>".
std::string column_header(const std::string& column, const std::vector<std::string>& names) {
  static const std::string prefix = "probability.";
  if (names.empty() || column.compare(0, prefix.size(), prefix) != 0) return column;
  const std::string index = column.substr(prefix.size());
  std::size_t c = 0;
  const auto end = index.data() + index.size();
  const auto [rest, error] = std::from_chars(index.data(), end, c);
  if (index.empty() || error != std::errc() || rest != end || c >= names.size()) return column;
  return prefix + names[c];
}

/// A "label" value as its class name: with two names, > 0 is the second (-1/+1 and 0/1 alike);
/// with C > 2, the class index c is names[c] (a value that is no class index stays a number).
std::string label_field(double v, const std::vector<std::string>& names) {
  if (names.size() == 2) return csv_field(names[v > 0 ? 1 : 0]);
  if (v >= 0.0 && v < static_cast<double>(names.size()) && v == std::floor(v))
    return csv_field(names[static_cast<std::size_t>(v)]);
  return exact(v);
}

}  // namespace

PredictionInputs read_prediction_inputs(const std::string& file, const ModelCard& card,
                                        bool ignore_extra_columns) {
  const CsvTable table = read_csv(file);
  PredictionInputs in;
  in.file = file;
  std::vector<Eigen::Index> columns;
  std::string missing;
  for (const std::string& name : card.input_names) {
    const Eigen::Index c = table.column_index(name);
    if (c < 0) missing += (missing.empty() ? "'" : ", '") + printable(name) + "'";
    columns.push_back(c);
  }
  if (!missing.empty())
    throw DataError(file, 1, "", "the model's input column(s) " + missing + " are missing");
  const Eigen::Index size = card.size_column.empty() ? -1 : table.column_index(card.size_column);
  if (!card.size_column.empty() && size < 0)
    throw DataError(file, 1, "",
                    "the model's likelihood reads each row's " +
                        std::string(size_meaning(card.target_kind)) + " from column '" +
                        printable(card.size_column) + "', which is missing");
  const Eigen::Index target = table.column_index(card.target_name);
  if (!ignore_extra_columns) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const auto index = static_cast<Eigen::Index>(c);
      if (index == target || index == size ||
          std::find(columns.begin(), columns.end(), index) != columns.end())
        continue;
      throw DataError(
          file, 1, printable(table.columns[c]),
          "a column the model does not use (its inputs: " +
              [&] {
                std::string names;
                for (const auto& n : card.input_names)
                  names += (names.empty() ? "" : ", ") + printable(n);
                return names;
              }() +
              "; target '" + printable(card.target_name) +
              "'); pass --ignore-extra-columns to skip it");
    }
  }
  in.X.resize(table.size(), static_cast<Eigen::Index>(columns.size()));
  for (Eigen::Index i = 0; i < table.size(); ++i) {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      const Cell cell = read_cell(table.cell(i, columns[j]));
      if (cell.kind == CellKind::missing)  // (the pipeline's missing: drop_rows does not apply)
        throw DataError(file, table.rows[static_cast<std::size_t>(i)],
                        printable(table.columns[static_cast<std::size_t>(columns[j])]),
                        "missing value '" + printable(table.cell(i, columns[j]), 40) +
                            "': every input of a row to predict must be a number");
      if (cell.kind != CellKind::number) throw cell_error(table, i, columns[j], cell);
      in.X(i, static_cast<Eigen::Index>(j)) = cell.value;
    }
  }
  if (size >= 0) {
    in.sizes.resize(table.size());
    for (Eigen::Index i = 0; i < table.size(); ++i) {
      const Cell cell = read_cell(table.cell(i, size));
      if (cell.kind != CellKind::number) throw cell_error(table, i, size, cell);
      const double n = cell.value;
      if (!valid_size(card.target_kind, n))
        throw DataError(file, table.rows[static_cast<std::size_t>(i)], printable(card.size_column),
                        std::string("the model needs ") + size_requirement(card.target_kind) +
                            ", got " + printable(table.cell(i, size), 40));
      in.sizes(i) = n;
    }
  }
  if (target >= 0) {
    in.has_target = true;
    for (Eigen::Index i = 0; i < table.size(); ++i) in.target.push_back(table.cell(i, target));
  }
  return in;
}

std::string predictions_csv(const Predictions& p, const ModelCard& card,
                            const PredictionInputs& in) {
  std::string text;
  if (in.has_target) text += csv_field(card.target_name);
  for (const std::string& c : p.columns)
    text += (text.empty() ? "" : ",") + csv_field(column_header(c, card.class_names));
  text += '\n';
  const bool named = card.class_names.size() >= 2;
  for (Eigen::Index i = 0; i < p.values.rows(); ++i) {
    std::string row = in.has_target ? csv_field(in.target[static_cast<std::size_t>(i)]) : "";
    for (std::size_t j = 0; j < p.columns.size(); ++j) {
      const double v = p.values(i, static_cast<Eigen::Index>(j));
      const std::string field =
          named && p.columns[j] == "label" ? label_field(v, card.class_names) : exact(v);
      row += (in.has_target || j > 0 ? "," : "") + field;
    }
    text += row + '\n';
  }
  return text;
}

}  // namespace quench
