// Internal helpers shared by the reporters.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "quench/printable.h"
#include "quench/report.h"

namespace quench {

/// A file-name-safe label of a run: "<engine>" or "<engine>__ratio-0.5".
std::string run_label(const Results& r);

/// The model file of a run with a fitted model, relative to the report: "models/<label>.h5".
inline std::string model_file(const Results& r) { return "models/" + run_label(r) + ".h5"; }

/// Writes the plots for `runs` into directory/plots; returns the files written and warnings.
void write_plots(const std::vector<Results>& runs, const std::string& directory,
                 ReportFiles& files);

/// The entries a report writes at its top level (results.json, tables/, plots/, models/); a
/// directory holding anything else is not replaced by a report.
inline constexpr std::array<const char*, 4> kReportEntries{"results.json", "tables", "plots",
                                                           "models"};

/// Every results.json schema id starts with this.
inline constexpr const char* kResultsSchemaFamily = "quench.results/";

/// Staging directories are named ".<target name>.quench-staging-<pid>-XXXXXX" beside the
/// target; one whose process no longer exists is removed by the next run into that target.
inline constexpr const char* kStagingInfix = ".quench-staging-";

/// A fresh, uniquely named directory beside `target` (created after check_report_directory),
/// removed on destruction unless commit() swapped it into the target's place.
class StagingDirectory {
 public:
  explicit StagingDirectory(const std::string& target);
  ~StagingDirectory();
  StagingDirectory(const StagingDirectory&) = delete;
  StagingDirectory& operator=(const StagingDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// Renames the staging directory to the target, exchanging it with an existing report
  /// (renameat2 RENAME_EXCHANGE) whose files are then removed.
  void commit();

 private:
  std::filesystem::path target_, path_;
  bool committed_ = false;
};

}  // namespace quench
