// Tests that run a real binary: one way to start it (fork/exec with an argument vector, never a
// shell), in a given working directory, stdin from /dev/null, stdout and stderr captured.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace quench_test {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// What a run of a binary produced.
struct ProgramOutcome {
  int exit_code = -1;  ///< -1 when it did not exit normally (crash, signal, timeout)
  int signal = 0;      ///< the terminating signal, if any (SIGALRM: timed out)
  std::string out, err;
};

/// Runs `program args...` in `cwd`. Its stdout and stderr go to files in `scratch` (which must
/// not be `cwd` when the test inspects the files a run leaves). A binary still running after
/// `timeout_seconds` is killed by SIGALRM (the alarm is kept across exec).
inline ProgramOutcome run_program(const std::string& program, const std::vector<std::string>& args,
                                  const std::filesystem::path& cwd,
                                  const std::filesystem::path& scratch,
                                  unsigned timeout_seconds = 60) {
  const std::string out_file = (scratch / "stdout").string(),
                    err_file = (scratch / "stderr").string(), dir = cwd.string();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 ||
        ::dup2(err, 2) < 0 || ::chdir(dir.c_str()))
      ::_exit(126);
    ::alarm(timeout_seconds);
    ::execv(program.c_str(), argv.data());
    ::_exit(127);
  }
  ProgramOutcome outcome;
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return outcome;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.out = read_text(out_file);
  outcome.err = read_text(err_file);
  return outcome;
}

}  // namespace quench_test
