// Reporters: results.json (schema in docs/results.md), CSV tables, plots and a console
// summary. Every file is written atomically (temporary file + rename).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quench/export.h"
#include "quench/results.h"

namespace quench {

struct ReportOptions {
  std::string pipeline_name;
  std::uint64_t seed = 0;
  bool tables = true;
  bool plots = true;
};

struct ReportFiles {
  std::string results_json;
  std::vector<std::string> tables;
  std::vector<std::string> plots;
  std::vector<std::string> warnings;  ///< e.g. gnuplot missing: plots skipped
};

/// Writes results.json, tables/ and plots/ under `directory` (created if needed).
QUENCH_API ReportFiles write_report(const std::vector<Results>& runs, const std::string& directory,
                                    const ReportOptions& options);

/// The JSON document of results.json.
QUENCH_API std::string results_to_json(const std::vector<Results>& runs,
                                       const ReportOptions& options);

/// A short human-readable table of every run's status and scalars.
QUENCH_API std::string summarize(const std::vector<Results>& runs);

/// Writes `content` to `path` through a temporary file in the same directory and a rename,
/// so readers never see a partial file. Throws Error on failure.
QUENCH_API void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace quench
