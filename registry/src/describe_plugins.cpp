// The text of `quench plugins`: plugins by family with their parameters, then the libraries
// that were refused and any warnings.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "quench/errors.h"
#include "quench/kernel_record.h"
#include "quench/printable.h"
#include "quench/registry.h"

namespace quench {
namespace {

using Row = std::vector<std::string>;

// Prints rows as columns separated by two spaces; the last column is not padded.
void print_table(std::ostream& out, const std::string& indent, const std::vector<Row>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
}

std::string format_number(double x) { return to_string(ParamValue{x}); }

// Integer limits are stored as doubles; the extreme ones mean "unbounded".
bool bounded(double x, ParamType type) {
  if (!std::isfinite(x)) return false;
  if (type == ParamType::integer)
    return std::abs(x) < static_cast<double>(std::numeric_limits<std::int64_t>::max());
  return true;
}

std::string format_bound(double x, ParamType type) {
  if (type == ParamType::integer) return std::to_string(static_cast<std::int64_t>(x));
  return format_number(x);
}

std::string type_text(const ParamSpec& spec) {
  if (spec.type == ParamType::plugin && !spec.plugin_family.empty())
    return spec.plugin_family + " plugin";
  return to_string(spec.type);
}

std::string default_text(const ParamSpec& spec) {
  if (spec.default_value) {
    std::string value = to_string(*spec.default_value);
    return "default " + (value.empty() ? std::string("''") : value);
  }
  return spec.optional ? "optional" : "required";
}

std::string constraint_text(const ParamSpec& spec) {
  std::string text;
  const bool low = bounded(spec.min, spec.type), high = bounded(spec.max, spec.type);
  if (low && high) {
    text = "[" + format_bound(spec.min, spec.type) + ", " + format_bound(spec.max, spec.type) + "]";
  } else if (low) {
    text = ">= " + format_bound(spec.min, spec.type);
  } else if (high) {
    text = "<= " + format_bound(spec.max, spec.type);
  }
  if (!text.empty() && spec.type == ParamType::real_list) text = "items " + text;
  if (!spec.choices.empty()) {
    if (!text.empty()) text += ", ";
    text += "one of";
    for (std::size_t i = 0; i < spec.choices.size(); ++i)
      text += (i ? ", " : " ") + spec.choices[i];
  }
  return text;
}

void describe_family(std::ostream& out, Family family,
                     const std::vector<const PluginEntry*>& entries) {
  out << to_string(family) << " plugins:\n";
  // Names and versions aligned across the family.
  std::size_t name_width = 0, version_width = 1;
  for (const PluginEntry* entry : entries) {
    name_width = std::max(name_width, entry->info->name.size());
    version_width = std::max(version_width, entry->info->version.size());
  }
  for (const PluginEntry* entry : entries) {
    const PluginInfo& info = *entry->info;
    const std::string version = info.version.empty() ? "-" : info.version;
    std::string head = "  " + info.name + std::string(name_width - info.name.size() + 2, ' ') +
                       version + std::string(version_width - version.size() + 2, ' ') + info.doc;
    while (!head.empty() && head.back() == ' ') head.pop_back();
    out << head << '\n';

    std::string library = entry->library_path;
    if (!entry->library_name.empty()) {
      library += " (" + entry->library_name;
      if (!entry->library_version.empty()) library += " " + entry->library_version;
      library += ")";
    }
    std::vector<Row> about{{"library", library}};
    if (!info.needs.empty()) {
      std::string needs;
      for (std::size_t i = 0; i < info.needs.size(); ++i)
        needs += (i ? ", " : "") + std::string(to_string(info.needs[i]));
      about.push_back({"needs", needs});
    }
    const auto& specs = info.schema.specs();
    about.push_back({"parameters", specs.empty() ? "none" : ""});
    print_table(out, "      ", about);

    std::vector<Row> rows;
    for (const ParamSpec& spec : specs)
      rows.push_back(
          {spec.name, type_text(spec), default_text(spec), constraint_text(spec), spec.doc});
    print_table(out, "        ", rows);
  }
}

// How the kernels above combine in a pipeline (quench/composite_kernel.h, docs/kernels.md).
void describe_kernel_combinations(std::ostream& out) {
  out << "\nkernel combinations (of the kernels above, nested up to " << kMaxKernelDepth
      << " deep; docs/kernels.md):\n";
  print_table(out, "  ",
              {{"sum", "{sum: [k0, k1, ...]}", "k0 + k1 + ...; learn paths kernel.0.<block>, ..."},
               {"product", "{product: [k0, k1, ...]}",
                "k0 * k1 * ... elementwise; its parts have no noise"},
               {"columns", "{plugin: k, columns: [a, b]}",
                "k on the named input columns only (any node, sums and products too)"}});
}

}  // namespace

std::string describe_plugins(const Registry& registry, const std::string& filter) {
  std::ostringstream out;
  auto plugins = registry.plugins();
  if (!filter.empty()) {
    std::erase_if(plugins, [&](const PluginEntry* entry) {
      return entry->info->name != filter && to_string(entry->info->family) != filter;
    });
    if (plugins.empty())
      throw ConfigError({}, "no plugin family or plugin named '" + printable(filter) +
                                "' (families: kernel, likelihood, resampler, engine, optimizer; "
                                "'quench plugins' lists every plugin)");
  }
  if (plugins.empty()) out << "No plugins found.\n";

  // plugins() is sorted by family, then name.
  std::size_t begin = 0;
  while (begin < plugins.size()) {
    const Family family = plugins[begin]->info->family;
    std::size_t end = begin;
    while (end < plugins.size() && plugins[end]->info->family == family) ++end;
    if (begin > 0) out << '\n';
    describe_family(out, family, {plugins.begin() + begin, plugins.begin() + end});
    if (family == Family::kernel && filter.empty()) describe_kernel_combinations(out);
    begin = end;
  }

  if (!filter.empty()) return out.str();
  if (!registry.failures().empty()) {
    out << "\nrefused libraries:\n";
    for (const auto& failure : registry.failures()) out << "  " << failure.str() << '\n';
  }
  if (!registry.warnings().empty()) {
    out << "\nwarnings:\n";
    for (const auto& warning : registry.warnings()) out << "  " << warning << '\n';
  }
  return out.str();
}

}  // namespace quench
