// A fitted model's contents as named, typed entries: the one format every model kind writes
// into (docs/models.md). Names are paths of letters, digits, '_' and '/' ("posterior/alpha");
// a model kind writes its own entries under "posterior/", the core the rest. save_archive
// stores an archive as one HDF5 file, each entry a dataset, behind a 512-byte header (HDF5's
// user block) with the format name, its version and an XXH3-128 checksum of the rest of the
// file; load_archive checks all three before the HDF5 library reads a byte.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include "quench/errors.h"
#include "quench/export.h"

namespace quench {

/// A model file that cannot be used (missing, truncated, corrupted, another format or
/// version, an entry missing or of the wrong type or shape); names the file and the problem.
class QUENCH_API ModelFileError : public Error {
 public:
  ModelFileError(std::string file, const std::string& message);
  ~ModelFileError() override;
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

class QUENCH_API ModelArchive {
 public:
  /// real, integer, text, vector (1-D), matrix (2-D, rows x cols), list of texts.
  using Entry = std::variant<double, std::int64_t, std::string, Eigen::VectorXd, Eigen::MatrixXd,
                             std::vector<std::string>>;

  /// `file` names the archive in error messages (the path it was loaded from or saved to).
  explicit ModelArchive(std::string file = "<in memory>") : file_(std::move(file)) {}

  /// Adds or replaces an entry. Throws std::invalid_argument for a name that is not a path of
  /// [A-Za-z0-9_] parts separated by '/'.
  void put(const std::string& name, Entry value);
  bool has(const std::string& name) const { return entries_.count(name) != 0; }

  /// The entry `name` as the type asked for; ModelFileError naming the file and the entry when
  /// it is missing or of another type. With a size (or rows / cols) >= 0, also when the shape
  /// differs.
  double real(const std::string& name) const;
  std::int64_t integer(const std::string& name) const;
  const std::string& text(const std::string& name) const;
  const Eigen::VectorXd& vector(const std::string& name, Eigen::Index size = -1) const;
  const Eigen::MatrixXd& matrix(const std::string& name, Eigen::Index rows = -1,
                                Eigen::Index cols = -1) const;
  const std::vector<std::string>& texts(const std::string& name) const;
  /// matrix(name, rows, cols), moved out of the archive (the entry is left empty): a model
  /// keeps its large arrays without a copy.
  Eigen::MatrixXd take_matrix(const std::string& name, Eigen::Index rows = -1,
                              Eigen::Index cols = -1);

  /// take_matrix(name, size, size) for a lower Cholesky factor: error() naming the entry when
  /// a diagonal element is not positive.
  Eigen::MatrixXd take_cholesky_factor(const std::string& name, Eigen::Index size);

  /// Names under `prefix` + "/" (one level or deeper), sorted.
  std::vector<std::string> names_under(const std::string& prefix) const;
  const std::map<std::string, Entry>& entries() const { return entries_; }
  const std::string& file() const { return file_; }
  /// A ModelFileError about this archive.
  ModelFileError error(const std::string& message) const;

 private:
  template <class T>
  const T& get(const std::string& name, const char* type) const;
  std::string file_;
  std::map<std::string, Entry> entries_;
};

/// Writes the archive as an HDF5 file (layout in docs/models.md), atomically: a temporary file
/// in the same directory, renamed over `path` when complete. Throws ModelFileError when the
/// file cannot be written.
QUENCH_API void save_archive(const ModelArchive& archive, const std::string& path);

/// Reads an archive written by save_archive: the file is read once, its header and checksum
/// checked, and the verified bytes opened as an in-memory HDF5 image. Throws ModelFileError
/// for a file that is missing, not a quench model, truncated, of another format version, whose
/// checksum differs, or with entries of a type or rank the format does not have.
QUENCH_API ModelArchive load_archive(const std::string& path);

/// Version of the file layout (docs/models.md); files of another version are refused.
inline constexpr std::int64_t kModelFormatVersion = 1;

}  // namespace quench
