// The report directory as a whole: a report is written into a fresh staging directory beside
// its target and swapped into place at the end, so the previous report stays whole until
// then and no file of it survives.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quench/errors.h"
#include "quench/printable.h"
#include "quench/report.h"
#include "report_internal.h"

namespace quench {
namespace {

namespace fs = std::filesystem;

// An absolute path without a trailing separator; a symbolic link to a directory resolves to
// that directory, which is then the one replaced.
fs::path resolve(const std::string& directory) {
  fs::path path = fs::weakly_canonical(fs::absolute(directory));
  if (!path.has_filename()) path = path.parent_path();
  return path;
}

bool holds_report(const fs::path& directory) {
  std::ifstream in(directory / "results.json", std::ios::binary);
  if (!in) return false;
  const auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  const auto schema = doc.is_object() ? doc.find("schema") : doc.end();
  return schema != doc.end() && schema->is_string() &&
         schema->get<std::string>().rfind(kResultsSchemaFamily, 0) == 0;
}

[[noreturn]] void throw_system_error(const std::string& what) {
  throw Error(what + ": " + std::strerror(errno));
}

}  // namespace

void check_report_directory(const std::string& directory) {
  const fs::path path = resolve(directory);
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw Error("cannot write the report to " + path.string() +
                ": it exists and is not a directory");
  if (fs::is_empty(path)) return;
  if (!holds_report(path))
    throw Error("refusing to write the report to " + path.string() +
                ": the directory is not empty and holds no quench results.json (a report "
                "replaces its directory as a whole; choose a new or empty directory)");
  // A report replaces the previous one as a whole: the user's own files beside it would go too.
  std::vector<std::string> others;
  for (const auto& entry : fs::directory_iterator(path)) {
    const std::string name = entry.path().filename().string();
    if (std::find(kReportEntries.begin(), kReportEntries.end(), name) == kReportEntries.end())
      others.push_back(name);
  }
  std::sort(others.begin(), others.end());
  std::string foreign;
  const auto count = others.size();
  for (std::size_t i = 0; i < std::min<std::size_t>(count, 5); ++i)
    foreign += (foreign.empty() ? "'" : ", '") + printable(others[i]) + "'";
  if (count > 0)
    throw Error("refusing to write the report to " + path.string() + ": beside its previous " +
                "report it holds " + foreign + (count > 5 ? " and more" : "") +
                ", which a report does not write (a report replaces its directory as a whole; " +
                "move them or choose another directory)");
}

namespace {

// Staging directories of `target` left by runs that died before removing them (kill -9 while
// the report was written): removed. Their names carry the writing process's id; one whose
// process still exists (or whose id cannot be read) is left alone.
void remove_abandoned_staging(const fs::path& target) {
  const std::string prefix = "." + target.filename().string() + kStagingInfix;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());  // "<pid>-XXXXXX"
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || rest.find_first_not_of("0123456789") != dash ||
        dash > 9)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
    if (::kill(pid, 0) == -1 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

}  // namespace

StagingDirectory::StagingDirectory(const std::string& target) : target_(resolve(target)) {
  check_report_directory(target_.string());
  fs::create_directories(target_.parent_path());
  remove_abandoned_staging(target_);
  std::string pattern =
      (target_.parent_path() /
       ("." + target_.filename().string() + kStagingInfix + std::to_string(::getpid()) + "-XXXXXX"))
          .string();
  if (!::mkdtemp(pattern.data()))
    throw_system_error("cannot create a directory beside " + target_.string());
  path_ = pattern;
}

StagingDirectory::~StagingDirectory() {
  std::error_code ignored;
  if (!committed_) fs::remove_all(path_, ignored);
}

void StagingDirectory::commit() {
  // Another run may create or replace the target between these calls: each failure that
  // says so is answered by the other call. Several runs into one directory each end with a
  // whole report in place; the last swap wins.
  for (;;) {
    check_report_directory(target_.string());
    if (::renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) == 0)
      break;
    if (errno != EEXIST && errno != ENOTEMPTY)
      throw_system_error("cannot rename " + path_.string() + " to " + target_.string());
    if (::renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
      // The previous report now has the staging name.
      std::error_code ignored;
      fs::remove_all(path_, ignored);
      break;
    }
    if (errno != ENOENT)
      throw_system_error("cannot exchange " + path_.string() + " with " + target_.string());
  }
  committed_ = true;
}

}  // namespace quench
