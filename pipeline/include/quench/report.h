// Reporters: results.json (schema in docs/results.md), CSV tables, plots and a console
// summary. A report is written into a fresh staging directory beside its target and swapped
// into place as a whole at the end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quench/export.h"
#include "quench/provenance.h"
#include "quench/results.h"

namespace quench {

struct ReportOptions {
  std::string pipeline_name;
  std::uint64_t seed = 0;
  bool tables = true;
  bool plots = true;
  const Provenance* provenance = nullptr;  ///< written as "provenance" when set
};

struct ReportFiles {
  std::string results_json;
  std::vector<std::string> tables;
  std::vector<std::string> plots;
  std::vector<std::string> models;    ///< models/<run label>.h5 of runs with a fitted model
  std::vector<std::string> warnings;  ///< e.g. gnuplot missing: plots skipped
};

/// Writes results.json, tables/ and plots/ into a fresh staging directory beside `directory`
/// and then swaps it into place: the previous report stays whole until then and none of its
/// files survive. Refuses (check_report_directory) a directory that is not a report. On any
/// error or a stop request (Interrupted) the staging directory is removed and nothing
/// changes. The paths returned are under `directory`.
QUENCH_API ReportFiles write_report(const std::vector<Results>& runs, const std::string& directory,
                                    const ReportOptions& options);

/// Throws Error unless `directory` may be replaced by a report: it does not exist, is empty,
/// or holds a quench results.json. So a report never deletes a directory it did not write.
QUENCH_API void check_report_directory(const std::string& directory);

/// The JSON document of results.json.
QUENCH_API std::string results_to_json(const std::vector<Results>& runs,
                                       const ReportOptions& options);

/// A short human-readable table of every run's status and scalars.
QUENCH_API std::string summarize(const std::vector<Results>& runs);

/// Writes `content` to `path` through a uniquely named temporary file in the same directory
/// and a rename, so readers never see a partial file. Throws Error on failure.
QUENCH_API void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace quench
