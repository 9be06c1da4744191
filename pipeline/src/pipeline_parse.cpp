// Parsing of pipeline files into a PipelineSpec. Only the structure is checked here (known
// keys, types of the fixed fields, required sections); plugin parameters are kept as raw YAML
// and interpreted by resolve_pipeline against the plugins' schemas. Every problem found is
// collected and thrown as one ConfigError, sorted by position.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "load_yaml.h"
#include "pipeline_spec.h"
#include "quench/kernel_record.h"
#include "quench/printable.h"

namespace quench {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTopKeys = {"name",    "seed",       "plugin_paths",
                                           "data",    "components", "engines",
                                           "outputs", "learn",      "inducing"};
const std::vector<std::string> kInducingKeys = {"count",  "method",     "form",
                                                "jitter", "candidates", "kmeans_iterations"};
const std::vector<std::string> kInducingMethods = {"greedy_variance", "kmeans", "random"};
const std::vector<std::string> kLowRankForms = {"fitc", "vfe", "sor"};
const std::vector<std::string> kLearnKeys = {"objective",    "engine",   "parameters",
                                             "bounds",       "restarts", "restart_spread",
                                             "stationarity", "optimizer"};
const std::vector<std::string> kDataKeys = {"file",
                                            "test_file",
                                            "target",
                                            "inputs",
                                            "split",
                                            "standardize_inputs",
                                            "standardize_target",
                                            "center_target",
                                            "missing"};
const std::vector<std::string> kMissingRules = {"error", "drop_rows"};
const std::vector<std::string> kSplitKeys = {"rule", "column", "count", "fraction"};
const std::vector<std::string> kSplitRules = {"none", "column", "first_train", "first_test",
                                              "fraction"};
const std::vector<std::string> kOutputKeys = {"dir", "plots", "tables", "models"};
/// The most mappings merge keys may merge into one mapping.
constexpr std::size_t kMaxMerged = 100;
const std::vector<Family> kComponentFamilies = {Family::kernel, Family::likelihood,
                                                Family::resampler, Family::optimizer};

/// A key of a mapping with its value.
struct Entry {
  std::string key;
  SourceLocation at;  ///< position of the key
  YAML::Node value;
};

std::string resolve_path(const std::string& base_dir, const std::string& path) {
  if (path.empty() || base_dir.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

/// Characters allowed in engine and pipeline names, which become parts of file names
/// (results/<pipeline name>, tables/<engine>__*.csv, plots/*_<engine>.png).
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

/// Why `name` cannot be used in file names, or "" when it can: only letters, digits, '_', '.'
/// and '-', not starting with '.' (so never "..", a hidden file or a path).
std::string name_problem(const std::string& name, const std::string& what) {
  const std::string rule = "; names may only contain letters, digits, '_', '.' and '-'";
  const std::string quoted = "'" + printable(name) + "'";
  auto bad = std::find_if_not(name.begin(), name.end(), is_name_char);
  if (bad != name.end()) {
    const auto u = static_cast<unsigned char>(*bad);
    const std::string character =
        u >= 0x80 ? "a non-ASCII character" : "'" + printable(std::string(1, *bad)) + "'";
    return what + " " + quoted + " contains " + character + rule;
  }
  if (!name.empty() && name[0] == '.') return what + " " + quoted + " must not start with '.'";
  return {};
}

/// A file stem made into a valid name (the default pipeline name): characters outside the
/// name rule become '_'.
std::string name_from_stem(std::string stem) {
  for (char& c : stem)
    if (!is_name_char(c)) c = '_';
  if (!stem.empty() && stem[0] == '.') stem[0] = '_';
  return stem;
}

/// Why `dir` (outputs.dir) would leave the pipeline's folder, or "" when it stays inside.
std::string outputs_dir_problem(const std::string& dir) {
  const fs::path path(dir);
  const std::string elsewhere = "; to write elsewhere, pass --out DIR to quench run";
  if (path.has_root_path())
    return "'outputs.dir' must be relative to the pipeline's folder, got the absolute path '" +
           printable(dir) + "'" + elsewhere;
  const fs::path normal = path.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..")
    return "'outputs.dir' '" + printable(dir) + "' leaves the pipeline's folder" + elsewhere;
  return {};
}

class Parser {
 public:
  Parser(const std::string& file, const std::string& base_dir, bool keep_going)
      : keep_going_(keep_going) {
    spec_.file = file;
    spec_.base_dir = base_dir;
  }

  PipelineSpec parse(const std::string& yaml) {
    const YAML::Node root = load_yaml(yaml, spec_.file);
    spec_.name = name_from_stem(fs::path(spec_.file).stem().string());
    const SourceLocation root_at = root.IsNull() ? SourceLocation{spec_.file, 1, 1} : at(root);
    if (!root.IsMap()) {
      error(root_at, root.IsNull() ? "the pipeline is empty"
                                   : "a pipeline must be a mapping, got " + describe(root));
      finish();
    }
    bool have_data = false, have_engines = false;
    for (const auto& e : entries(root, kTopKeys, "unknown top-level key '")) {
      if (e.key == "name") {
        if (auto s = string_value(e, "name")) {
          if (s->empty())
            error(e.at, "'name' must not be empty");
          else if (auto problem = name_problem(*s, "pipeline name"); !problem.empty())
            error(value_at(e), problem);
          else
            spec_.name = *s;
        }
      } else if (e.key == "seed") {
        if (auto seed = unsigned_value(e, "seed")) spec_.seed = *seed;
      } else if (e.key == "plugin_paths") {
        for (const auto& p : string_list(e, "plugin_paths"))
          spec_.plugin_paths.push_back(resolve_path(spec_.base_dir, p));
      } else if (e.key == "data") {
        have_data = true;
        parse_data(e);
      } else if (e.key == "components") {
        parse_components(e);
      } else if (e.key == "engines") {
        have_engines = true;
        parse_engines(e);
      } else if (e.key == "outputs") {
        parse_outputs(e);
      } else if (e.key == "learn") {
        parse_learn(e);
      } else if (e.key == "inducing") {
        parse_inducing(e);
      }
    }
    if (!have_data) error(root_at, "missing required key 'data'");
    if (!have_engines) error(root_at, "missing required key 'engines' (a list of engines)");
    spec_.data.seed = spec_.seed;
    if (keep_going_) {
      sort_diagnostics(diagnostics_);
      spec_.diagnostics = std::move(diagnostics_);
      diagnostics_.clear();
    }
    finish();
    return std::move(spec_);
  }

 private:
  SourceLocation at(const YAML::Node& node) const { return yaml_location(spec_.file, node.Mark()); }
  /// Position of a value; a null value has none of its own, so use its key's.
  SourceLocation value_at(const Entry& e) const {
    if (e.value.IsNull() || e.value.Mark().line < 0) return e.at;
    return at(e.value);
  }

  void error(SourceLocation where, std::string message) {
    diagnostics_.push_back({std::move(where), std::move(message)});
  }

  void finish() {
    if (diagnostics_.empty()) return;
    sort_diagnostics(diagnostics_);
    throw ConfigError(std::move(diagnostics_));
  }

  /// The entries of a mapping, reporting duplicate keys and (when `known` is given) unknown
  /// ones as `unknown + key + "'" + where` plus a suggestion. A merge key (`<<: *base` or
  /// `<<: [*a, *b]`, YAML 1.1) adds the entries of the named mappings whose keys are not set
  /// yet: the mapping's own keys win wherever they are written, then each merged mapping in
  /// order with its own merges. A mapping reached twice is merged once, and at most kMaxMerged of
  /// them.
  std::vector<Entry> entries(const YAML::Node& map, const std::vector<std::string>& known,
                             const std::string& unknown, const std::string& where = {}) {
    std::vector<Entry> out;
    std::vector<YAML::Node> pending;  // mappings still to merge, the next one last
    own_entries(map, known, unknown, where, false, out, pending);
    std::vector<YAML::Node> merged;
    while (!pending.empty()) {
      const YAML::Node next = pending.back();
      pending.pop_back();
      if (std::any_of(merged.begin(), merged.end(), [&](const auto& m) { return m.is(next); }))
        continue;
      if (merged.size() == kMaxMerged) {
        error(at(next), "more than " + std::to_string(kMaxMerged) +
                            " mappings merged into one (merge keys '<<')");
        break;
      }
      merged.push_back(next);
      own_entries(next, known, unknown, where, true, out, pending);
    }
    return out;
  }

  /// The entries `map` writes itself, appended to `out` unless `out` has the key (an error
  /// unless `map` is merged); the mappings its merge key names pushed onto `pending`.
  void own_entries(const YAML::Node& map, const std::vector<std::string>& known,
                   const std::string& unknown, const std::string& where, bool merged,
                   std::vector<Entry>& out, std::vector<YAML::Node>& pending) {
    std::vector<YAML::Node> sources;  // the mappings its merge key names, in order
    bool have_merge = false;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const SourceLocation key_at = at(it->first);
      if (!it->first.IsScalar()) {
        error(key_at, "keys must be names, got " + describe(it->first));
        continue;
      }
      const std::string key = it->first.Scalar();
      if (key == "<<" && is_plain(it->first)) {
        if (have_merge)
          error(key_at, "duplicate key '<<'");
        else
          merge_sources(it->second, key_at, sources);
        have_merge = true;
        continue;
      }
      auto same = [&](const Entry& e) { return e.key == key; };
      if (std::find_if(out.begin(), out.end(), same) != out.end()) {
        if (!merged) error(key_at, "duplicate key '" + printable(key) + "'");
        continue;
      }
      if (!known.empty() && std::find(known.begin(), known.end(), key) == known.end()) {
        error(key_at, unknown + printable(key) + "'" + where + suggestion(key, known));
        continue;
      }
      out.push_back({key, key_at, it->second});
    }
    // The first source last, to be merged next. (Pushed, never swapped into place:
    // assigning a YAML::Node rebinds the node it refers to, so std::reverse or std::swap on
    // nodes rewrites the document: `<<: [*a, *b]` then merged *b twice and lost *a.)
    for (auto source = sources.rbegin(); source != sources.rend(); ++source)
      pending.push_back(*source);
  }

  /// The mappings a merge key's value names, in order; reports anything else.
  void merge_sources(const YAML::Node& value, const SourceLocation& key_at,
                     std::vector<YAML::Node>& sources) {
    const std::string expects = "the merge key '<<' expects a mapping or a list of mappings, got ";
    if (value.IsMap()) {
      sources.push_back(value);
    } else if (value.IsSequence()) {
      for (const auto& item : value) {
        if (item.IsMap())
          sources.push_back(item);
        else
          error(at(item), expects + "an item " + describe(item));
      }
    } else {
      error(value.IsNull() ? key_at : at(value), expects + describe(value));
    }
  }

  /// A mapping value; a null value counts as empty. Reports anything else.
  bool expect_map(const Entry& e, const std::string& what) {
    if (e.value.IsMap() || e.value.IsNull()) return true;
    error(value_at(e), "'" + what + "' expects a mapping, got " + describe(e.value));
    return false;
  }

  std::optional<std::string> string_value(const Entry& e, const std::string& what) {
    if (e.value.IsScalar()) return e.value.Scalar();
    error(value_at(e), "'" + what + "' expects a string, got " + describe(e.value));
    return std::nullopt;
  }

  std::optional<bool> bool_value(const Entry& e, const std::string& what) {
    if (is_plain(e.value)) {
      const std::string& s = e.value.Scalar();
      if (s == "true" || s == "True" || s == "TRUE") return true;
      if (s == "false" || s == "False" || s == "FALSE") return false;
    }
    error(value_at(e), "'" + what + "' expects true or false, got " + describe(e.value));
    return std::nullopt;
  }

  std::optional<std::uint64_t> unsigned_value(const Entry& e, const std::string& what) {
    if (is_plain(e.value)) {
      std::string s = e.value.Scalar();
      if (!s.empty() && s[0] == '+') s.erase(0, 1);
      std::uint64_t x = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
      if (!s.empty() && ec == std::errc() && end == s.data() + s.size()) return x;
      if (ec == std::errc::result_out_of_range) {
        error(value_at(e), "'" + what + "' is too large: " + e.value.Scalar());
        return std::nullopt;
      }
    }
    error(value_at(e), "'" + what + "' expects a non-negative integer, got " + describe(e.value));
    return std::nullopt;
  }

  std::optional<double> real_value(const Entry& e, const std::string& what) {
    if (is_plain(e.value)) {
      const std::string& s = e.value.Scalar();
      double x = 0;
      const char* first = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
      auto [end, ec] = std::from_chars(first, s.data() + s.size(), x);
      if (!s.empty() && ec == std::errc() && end == s.data() + s.size()) return x;
    }
    error(value_at(e), "'" + what + "' expects a real number, got " + describe(e.value));
    return std::nullopt;
  }

  /// A list of strings; a single string counts as a list of one.
  std::vector<std::string> string_list(const Entry& e, const std::string& what) {
    std::vector<std::string> out;
    if (e.value.IsScalar()) return {e.value.Scalar()};
    if (!e.value.IsSequence()) {
      error(value_at(e), "'" + what + "' expects a list of strings, got " + describe(e.value));
      return out;
    }
    for (const auto& item : e.value) {
      if (item.IsScalar())
        out.push_back(item.Scalar());
      else
        error(at(item), "'" + what + "' items must be strings, got " + describe(item));
    }
    return out;
  }

  void parse_data(const Entry& data) {
    if (!expect_map(data, "data")) return;
    DataSpec& d = spec_.data;
    bool have_file = false;
    spec_.data_at["data"] = data.at;
    for (const auto& e : entries(data.value, kDataKeys, "unknown key '", " in data")) {
      const std::string what = "data." + e.key;
      spec_.data_at[e.key] = e.at;
      if (e.key == "file" || e.key == "test_file") {
        auto s = string_value(e, what);
        if (!s) continue;
        if (s->empty()) {
          error(value_at(e), "'" + what + "' must not be empty");
          continue;
        }
        (e.key == "file" ? d.train_file : d.test_file) = resolve_path(spec_.base_dir, *s);
        have_file = have_file || e.key == "file";
      } else if (e.key == "target") {
        if (auto s = string_value(e, what)) {
          if (s->empty())
            error(value_at(e), "'data.target' must not be empty");
          else
            d.target = *s;
        }
      } else if (e.key == "inputs") {
        d.inputs = string_list(e, what);
        for (std::size_t i = 0; i < d.inputs.size(); ++i)
          for (std::size_t j = 0; j < i; ++j)
            if (d.inputs[i] == d.inputs[j])
              error(value_at(e), "'data.inputs' lists '" + d.inputs[i] + "' twice");
      } else if (e.key == "split") {
        parse_split(e);
      } else if (e.key == "standardize_inputs") {
        if (auto b = bool_value(e, what)) d.standardize_inputs = *b;
      } else if (e.key == "standardize_target") {
        if (auto b = bool_value(e, what)) d.standardize_target = *b;
      } else if (e.key == "center_target") {
        if (auto b = bool_value(e, what)) d.center_target = *b;
      } else if (e.key == "missing") {
        parse_missing(e);
      }
    }
    if (!have_file) error(data.at, "missing required key 'file' in data");
  }

  void parse_missing(const Entry& e) {
    auto s = string_value(e, "data.missing");
    if (!s) return;
    for (std::size_t i = 0; i < kMissingRules.size(); ++i)
      if (*s == kMissingRules[i]) {
        spec_.data.missing = static_cast<MissingRule>(i);
        return;
      }
    error(value_at(e), "'data.missing' must be one of error, drop_rows; got '" + printable(*s) +
                           "'" + suggestion(*s, kMissingRules));
  }

  std::optional<SplitRule> split_rule(const Entry& e) {
    auto s = string_value(e, "data.split.rule");
    if (!s) return std::nullopt;
    for (std::size_t i = 0; i < kSplitRules.size(); ++i)
      if (*s == kSplitRules[i]) return static_cast<SplitRule>(i);
    error(value_at(e),
          "'data.split.rule' must be one of none, column, first_train, first_test, fraction; "
          "got '" +
              *s + "'" + suggestion(*s, kSplitRules));
    return std::nullopt;
  }

  // `split: {rule: ..., ...}`, or just `split: <rule>`.
  void parse_split(const Entry& split) {
    DataSpec& d = spec_.data;
    bool rule_ok = true, have_count = false, have_fraction = false;
    std::vector<Entry> rest;
    if (split.value.IsScalar()) {
      auto rule = split_rule(split);
      if (rule) d.split = *rule;
      rule_ok = rule.has_value();
    } else if (!expect_map(split, "data.split")) {
      return;
    }
    std::vector<Entry> listed;
    if (split.value.IsMap())
      listed = entries(split.value, kSplitKeys, "unknown key '", " in data.split");
    for (auto& e : listed) {
      if (e.key == "rule") {
        auto rule = split_rule(e);
        if (rule) d.split = *rule;
        rule_ok = rule.has_value();
      } else {
        rest.push_back(std::move(e));
      }
    }
    for (const auto& e : rest) {
      const std::string what = "data.split." + e.key;
      const SplitRule r = d.split;
      const bool used =
          (e.key == "column" && r == SplitRule::column) ||
          (e.key == "count" && (r == SplitRule::first_train || r == SplitRule::first_test)) ||
          (e.key == "fraction" && r == SplitRule::fraction);
      if (rule_ok && !used) {
        error(e.at, "'" + e.key + "' is not used by split rule '" +
                        kSplitRules[static_cast<std::size_t>(r)] + "'");
        continue;
      }
      if (e.key == "column") {
        if (auto s = string_value(e, what)) {
          if (s->empty())
            error(value_at(e), "'data.split.column' must not be empty");
          else
            d.split_column = *s;
        }
      } else if (e.key == "count") {
        have_count = true;
        auto n = unsigned_value(e, what);
        constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        if (n && *n == 0)
          error(value_at(e), "'data.split.count' must be >= 1, got 0");
        else if (n)
          d.count = static_cast<std::int64_t>(std::min(*n, kMax));
      } else if (e.key == "fraction") {
        have_fraction = true;
        auto x = real_value(e, what);
        if (x && !(*x > 0.0 && *x < 1.0))
          error(value_at(e), "'data.split.fraction' must be between 0 and 1 (exclusive), got " +
                                 e.value.Scalar());
        else if (x)
          d.fraction = *x;
      }
    }
    if (!rule_ok) return;
    if ((d.split == SplitRule::first_train || d.split == SplitRule::first_test) && !have_count)
      error(split.at,
            "split rule '" + kSplitRules[static_cast<std::size_t>(d.split)] + "' needs 'count'");
    if (d.split == SplitRule::fraction && !have_fraction)
      error(split.at, "split rule 'fraction' needs 'fraction'");
  }

  /// A component or engine block: a mapping with `plugin` (and for engines `name`), or just
  /// a plugin name. `what` names the block in messages ("components.kernel", "engine 2").
  /// With kernel_columns, a `columns` key is the caller's (a kernel node on input columns).
  std::optional<PluginSpec> parse_block(const YAML::Node& block, const SourceLocation& block_at,
                                        const std::string& what, std::string* name,
                                        SourceLocation* name_at, bool kernel_columns = false) {
    PluginSpec spec;
    spec.at = block_at;
    if (block.IsScalar()) {
      if (block.Scalar().empty()) {
        error(block_at, "missing 'plugin' in " + what);
        return std::nullopt;
      }
      spec.plugin = block.Scalar();
      return spec;
    }
    if (!block.IsMap()) {
      error(block_at, what + " expects a mapping with 'plugin', got " + describe(block));
      return std::nullopt;
    }
    bool ok = true, have_plugin = false;
    for (const auto& e : entries(block, {}, "")) {
      if (e.key == "plugin") {
        if (!e.value.IsScalar() || e.value.Scalar().empty()) {
          error(value_at(e), "'plugin' expects a plugin name, got " + describe(e.value));
          ok = false;
        } else {
          spec.plugin = e.value.Scalar();
          spec.at = value_at(e);
        }
        have_plugin = true;
      } else if (e.key == "name") {
        if (!name) {
          error(e.at, "'name' applies only to engines (in " + what + ")");
        } else if (!e.value.IsScalar() || e.value.Scalar().empty()) {
          error(value_at(e), "'name' expects a string, got " + describe(e.value));
          ok = false;
        } else {
          *name = e.value.Scalar();
          *name_at = value_at(e);
        }
      } else if (!(kernel_columns && e.key == "columns")) {
        spec.params[e.key] = RawParam{e.value, e.at};
      }
    }
    if (!have_plugin)
      error(block_at,
            "missing 'plugin' in " + what +
                (kernel_columns ? " (a kernel is a plugin, a 'sum' or a 'product')" : ""));
    if (!have_plugin || !ok) return std::nullopt;
    return spec;
  }

  /// A kernel block that is more than a plugin: `sum`, `product` or `columns` among its keys,
  /// or a list (a kernel per class).
  static bool is_kernel_tree(const YAML::Node& block) {
    return block.IsSequence() ||
           (block.IsMap() && (block["sum"] || block["product"] || block["columns"]));
  }

  /// components.kernel as a list: one kernel per class (quench/class_kernels.h), part c's learn
  /// paths under kernel.c<c>.
  std::optional<KernelNode> parse_class_kernels(const YAML::Node& node,
                                                const SourceLocation& node_at, int depth,
                                                bool& whole) {
    if (depth > 0 || node.size() < 2) {
      error(node_at, depth > 0 ? "components.kernel: a list of kernels (a kernel per class) is "
                                 "the whole kernel, not a part of a sum or product"
                               : "components.kernel: a list of kernels is a kernel per class and "
                                 "needs one for each of at least two classes, got " +
                                     std::to_string(node.size()));
      whole = false;
      return std::nullopt;
    }
    KernelNode out;
    out.at = node_at;
    out.path = "kernel";
    out.combine = kPerClass;
    std::size_t index = 0;
    for (const auto& item : node) {
      const std::string part_path = "kernel." + kernel_part_name(kPerClass, index++);
      const SourceLocation item_at = at(item).line ? at(item) : node_at;
      if (auto part = parse_kernel_node(item, item_at, part_path, depth + 1, whole))
        out.parts.push_back(std::move(*part));
    }
    if (out.parts.empty()) return std::nullopt;
    return out;
  }

  /// A node of a composite kernel (docs/kernels.md): {plugin: name, ...parameters}, {sum:
  /// [nodes]} or {product: [nodes]}, each with optional `columns: [input names]`. `path` is
  /// its learn prefix ("kernel.1.0"). Every problem is reported and clears `whole`; the parts
  /// that parsed are kept (a part that did not is left out).
  std::optional<KernelNode> parse_kernel_node(const YAML::Node& node, const SourceLocation& node_at,
                                              const std::string& path, int depth, bool& whole) {
    const std::string what = "components." + path;
    if (depth > kMaxKernelDepth) {
      error(node_at, what + ": kernels nest deeper than " + std::to_string(kMaxKernelDepth) +
                         " sums and products");
      whole = false;
      return std::nullopt;
    }
    if (node.IsSequence()) return parse_class_kernels(node, node_at, depth, whole);
    KernelNode out;
    out.at = node_at;
    out.path = path;
    if (!is_kernel_tree(node)) {
      auto plugin = parse_block(node, node_at, what, nullptr, nullptr);
      if (!plugin) whole = false;
      if (!plugin) return std::nullopt;
      out.plugin = std::move(*plugin);
      return out;
    }
    bool ok = true;
    std::vector<std::string> combines;
    for (const auto& e : entries(node, {}, "")) {
      if (e.key == "columns") {
        ok = parse_columns(e, what, out.columns) && ok;
      } else if (e.key == "sum" || e.key == "product") {
        combines.push_back(e.key);
        out.combine = e.key;
        if (!e.value.IsSequence() || e.value.size() == 0) {
          error(value_at(e),
                "'" + e.key + "' in " + what + " expects a non-empty list of kernels, got " +
                    (e.value.IsSequence() ? std::string("an empty list") : describe(e.value)));
          ok = false;
          continue;
        }
        std::size_t index = 0;
        for (const auto& item : e.value) {
          const std::string part_path = path + "." + kernel_part_name(e.key, index++);
          const SourceLocation item_at = at(item).line ? at(item) : value_at(e);
          if (auto part = parse_kernel_node(item, item_at, part_path, depth + 1, whole))
            out.parts.push_back(std::move(*part));
        }
      }
    }
    if (combines.size() > 1) {
      error(node_at, what + " has both 'sum' and 'product'; nest one inside the other");
      whole = false;
      return std::nullopt;
    }
    if (combines.empty()) {  // a plugin on some columns
      auto plugin = parse_block(node, node_at, what, nullptr, nullptr, true);
      if (!plugin) whole = false;
      if (!plugin) return std::nullopt;
      out.plugin = std::move(*plugin);
    } else {
      for (const auto& e : entries(node, {}, ""))
        if (e.key != "columns" && e.key != out.combine) {
          error(e.at, "unknown key '" + printable(e.key) + "' in the " + out.combine + " " + what +
                          " (a " + out.combine + " takes its parts and 'columns')");
          ok = false;
        }
    }
    if (!ok) whole = false;
    if (!ok || (!out.combine.empty() && out.parts.empty())) return std::nullopt;
    return out;
  }

  /// `columns: [name, ...]`: distinct, non-empty input names.
  bool parse_columns(const Entry& e, const std::string& what,
                     std::vector<std::pair<std::string, SourceLocation>>& columns) {
    if (!e.value.IsSequence() || e.value.size() == 0) {
      error(value_at(e),
            "'columns' in " + what + " expects a non-empty list of input column names, got " +
                (e.value.IsSequence() ? std::string("an empty list") : describe(e.value)));
      return false;
    }
    bool ok = true;
    for (const auto& item : e.value) {
      const SourceLocation item_at = at(item).line ? at(item) : value_at(e);
      if (!item.IsScalar() || item.Scalar().empty()) {
        error(item_at, "'columns' in " + what + " expects column names, got " + describe(item));
        ok = false;
      } else if (std::any_of(columns.begin(), columns.end(),
                             [&](const auto& c) { return c.first == item.Scalar(); })) {
        error(item_at,
              "column '" + printable(item.Scalar()) + "' appears twice in " + what + ".columns");
        ok = false;
      } else {
        columns.emplace_back(item.Scalar(), item_at);
      }
    }
    return ok;
  }

  void parse_components(const Entry& components) {
    if (!expect_map(components, "components")) {
      spec_.broken_components = kComponentFamilies;
      return;
    }
    if (!components.value.IsMap()) return;
    std::vector<std::string> families;
    for (Family f : kComponentFamilies) families.push_back(to_string(f));
    for (const auto& e : entries(components.value, {}, "")) {
      const auto family = family_from_string(e.key);
      if (!family || *family == Family::engine) {
        error(e.at, "unknown component family '" + printable(e.key) + "'" +
                        (e.key == "engine" ? " (engines go in the top-level 'engines' list)"
                                           : suggestion(e.key, families)));
        continue;
      }
      const SourceLocation block_at = e.value.IsMap() ? at(e.value) : value_at(e);
      if (*family == Family::kernel && is_kernel_tree(e.value)) {
        // A broken tree keeps its good parts, so that resolution reports their problems too.
        bool whole = true;
        spec_.kernel_tree = parse_kernel_node(e.value, block_at, "kernel", 0, whole);
        if (!whole) spec_.broken_components.push_back(*family);
      } else if (auto spec =
                     parse_block(e.value, block_at, "components." + e.key, nullptr, nullptr)) {
        spec_.components[*family] = std::move(*spec);
      } else {
        spec_.broken_components.push_back(*family);
      }
    }
  }

  void parse_engines(const Entry& engines) {
    if (!engines.value.IsSequence() || engines.value.size() == 0) {
      error(value_at(engines), "'engines' expects a non-empty list of engines, got " +
                                   (engines.value.IsSequence() ? std::string("an empty list")
                                                               : describe(engines.value)));
      return;
    }
    std::vector<SourceLocation> name_positions;
    std::size_t index = 0;
    for (const auto& item : engines.value) {
      ++index;
      const SourceLocation item_at = at(item);
      std::string name;
      SourceLocation name_at;
      auto spec = parse_block(item, item_at, "engine " + std::to_string(index), &name, &name_at);
      if (!spec) continue;
      const bool named = !name.empty();
      if (!named) {
        name = spec->plugin;
        name_at = spec->at;
      }
      if (auto problem = name_problem(name, "engine name"); !problem.empty()) {
        error(name_at, problem + (named ? "" : "; give the engine a 'name'"));
        continue;
      }
      bool duplicate = false;
      for (std::size_t i = 0; i < spec_.engines.size() && !duplicate; ++i) {
        if (spec_.engines[i].name != name) continue;
        duplicate = true;
        error(name_at, "duplicate engine name '" + name + "' (first used at line " +
                           std::to_string(name_positions[i].line) + ")" +
                           (named ? "" : "; give each engine a distinct 'name'"));
      }
      if (duplicate) continue;
      spec_.engines.push_back({name, std::move(*spec)});
      name_positions.push_back(name_at);
    }
  }

  void parse_outputs(const Entry& outputs) {
    if (!expect_map(outputs, "outputs")) return;
    if (!outputs.value.IsMap()) return;
    for (const auto& e : entries(outputs.value, kOutputKeys, "unknown key '", " in outputs")) {
      const std::string what = "outputs." + e.key;
      if (e.key == "dir") {
        if (auto s = string_value(e, what)) {
          if (auto problem = outputs_dir_problem(*s); !problem.empty())
            error(value_at(e), problem);
          else
            spec_.outputs.dir = resolve_path(spec_.base_dir, *s);
        }
      } else if (e.key == "plots") {
        if (auto b = bool_value(e, what)) spec_.outputs.plots = *b;
      } else if (e.key == "tables") {
        if (auto b = bool_value(e, what)) spec_.outputs.tables = *b;
      } else if (e.key == "models") {
        if (auto b = bool_value(e, what)) spec_.outputs.models = *b;
      }
    }
  }

  /// `inducing: {count: M, method: greedy_variance, form: fitc, ...}` (quench/inducing_points.h).
  void parse_inducing(const Entry& inducing) {
    if (!inducing.value.IsMap()) {
      error(value_at(inducing),
            "'inducing' expects a mapping such as {count: 1000, method: greedy_variance, form: "
            "fitc}, got " +
                describe(inducing.value));
      return;
    }
    InducingSpec spec;
    bool have_count = false;
    const auto choice = [&](const Entry& e, const std::vector<std::string>& names,
                            const std::string& what) -> int {
      auto s = string_value(e, what);
      if (!s) return -1;
      for (std::size_t i = 0; i < names.size(); ++i)
        if (*s == names[i]) return static_cast<int>(i);
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      error(value_at(e), "'" + what + "' must be one of " + list + "; got '" + printable(*s) + "'" +
                             suggestion(*s, names));
      return -1;
    };
    for (const auto& e : entries(inducing.value, kInducingKeys, "unknown key '", " in inducing")) {
      const std::string what = "inducing." + e.key;
      if (e.key == "count" || e.key == "candidates" || e.key == "kmeans_iterations") {
        // A count that is given but not a whole number is reported as such, not as missing.
        have_count = have_count || e.key == "count";
        auto v = unsigned_value(e, what);
        if (!v) continue;
        if (e.key == "count") {
          if (*v == 0)
            error(value_at(e), "'inducing.count' must be >= 1, got 0");
          else if (*v > 10000000)
            error(value_at(e), "'inducing.count' must be <= 10000000, got " + e.value.Scalar());
          else
            spec.count = static_cast<Eigen::Index>(*v);
        } else if (e.key == "candidates") {
          spec.candidates = static_cast<Eigen::Index>(std::min<std::uint64_t>(*v, 1u << 30));
        } else if (*v < 1 || *v > 10000) {
          error(value_at(e), "'inducing.kmeans_iterations' must be between 1 and 10000, got " +
                                 e.value.Scalar());
        } else {
          spec.kmeans_iterations = static_cast<int>(*v);
        }
      } else if (e.key == "method") {
        const int i = choice(e, kInducingMethods, what);
        if (i >= 0) spec.method = static_cast<InducingMethod>(i);
      } else if (e.key == "form") {
        const int i = choice(e, kLowRankForms, what);
        if (i >= 0) spec.form = static_cast<LowRankForm>(i);
      } else if (e.key == "jitter") {
        if (auto x = real_value(e, what)) {
          if (!(*x >= 0 && *x <= 1e-2))
            error(value_at(e),
                  "'inducing.jitter' must be between 0 and 0.01 (relative to the mean prior "
                  "variance), got " +
                      e.value.Scalar());
          else
            spec.jitter = *x;
        }
      }
    }
    if (!have_count)
      error(inducing.at, "'inducing' needs 'count', the number of inducing inputs M");
    spec_.inducing = spec;
    spec_.inducing_at = inducing.at;
  }

  void parse_learn(const Entry& learn) {
    if (!learn.value.IsMap()) {
      error(value_at(learn),
            "'learn' expects a mapping (objective, parameters, ...), got " + describe(learn.value));
      return;
    }
    LearnSpec l;
    l.at = learn.at;
    l.objective_at = l.engine_at = l.optimizer_at = learn.at;
    bool have_parameters = false;
    for (const auto& e : entries(learn.value, kLearnKeys, "unknown key '", " in learn")) {
      const std::string what = "learn." + e.key;
      if (e.key == "objective" || e.key == "engine" || e.key == "optimizer") {
        auto s = string_value(e, what);
        if (!s) continue;
        if (s->empty()) {
          error(value_at(e), "'" + what + "' must not be empty");
          continue;
        }
        if (e.key == "objective") l.objective = *s, l.objective_at = value_at(e);
        if (e.key == "engine") l.engine = *s, l.engine_at = value_at(e);
        if (e.key == "optimizer") l.optimizer = *s, l.optimizer_at = value_at(e);
      } else if (e.key == "parameters") {
        have_parameters = true;
        if (e.value.IsScalar()) {
          l.parameters.emplace_back(e.value.Scalar(), value_at(e));
        } else if (!e.value.IsSequence() || e.value.size() == 0) {
          error(value_at(e),
                "'learn.parameters' expects a non-empty list such as "
                "[kernel.length_scales, likelihood.noise], got " +
                    describe(e.value));
        } else {
          for (const auto& item : e.value) {
            if (item.IsScalar()) {
              const auto earlier =
                  std::find_if(l.parameters.begin(), l.parameters.end(),
                               [&](const auto& p) { return p.first == item.Scalar(); });
              if (earlier == l.parameters.end())
                l.parameters.emplace_back(item.Scalar(), at(item));
              else
                error(at(item), "'learn.parameters' names '" + printable(item.Scalar()) +
                                    "' twice (first at line " +
                                    std::to_string(earlier->second.line) + ", column " +
                                    std::to_string(earlier->second.column) + ")");
            } else
              error(at(item),
                    "'learn.parameters' items must be names such as kernel.amplitude, "
                    "got " +
                        describe(item));
          }
        }
      } else if (e.key == "bounds") {
        if (!e.value.IsMap()) {
          error(value_at(e),
                "'learn.bounds' expects a mapping such as {kernel.amplitude: [0.01, "
                "100]}, got " +
                    describe(e.value));
          continue;
        }
        for (const auto& b : entries(e.value, {}, "")) {
          const std::string bwhat = "learn.bounds." + b.key;
          if (!b.value.IsSequence() || b.value.size() != 2) {
            error(value_at(b), "'" + bwhat + "' expects [lower, upper], got " + describe(b.value));
            continue;
          }
          auto lo = real_value({b.key, at(b.value[0]), b.value[0]}, bwhat + "[0]");
          auto hi = real_value({b.key, at(b.value[1]), b.value[1]}, bwhat + "[1]");
          if (!lo || !hi) continue;
          l.bounds[b.key] = {*lo, *hi};
          l.bounds_at[b.key] = b.at;
        }
      } else if (e.key == "restarts") {
        if (auto r = unsigned_value(e, what)) {
          if (*r > 1000)
            error(value_at(e), "'learn.restarts' must be <= 1000, got " + std::to_string(*r));
          else
            l.restarts = *r;
        }
      } else if (e.key == "restart_spread") {
        if (auto x = real_value(e, what)) {
          if (!(*x >= 1.0 && std::isfinite(*x)))
            error(value_at(e),
                  "'learn.restart_spread' must be a finite factor >= 1, got " + e.value.Scalar());
          else
            l.restart_spread = *x;
        }
      } else if (e.key == "stationarity") {
        if (auto x = real_value(e, what)) {
          if (!(*x > 0.0 && std::isfinite(*x)))
            error(value_at(e),
                  "'learn.stationarity' must be a finite number > 0, got " + e.value.Scalar());
          else
            l.stationarity = *x;
        }
      }
    }
    if (!have_parameters)
      error(learn.at,
            "'learn' needs 'parameters', the hyperparameters to learn, e.g. "
            "[kernel.length_scales, kernel.amplitude, likelihood.noise]");
    spec_.learn = std::move(l);
  }

  bool keep_going_;
  PipelineSpec spec_;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace

void sort_diagnostics(std::vector<Diagnostic>& diagnostics) {
  const auto before = [](const Diagnostic& a, const Diagnostic& b) {
    if (a.where.line != b.where.line) return a.where.line < b.where.line;
    return a.where.column < b.where.column;
  };
  std::stable_sort(diagnostics.begin(), diagnostics.end(), before);
  // A node shared through YAML aliases is checked once per place that uses it.
  std::vector<Diagnostic> distinct;
  for (auto& d : diagnostics) {
    bool repeat = false;  // among those at the same position, now the last ones
    for (auto e = distinct.rbegin(); e != distinct.rend() && !before(*e, d) && !repeat; ++e)
      repeat = e->where.file == d.where.file && e->message == d.message;
    if (!repeat) distinct.push_back(std::move(d));
  }
  diagnostics = std::move(distinct);
}

PipelineSpec parse_pipeline(const std::string& yaml, const std::string& file,
                            const std::string& base_dir, bool keep_going) {
  return Parser(file, base_dir, keep_going).parse(yaml);
}

}  // namespace quench
