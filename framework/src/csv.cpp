// CSV reader: the whole file is read at once and every field is parsed with std::from_chars.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "quench/dataset.h"
#include "quench/errors.h"

namespace quench {

namespace {

std::string read_file(const std::string& path) {
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) {
    throw DataError(path, 0, "", std::string("cannot open file: ") + std::strerror(errno));
  }
  std::string text;
  char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, got);
  if (std::ferror(file.get())) {
    throw DataError(path, 0, "", std::string("cannot read file: ") + std::strerror(errno));
  }
  return text;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

/// Field text for an error message; long fields are cut.
std::string quoted(std::string_view field) {
  constexpr std::size_t max_shown = 40;
  if (field.size() <= max_shown) return "'" + std::string(field) + "'";
  return "'" + std::string(field.substr(0, max_shown)) + "...'";
}

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

/// "#k": names a column by its 1-based position.
std::string position_label(std::size_t k) {
  std::string label(1, '#');
  label += std::to_string(k);
  return label;
}

enum class ParseResult { ok, not_a_number, not_finite };

ParseResult parse_double(std::string_view field, double& value) {
  const char* first = field.data();
  const char* last = first + field.size();
  // from_chars rejects a leading '+'; accept "+1" but not "+-1".
  if (first != last && *first == '+' && last - first > 1 && first[1] != '-') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
  if (ptr != last || first == last) return ParseResult::not_a_number;
  if (ec == std::errc::invalid_argument) return ParseResult::not_a_number;
  if (ec == std::errc::result_out_of_range) {
    // Overflow is an error; underflow (e.g. 1e-400) reads as zero.
    if (decimal_exponent(std::string_view(first, static_cast<std::size_t>(last - first))) > 0) {
      return ParseResult::not_finite;
    }
    value = *first == '-' ? -0.0 : 0.0;
    return ParseResult::ok;
  }
  return std::isfinite(value) ? ParseResult::ok : ParseResult::not_finite;
}

/// Splits the text into lines (without '\n'); trailing empty lines are dropped.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  return lines;
}

}  // namespace

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
  const std::vector<std::string_view> lines = split_lines(body);

  CsvTable table;
  table.file = path;
  if (lines.empty()) throw DataError(path, 1, "", "empty file (expected a header row)");

  // Header (row 1).
  {
    std::string_view rest = lines[0];
    for (int k = 1;; ++k) {
      const std::size_t comma = rest.find(',');
      const std::string name(trim(rest.substr(0, comma)));
      const std::string where = position_label(static_cast<std::size_t>(k));
      if (name.empty()) throw DataError(path, 1, where, "empty column name");
      for (std::size_t j = 0; j < table.columns.size(); ++j) {
        if (table.columns[j] == name) {
          throw DataError(
              path, 1, where,
              "duplicate column name '" + name + "' (also column #" + std::to_string(j + 1) + ")");
        }
      }
      table.columns.push_back(name);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  const std::size_t n_cols = table.columns.size();
  const std::size_t n_rows = lines.size() - 1;
  if (n_rows == 0) throw DataError(path, 1, "", "no data rows after the header");

  // Data rows, parsed row-major, then copied into the column-major matrix.
  std::vector<double> values(n_rows * n_cols);
  const auto expected = [&](std::size_t got) {
    return "expected " + std::to_string(n_cols) + " fields, got " + std::to_string(got);
  };
  for (std::size_t i = 0; i < n_rows; ++i) {
    const int row = static_cast<int>(i + 2);
    std::string_view rest = lines[i + 1];
    if (trim(rest).empty()) throw DataError(path, row, "", "empty line; " + expected(0));
    double* out = values.data() + i * n_cols;
    std::size_t k = 0;
    for (;; ++k) {
      const std::size_t comma = rest.find(',');
      if (k >= n_cols) {
        std::size_t got = k + 1;
        for (char c : rest) got += (c == ',');
        throw DataError(path, row, position_label(n_cols + 1), expected(got));
      }
      const std::string_view field = trim(rest.substr(0, comma));
      switch (parse_double(field, out[k])) {
        case ParseResult::ok:
          break;
        case ParseResult::not_a_number:
          throw DataError(path, row, table.columns[k],
                          field.empty() ? "expected a number, got an empty field"
                                        : "expected a number, got " + quoted(field));
        case ParseResult::not_finite:
          throw DataError(path, row, table.columns[k], "not a finite number: " + quoted(field));
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (k + 1 < n_cols) throw DataError(path, row, table.columns[k + 1], expected(k + 1));
  }

  table.values =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          values.data(), static_cast<Eigen::Index>(n_rows), static_cast<Eigen::Index>(n_cols));
  return table;
}

}  // namespace quench
