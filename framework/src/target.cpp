#include "quench/target.h"

#include <array>
#include <utility>

namespace quench {

namespace {
constexpr std::array<std::pair<TargetKind, const char*>, 6> kNames{{
    {TargetKind::any, "any"},
    {TargetKind::real, "real"},
    {TargetKind::count, "count"},
    {TargetKind::binary, "binary"},
    {TargetKind::successes, "successes"},
    {TargetKind::classes, "classes"},
}};
}  // namespace

std::vector<TargetKind> scalar_target_kinds() {
  return {TargetKind::real, TargetKind::count, TargetKind::binary, TargetKind::successes};
}

const char* to_string(TargetKind kind) {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "?";
}

std::optional<TargetKind> target_kind_from_string(std::string_view name) {
  for (const auto& [k, text] : kNames)
    if (name == text) return k;
  return std::nullopt;
}

const char* size_meaning(TargetKind kind) {
  return kind == TargetKind::count ? "exposure" : kind == TargetKind::successes ? "trials" : "size";
}

Observations Observations::subset(const std::vector<Eigen::Index>& rows) const {
  Observations out;
  out.y = y(rows);
  if (sizes.size()) out.sizes = sizes(rows);
  return out;
}

Eigen::VectorXd Observations::all_sizes() const {
  return sizes.size() ? sizes : Eigen::VectorXd::Ones(y.size());
}

}  // namespace quench
