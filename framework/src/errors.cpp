#include "quench/errors.h"

#include <sstream>

namespace quench {

Error::~Error() = default;

std::string SourceLocation::str() const {
  std::ostringstream out;
  out << (file.empty() ? "<input>" : file);
  if (line > 0) {
    out << ':' << line;
    if (column > 0) out << ':' << column;
  }
  return out.str();
}

std::string Diagnostic::str() const {
  // Errors raised outside any file (programmatic use, checks while running) have no position.
  if (where.file.empty() && where.line == 0) return message;
  return where.str() + ": " + message;
}

namespace {
std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += d.str();
  }
  return text;
}
}  // namespace

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : Error(join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

ConfigError::ConfigError(SourceLocation where, const std::string& message)
    : ConfigError(std::vector<Diagnostic>{{std::move(where), message}}) {}

ConfigError::~ConfigError() = default;

DataError::DataError(std::string file, int row, std::string column, const std::string& message)
    : Error([&] {
        std::string text = file;
        if (row > 0) text += ": row " + std::to_string(row);
        if (!column.empty()) text += ", column '" + column + "'";
        return text + ": " + message;
      }()),
      file_(std::move(file)),
      row_(row),
      column_(std::move(column)) {}

DataError::~DataError() = default;

PluginError::PluginError(std::string library_path, const std::string& message)
    : Error(library_path.empty() ? message : library_path + ": " + message),
      library_path_(std::move(library_path)) {}

PluginError::~PluginError() = default;

NumericalError::NumericalError(std::string where, const std::string& message)
    : Error(where + ": " + message), where_(std::move(where)) {}

NumericalError::~NumericalError() = default;

}  // namespace quench
