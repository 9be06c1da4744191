#include "quench/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace quench {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_regular_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once (it is refused below).
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) throw UnreadableFile(std::strerror(errno), true);
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) throw UnreadableFile(std::strerror(errno), false);
  if (!S_ISREG(info.st_mode))
    throw UnreadableFile(std::string("not a regular file (") + kind_of(info.st_mode) + ")", false);
  std::string text;
  text.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(file.fd, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw UnreadableFile(std::strerror(errno), false);
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

}  // namespace quench
