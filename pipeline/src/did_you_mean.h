// Internal: "did you mean" suggestions for names in pipeline and data messages.
#pragma once

#include <string>
#include <vector>

namespace quench {

/// The closest candidate within a small edit distance, or "" (for "did you mean 'x'?").
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// "; did you mean 'x'?" for the closest candidate, or "" when none is close.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace quench
