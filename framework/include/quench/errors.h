// Typed errors. Each carries the context a user needs to find the cause: a file position for
// configuration errors, a row and column for data errors, a library path for plugin errors.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "quench/export.h"

namespace quench {

/// Base of every quench error; what() is a complete one-line message.
class QUENCH_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  ~Error() override;
};

/// A position in a configuration file (1-based line and column; 0 when unknown).
struct QUENCH_API SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  /// "file:line:col" (or the parts that are known).
  std::string str() const;
};

/// One problem found in a pipeline file.
struct QUENCH_API Diagnostic {
  SourceLocation where;
  std::string message;
  /// "file:line:col: message"
  std::string str() const;
};

/// Invalid configuration. Holds every diagnostic found, so all can be reported at once.
class QUENCH_API ConfigError : public Error {
 public:
  explicit ConfigError(std::vector<Diagnostic> diagnostics);
  ConfigError(SourceLocation where, const std::string& message);
  ~ConfigError() override;
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

/// Bad input data; names the file, the 1-based row (counting the header as row 1) and column.
class QUENCH_API DataError : public Error {
 public:
  DataError(std::string file, int row, std::string column, const std::string& message);
  ~DataError() override;
  const std::string& file() const { return file_; }
  int row() const { return row_; }
  const std::string& column() const { return column_; }

 private:
  std::string file_;
  int row_;
  std::string column_;
};

/// A plugin library that cannot be used, or a plugin that failed to construct.
class QUENCH_API PluginError : public Error {
 public:
  PluginError(std::string library_path, const std::string& message);
  ~PluginError() override;
  const std::string& library_path() const { return library_path_; }

 private:
  std::string library_path_;
};

/// A numerical failure (matrix not positive definite, no convergence, non-finite result).
class QUENCH_API NumericalError : public Error {
 public:
  NumericalError(std::string where, const std::string& message);
  ~NumericalError() override;
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

}  // namespace quench
