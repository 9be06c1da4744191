#include "quench/target.h"

#include <array>
#include <cmath>
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

bool valid_size(TargetKind kind, double n) {
  return n > 0 && std::isfinite(n) && (kind != TargetKind::successes || n == std::floor(n));
}

const char* size_requirement(TargetKind kind) {
  return kind == TargetKind::count       ? "a positive exposure"
         : kind == TargetKind::successes ? "a positive whole number of trials"
                                         : "a positive size";
}

bool valid_target(TargetKind kind, Observation o) {
  const bool whole = std::isfinite(o.y) && o.y >= 0 && o.y == std::floor(o.y);
  switch (kind) {
    case TargetKind::real:
      return std::isfinite(o.y);
    case TargetKind::count:
      return whole;
    case TargetKind::binary:
      return o.y == 1.0 || o.y == -1.0;
    case TargetKind::successes:
      return whole && o.y <= o.size;
    case TargetKind::any:
    case TargetKind::classes:
      return true;
  }
  return true;
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
