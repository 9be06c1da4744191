// libFuzzer harness: arbitrary bytes as a CSV data file, read with the public loader
// (quench::read_csv) and, when that succeeds, loaded as a standardized data set with the
// first column as target (quench::load_dataset). The file is an in-memory file
// (memfd_create) named by its /proc/self/fd path, so the harness goes through the same
// path-based API as the CLI and writes nothing to disk. Any outcome but success or a
// quench::Error is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "quench/dataset.h"
#include "quench/errors.h"

namespace {

// The in-memory file reused by every input.
int data_file() {
  static const int fd = [] {
    const int f = memfd_create("fuzz.csv", 0);
    if (f < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    return f;
  }();
  return fd;
}

void replace_contents(int fd, const std::uint8_t* data, std::size_t size) {
  if (ftruncate(fd, 0) != 0) std::abort();
  std::size_t written = 0;
  while (written < size) {
    const auto n = pwrite(fd, data + written, size - written, static_cast<off_t>(written));
    if (n <= 0) std::abort();
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = data_file();
  replace_contents(fd, data, size);
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    const auto table = quench::read_csv(path);
    if (table.columns.empty()) return 0;
    quench::DataSpec spec;
    spec.train_file = path;
    spec.target = table.columns.front();
    spec.standardize_inputs = true;
    spec.standardize_target = true;
    (void)quench::load_dataset(spec);
  } catch (const quench::Error&) {
    // Refused data: the expected outcome for most inputs.
  }
  return 0;
}
