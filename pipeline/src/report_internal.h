// Internal helpers shared by the reporters.
#pragma once

#include <string>
#include <vector>

#include "quench/report.h"

namespace quench {

/// A file-name-safe label of a run: "<engine>" or "<engine>__ratio-0.5".
std::string run_label(const Results& r);

/// Writes the plots for `runs` into directory/plots; returns the files written and warnings.
void write_plots(const std::vector<Results>& runs, const std::string& directory,
                 ReportFiles& files);

/// A number as text, round-trip exact for doubles.
std::string format_number(double x);

}  // namespace quench
