// Wording shared by pipeline messages: "did you mean" suggestions (the candidate nearest to a
// misspelt word by case-insensitive Damerau-Levenshtein distance, optimal string alignment,
// within max(1, length / 3) edits) and how YAML values read in messages.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "pipeline_spec.h"
#include "quench/printable.h"

namespace quench {

namespace {

std::string lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Edits (insert, delete, substitute, swap adjacent) turning a into b.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.empty()) return {};
  const std::string w = lower(word);
  const std::size_t threshold = std::max<std::size_t>(1, w.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = threshold + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(w, lower(candidate));
    if (d < best_distance) {  // strict: ties keep the earlier candidate
      best = &candidate;
      best_distance = d;
    }
  }
  return best ? *best : std::string();
}

std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string best = did_you_mean(word, candidates);
  return best.empty() ? std::string() : "; did you mean '" + best + "'?";
}

std::string describe(const YAML::Node& node) {
  if (node.IsScalar() && node.Tag() == "!")
    return "quoted string \"" + printable(node.Scalar()) + "\"";
  if (node.IsScalar()) return "'" + printable(node.Scalar()) + "'";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "nothing";
}

}  // namespace quench
