#include "crash_report.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace quench::mpi {

namespace {

std::atomic<std::int64_t> first_unit{0}, last_unit{0};
int my_rank = 0, ranks = 1;

// Appends the decimal digits of v to buf at pos (no allocation, no locale).
void append_number(char* buf, std::size_t& pos, std::int64_t v) {
  char digits[24];
  int n = 0;
  if (v < 0) {
    buf[pos++] = '-';
    v = -v;
  }
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  while (n > 0) buf[pos++] = digits[--n];
}

void append_text(char* buf, std::size_t& pos, const char* text) {
  while (*text) buf[pos++] = *text++;
}

extern "C" void report_and_die(int signal) {
  char buf[256];
  std::size_t pos = 0;
  append_text(buf, pos, "quench: rank ");
  append_number(buf, pos, my_rank);
  append_text(buf, pos, " of ");
  append_number(buf, pos, ranks);
  append_text(buf, pos, " died of signal ");
  append_number(buf, pos, signal);
  const std::int64_t first = first_unit.load(), last = last_unit.load();
  if (last > first) {
    append_text(buf, pos, " while running units ");
    append_number(buf, pos, first);
    append_text(buf, pos, " to ");
    append_number(buf, pos, last - 1);
  } else {
    append_text(buf, pos, " outside the units");
  }
  append_text(buf, pos, "\n");
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, buf, pos);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_crash_report(int rank, int size) {
  my_rank = rank;
  ranks = size;
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction action {};
    action.sa_handler = report_and_die;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, nullptr);
  }
}

void running_units(std::int64_t first, std::int64_t last) {
  first_unit.store(first);
  last_unit.store(last);
}

}  // namespace quench::mpi
