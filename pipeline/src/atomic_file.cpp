#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "quench/errors.h"
#include "quench/report.h"

namespace quench {
namespace {

std::string system_error(const std::string& what, const std::filesystem::path& path,
                         int error = errno) {
  return "cannot " + what + " " + path.string() + ": " + std::strerror(error);
}

// Creates a temporary file beside `target` with a name no other thread or process uses
// (process id and a per-process counter, created exclusively); returns its descriptor.
int create_temporary(const std::filesystem::path& target, std::filesystem::path& temp) {
  static std::atomic<unsigned long> counter{0};
  for (;;) {
    temp = target.parent_path() / ("." + target.filename().string() + ".tmp-" +
                                   std::to_string(::getpid()) + "-" + std::to_string(counter++));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) throw Error(system_error("create", temp));
  }
}

bool write_all(int fd, const std::string& content) {
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  fs::path temp;
  const int fd = create_temporary(target, temp);
  int error = write_all(fd, content) ? 0 : errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    throw Error(system_error("write", temp, error));
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    error = errno;
    ::unlink(temp.c_str());
    throw Error(system_error("rename " + temp.string() + " to", target, error));
  }
}

}  // namespace quench
