// Reading a whole input file (a pipeline, a CSV table) without ever blocking: a FIFO, a device
// or a directory named as an input is refused at once instead of waiting for a writer
// (a FIFO) or reading without end (/dev/zero).
#pragma once

#include <stdexcept>
#include <string>

#include "quench/export.h"

namespace quench {

/// Why a file could not be read ("No such file or directory", "not a regular file (a FIFO)");
/// the caller adds the path in its own error type.
class QUENCH_API UnreadableFile : public std::runtime_error {
 public:
  UnreadableFile(const std::string& reason, bool opening)
      : std::runtime_error(reason), opening_(opening) {}
  /// Whether opening the path failed (it does not exist, no permission), rather than reading it.
  bool opening() const { return opening_; }

 private:
  bool opening_;
};

/// The bytes of the regular file at `path` (symbolic links followed). The file is opened
/// without waiting (O_NONBLOCK) and anything but a regular file refused before a byte is read.
/// Throws UnreadableFile.
QUENCH_API std::string read_regular_file(const std::string& path);

}  // namespace quench
