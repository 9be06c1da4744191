// CSV reader on libcsv (RFC 4180: quoted fields, embedded commas, quotes and newlines, CRLF),
// with the file's line numbers kept for messages, and the numeric reading of cells.
#include <csv.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "quench/dataset.h"
#include "quench/errors.h"
#include "quench/printable.h"
#include "quench/regular_file.h"

namespace quench {

namespace {

std::string read_file(const std::string& path) {
  try {
    return read_regular_file(path);
  } catch (const UnreadableFile& e) {
    throw DataError(path, 0, "",
                    std::string(e.opening() ? "cannot open file: " : "cannot read: ") + e.what());
  }
}

/// Field text for an error message: control bytes escaped, long fields cut.
std::string quoted_field(std::string_view field) { return "'" + printable(field, 40) + "'"; }

/// Decimal exponent of the leading significant digit of a well-formed number (saturating),
/// so a value that from_chars finds out of range overflowed when it is positive.
long long decimal_exponent(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  long long magnitude = 0;
  bool found = false;
  long long int_digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (s[i] != '0') found = true;
    if (found) ++int_digits;
  }
  if (found) {
    magnitude = int_digits - 1;
  } else if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      --magnitude;
      if (s[i] != '0') break;
    }
  }
  while (i < s.size() && s[i] != 'e' && s[i] != 'E') ++i;
  long long exponent = 0;
  if (i < s.size()) {
    ++i;
    const bool negative = i < s.size() && s[i] == '-';
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (exponent < 1'000'000'000) exponent = exponent * 10 + (s[i] - '0');
    }
    if (negative) exponent = -exponent;
  }
  return magnitude + exponent;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return (x | 0x20) == (y | 0x20);  // ASCII letters only in the words compared
  });
}

bool is_missing(std::string_view s) {
  return s.empty() || s == "NA" || s == "<NA>" || s == "N/A" || equals_ignoring_case(s, "nan");
}

/// "#k": names a column by its 1-based position.
std::string position_label(std::size_t k) { return "#" + std::to_string(k); }

/// Collects libcsv's fields and rows, counting the file's lines.
struct Collector {
  std::vector<std::vector<std::string>> records;
  std::vector<int> lines;   // first line of each record
  std::vector<bool> blank;  // an empty or blank line
  bool null_first = false;  // the current record's first field is unquoted and empty
  std::vector<std::string> fields;
  int line = 1;         // line the next character is on
  int record_line = 1;  // line the current record began on
  bool after_cr = false;

  static void on_field(void* s, std::size_t length, void* self) {
    auto& c = *static_cast<Collector*>(self);
    if (c.fields.empty()) {
      c.record_line = c.line;
      c.null_first = s == nullptr;  // unquoted and empty
    }
    std::string text(s ? static_cast<const char*>(s) : "", length);
    c.line += static_cast<int>(std::count(text.begin(), text.end(), '\n'));  // quoted newlines
    c.fields.push_back(std::move(text));
    c.after_cr = false;
  }
  static void on_row(int terminator, void* self) {
    auto& c = *static_cast<Collector*>(self);
    if (terminator == '\n' && c.after_cr && c.fields.empty()) {  // the LF of a CRLF
      c.after_cr = false;
      return;
    }
    c.lines.push_back(c.fields.empty() ? c.line : c.record_line);
    c.blank.push_back(c.fields.empty() || (c.fields.size() == 1 && c.null_first));
    c.records.push_back(std::move(c.fields));
    c.fields.clear();
    c.after_cr = terminator == '\r';
    if (terminator == '\n' || terminator == '\r') ++c.line;
  }
};

bool is_row_name_header(const std::string& name) { return name.empty() || name == "Unnamed: 0"; }

}  // namespace

const std::string& CsvTable::cell(Eigen::Index row, Eigen::Index column) const {
  return cells[static_cast<std::size_t>(row) * columns.size() + static_cast<std::size_t>(column)];
}

Eigen::Index CsvTable::column_index(const std::string& name) const {
  for (std::size_t k = 0; k < columns.size(); ++k) {
    if (columns[k] == name) return static_cast<Eigen::Index>(k);
  }
  return -1;
}

CsvTable read_csv(const std::string& path) {
  const std::string text = read_file(path);
  std::string_view body(text);
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);  // UTF-8 byte order mark

  Collector collected;
  {
    csv_parser parser;
    if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL | CSV_EMPTY_IS_NULL) != 0) {
      throw DataError(path, 0, "", "cannot initialize the CSV parser");
    }
    const std::unique_ptr<csv_parser, void (*)(csv_parser*)> owner(&parser, &csv_free);
    const std::size_t used = csv_parse(&parser, body.data(), body.size(), &Collector::on_field,
                                       &Collector::on_row, &collected);
    int status = used == body.size() ? 0 : csv_error(&parser);
    if (status == 0) {
      status = csv_fini(&parser, &Collector::on_field, &Collector::on_row, &collected);
      if (status != 0) status = CSV_EPARSE;
    }
    if (status != 0) {
      const std::string_view before = body.substr(0, std::min(used, body.size()));
      const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
      // An unclosed quote: the record it is in began at the last line ended (or earlier).
      const int unclosed_line = collected.fields.empty() ? collected.line : collected.record_line;
      throw DataError(path, status == CSV_EPARSE && used == body.size() ? unclosed_line : line, "",
                      status == CSV_EPARSE
                          ? (used == body.size() ? "a quoted field is not closed"
                                                 : "malformed quoting (a quote inside an "
                                                   "unquoted field, or text after a closing quote)")
                          : std::string(csv_strerror(status)));
    }
  }
  auto& records = collected.records;
  auto& lines = collected.lines;
  auto& blank = collected.blank;
  while (!records.empty() && blank.back()) {
    records.pop_back();
    lines.pop_back();
    blank.pop_back();
  }
  // Leading blank lines are skipped; the header is the first non-blank record.
  std::size_t first = 0;
  while (first < records.size() && blank[first]) ++first;

  CsvTable table;
  table.file = path;
  if (first == records.size()) throw DataError(path, 1, "", "empty file (expected a header row)");
  const int header_line = lines[first];
  const std::vector<std::string> header = std::move(records[first]);
  const std::size_t n_rows = records.size() - first - 1;
  if (n_rows == 0) throw DataError(path, header_line, "", "no data rows after the header");

  // An unnamed first column holds row names (R write.csv: "", pandas: "" or "Unnamed: 0").
  const std::size_t skip = header.size() > 1 && is_row_name_header(header[0]) ? 1 : 0;
  table.row_names = skip == 1;
  // Every row one field longer than the header: row names without a header field (R's
  // write.table), or a trailing comma; not decided, but said.
  const bool every_row_longer =
      std::all_of(records.begin() + static_cast<std::ptrdiff_t>(first) + 1, records.end(),
                  [&](const auto& r) { return r.size() == header.size() + 1; });
  const std::string longer_hint =
      every_row_longer ? " (every row has one field more than the header: if the first column "
                         "holds row names, give it an empty header field)"
                       : "";
  std::unordered_map<std::string_view, std::size_t> column_of;
  column_of.reserve(header.size());
  for (std::size_t k = skip; k < header.size(); ++k) {
    const std::string& name = header[k];
    const std::string where = position_label(k + 1);
    if (name.empty()) {
      throw DataError(path, header_line, where,
                      k == 0 ? "empty column name (a row-name column is recognized only when "
                               "other columns follow)"
                             : "empty column name (only the first column may be unnamed: R and "
                               "pandas row names)");
    }
    // One hash lookup a column: a header of a million columns is checked in linear time.
    if (const auto [earlier, inserted] = column_of.try_emplace(name, k); !inserted) {
      throw DataError(path, header_line, where,
                      "duplicate column name " + quoted_field(name) + " (also column #" +
                          std::to_string(earlier->second + 1) + ")");
    }
    table.columns.push_back(name);
  }

  const std::size_t n_fields = header.size();
  const std::size_t n_cols = table.columns.size();
  const auto expected = [&](std::size_t got) {
    return "expected " + std::to_string(n_fields) + " fields, got " + std::to_string(got);
  };
  table.cells.reserve(n_rows * n_cols);
  table.rows.reserve(n_rows);
  for (std::size_t r = first + 1; r < records.size(); ++r) {
    auto& fields = records[r];
    const int row = lines[r];
    if (blank[r]) throw DataError(path, row, "", "empty line; " + expected(0));
    if (fields.size() > n_fields) {
      throw DataError(path, row, position_label(n_fields + 1),
                      expected(fields.size()) + longer_hint);
    }
    if (fields.size() < n_fields) {
      throw DataError(path, row, table.columns[fields.size() - skip], expected(fields.size()));
    }
    for (std::size_t k = skip; k < n_fields; ++k) table.cells.push_back(std::move(fields[k]));
    table.rows.push_back(row);
  }
  return table;
}

Cell read_cell(std::string_view field) {
  if (is_missing(field)) return {CellKind::missing};
  const char* first = field.data();
  const char* last = first + field.size();
  // from_chars rejects a leading '+'; accept "+1" but not "+-1".
  if (*first == '+' && last - first > 1 && first[1] != '-') ++first;
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
  if (ptr != last || ec == std::errc::invalid_argument) return {CellKind::text};
  if (ec == std::errc::result_out_of_range) {
    // Overflow is an error; underflow (e.g. 1e-400) reads as zero.
    if (decimal_exponent(std::string_view(first, static_cast<std::size_t>(last - first))) > 0) {
      return {CellKind::not_finite};
    }
    return {CellKind::number, *first == '-' ? -0.0 : 0.0};
  }
  if (!std::isfinite(value)) return {CellKind::not_finite};
  return {CellKind::number, value};
}

DataError cell_error(const CsvTable& table, Eigen::Index row, Eigen::Index column,
                     const Cell& cell) {
  const std::string& text = table.cell(row, column);
  std::string message;
  switch (cell.kind) {
    case CellKind::number:
      message = "unexpected number " + quoted_field(text);
      break;
    case CellKind::missing:
      message =
          text.empty() ? "missing value (empty field)" : "missing value " + quoted_field(text);
      message += "; set 'data: {missing: drop_rows}' to drop such rows";
      break;
    case CellKind::not_finite:
      message = "not a finite number: " + quoted_field(text);
      break;
    case CellKind::text:
      message = "expected a number, got " + quoted_field(text);
      break;
  }
  return DataError(table.file, table.rows[static_cast<std::size_t>(row)],
                   printable(table.columns[static_cast<std::size_t>(column)]), message);
}

Eigen::MatrixXd to_numbers(const CsvTable& table) {
  const Eigen::Index cols = static_cast<Eigen::Index>(table.columns.size());
  Eigen::MatrixXd values(table.size(), cols);
  for (Eigen::Index i = 0; i < table.size(); ++i) {
    for (Eigen::Index k = 0; k < cols; ++k) {
      const Cell cell = read_cell(table.cell(i, k));
      if (cell.kind != CellKind::number) throw cell_error(table, i, k, cell);
      values(i, k) = cell.value;
    }
  }
  return values;
}

}  // namespace quench
