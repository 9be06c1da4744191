// Resolution of a parsed pipeline against the registry: plugins are looked up, their raw
// YAML parameters interpreted against each plugin's schema (a list on a scalar parameter is a
// sweep) and the components engines need are checked. Every problem is collected and thrown
// as one ConfigError, sorted by position.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "load_yaml.h"
#include "pipeline_spec.h"
#include "quench/inference_engine.h"
#include "quench/kernel_record.h"
#include "quench/registry.h"
#include "quench/registry_models.h"

namespace quench {

namespace {

std::string with_article(const std::string& word) {
  const bool vowel = !word.empty() && std::string("aeiou").find(word[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + word;
}

bool digits(const std::string& s, std::size_t& i) {
  const std::size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i > start;
}

/// YAML 1.2 core-schema integers: [-+]?[0-9]+.
bool is_integer(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  return digits(s, i) && i == s.size();
}

/// YAML 1.2 core-schema floats (and integers), including .inf and .nan.
std::optional<double> parse_real(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  const bool negative = !s.empty() && s[0] == '-';
  const std::string rest = s.substr(i);
  if (rest == ".inf" || rest == ".Inf" || rest == ".INF")
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  if (i == 0 && (s == ".nan" || s == ".NaN" || s == ".NAN"))
    return std::numeric_limits<double>::quiet_NaN();
  const bool whole = digits(s, i);
  bool fraction = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits(s, i);
  }
  if (!whole && !fraction) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!digits(s, i)) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  const char* first = s.data() + (s[0] == '+' ? 1 : 0);
  double x = 0;
  auto [end, ec] = std::from_chars(first, s.data() + s.size(), x);
  if (ec == std::errc::result_out_of_range) {
    // Overflow becomes infinity (then rejected as non-finite), underflow zero.
    const std::size_t e = s.find_first_of("eE");
    const bool underflow = e != std::string::npos && s[e + 1] == '-';
    x = underflow ? 0.0 : std::numeric_limits<double>::infinity();
    if (negative) x = -x;
  } else if (ec != std::errc() || end != s.data() + s.size()) {
    return std::nullopt;
  }
  return x;
}

class Resolver {
 public:
  Resolver(const PipelineSpec& spec, const Registry& registry)
      : spec_(spec), registry_(registry), diagnostics_(spec.diagnostics) {}

  ResolvedPipeline resolve(ResolvedTarget* target) {
    ResolvedPipeline out;
    for (const auto& [family, plugin] : spec_.components)
      if (auto r = resolve_plugin(family, plugin, to_string(family)))
        out.components[family] = std::move(*r);
    if (spec_.kernel_tree) out.kernel_tree = resolve_kernel(*spec_.kernel_tree);
    std::vector<const EngineSpec*> engine_specs;
    for (const auto& engine : spec_.engines) {
      auto r = resolve_plugin(Family::engine, engine.spec, engine.name);
      if (!r) continue;
      check_needs(engine, *r);
      check_inducing(engine, *r);
      check_class_kernels(engine, *r);
      out.engines.emplace_back(engine.name, std::move(*r));
      engine_specs.push_back(&engine);
    }
    check_run_count(out);
    out.target = resolve_target(out, engine_specs);
    if (target) *target = out.target;
    if (spec_.learn) out.learning = resolve_learning(*spec_.learn, out, engine_specs);
    if (!diagnostics_.empty()) {
      sort_diagnostics(diagnostics_);
      throw ConfigError(std::move(diagnostics_));
    }
    return out;
  }

 private:
  SourceLocation at(const YAML::Node& node, const SourceLocation& fallback) const {
    if (node.IsNull() || node.Mark().line < 0) return fallback;
    return yaml_location(spec_.file, node.Mark());
  }

  void error(SourceLocation where, std::string message) {
    diagnostics_.push_back({std::move(where), std::move(message)});
  }

  /// A run is one point of the components' sweeps with one point of an engine's sweeps: their
  /// number is refused above kMaxRuns before anything is expanded (a product of ten 10-value
  /// sweeps is 10^10 runs), at the longest sweep list.
  void check_run_count(const ResolvedPipeline& out) {
    const Sweep* longest = nullptr;
    const auto points = [&](const ResolvedPlugin& plugin) {
      double count = 1;
      for (const Sweep& s : plugin.sweeps) {
        count *= static_cast<double>(s.values.size());
        if (!longest || s.values.size() > longest->values.size()) longest = &s;
      }
      return count;
    };
    double component_points = 1, engine_points = 0;
    for (const auto& [family, plugin] : out.components) component_points *= points(plugin);
    for (const auto& [name, plugin] : out.engines) engine_points += points(plugin);
    const double runs = component_points * std::max(engine_points, 1.0);
    if (runs <= kMaxRuns) return;
    const auto whole = [](double x) {
      char text[32];
      std::snprintf(text, sizeof text, "%.0f", x);
      return std::string(text);
    };
    error(longest->at, "the sweeps ask for " + whole(runs) +
                           " runs (the product of the sweep lists' lengths, for each engine), "
                           "more than " +
                           whole(kMaxRuns) + "; sweep fewer values or split the pipeline");
  }

  /// Finds a plugin, reporting an unknown one (with suggestions from its family) at `where`.
  const PluginEntry* find(Family family, const std::string& name, const SourceLocation& where,
                          const std::string& context = {}) {
    if (const PluginEntry* entry = registry_.find(family, name)) return entry;
    const std::string f = to_string(family);
    const auto names = registry_.names(family);
    std::string message = "unknown " + f + " plugin '" + name + "'" + context;
    if (names.empty())
      message += " (no " + f + " plugins are loaded)";
    else
      message += suggestion(name, names);
    error(where, std::move(message));
    return nullptr;
  }

  std::optional<ResolvedPlugin> resolve_plugin(Family family, const PluginSpec& plugin,
                                               const std::string& sweep_prefix) {
    const PluginEntry* entry = find(family, plugin.plugin, plugin.at);
    if (!entry) return std::nullopt;
    ResolvedPlugin out;
    out.entry = entry;
    const ParamSchema& schema = entry->info->schema;
    const std::string label = std::string(to_string(family)) + " plugin '" + plugin.plugin + "'";
    const std::size_t errors_before = diagnostics_.size();

    // Parameters in file order, so sweeps keep the order they were written in.
    std::vector<std::pair<std::string, const RawParam*>> params;
    for (const auto& [name, raw] : plugin.params) params.emplace_back(name, &raw);
    std::stable_sort(params.begin(), params.end(), [](const auto& a, const auto& b) {
      if (a.second->at.line != b.second->at.line) return a.second->at.line < b.second->at.line;
      return a.second->at.column < b.second->at.column;
    });

    std::vector<std::string> known;
    for (const auto& s : schema.specs()) known.push_back(s.name);
    for (const auto& [name, raw] : params) {
      const ParamSpec* ps = schema.find(name);
      if (!ps) {
        error(raw->at, "unknown parameter '" + name + "' for " + label + suggestion(name, known));
        continue;
      }
      const std::string what = "parameter '" + name + "' of " + label;
      const YAML::Node& node = raw->node;
      const SourceLocation value_at = at(node, raw->at);
      const bool sweep =
          node.IsSequence() && (ps->type != ParamType::real_list ||
                                std::any_of(node.begin(), node.end(),
                                            [](const YAML::Node& n) { return n.IsSequence(); }));
      if (!sweep) {
        if (auto v = value(*ps, node, value_at, what)) out.fixed[name] = std::move(*v);
        continue;
      }
      if (node.size() == 0) {
        error(value_at, what + " has an empty sweep list");
        continue;
      }
      Sweep s{sweep_prefix + "." + name, name, {}, value_at};
      bool ok = true;
      for (const auto& item : node) {
        auto v = value(*ps, item, at(item, value_at), what);
        if (v) s.values.push_back(std::move(*v));
        ok = ok && v.has_value();
      }
      if (ok) out.sweeps.push_back(std::move(s));
    }
    const std::size_t errors_before_required = diagnostics_.size();
    for (const auto& s : schema.specs())
      if (s.required() && !plugin.params.count(s.name))
        error(plugin.at, "missing required parameter '" + s.name + "' for " + label);
    if (diagnostics_.size() == errors_before_required && errors_before == diagnostics_.size())
      try_construct(family, out, plugin.at, label);
    return out;
  }

  /// A composite kernel's node: its plugin parts resolved (not swept: learning and saved
  /// models see one kernel), and each sum or product built once, so that what only the
  /// parts know (e.g. noise in a product) is reported at the node.
  std::optional<ResolvedKernel> resolve_kernel(const KernelNode& node) {
    ResolvedKernel out;
    for (const auto& [name, where] : node.columns) out.columns.push_back(name);
    if (node.combine.empty()) {
      auto r = resolve_plugin(Family::kernel, node.plugin, node.path);
      if (!r) return std::nullopt;
      for (const Sweep& s : r->sweeps)
        error(node.plugin.params.at(s.param).at,
              "parameter '" + s.param + "' of " + node.path + " (" + node.plugin.plugin +
                  ") is a list of values, but parts of a composite kernel are not swept (learning "
                  "and "
                  "saved models see one kernel): give one value");
      if (!r->sweeps.empty()) return std::nullopt;
      out.plugin = std::move(*r);
      return out;
    }
    out.combine = node.combine;
    bool ok = true;
    for (const KernelNode& part : node.parts) {
      auto r = resolve_kernel(part);
      ok = ok && r.has_value();
      if (r) out.parts.push_back(std::move(*r));
    }
    if (!ok || std::ranges::count(spec_.broken_components, Family::kernel)) return std::nullopt;
    // The columns are checked against the data once it is loaded (kernel_diagnostics).
    ComponentRecord record = kernel_tree_record(out, std::nullopt);
    const auto without_columns = [](auto& self, ComponentRecord& r) -> void {
      r.columns.clear();
      for (ComponentRecord& part : r.parts) self(self, part);
    };
    without_columns(without_columns, record);
    try {
      build_kernel(record, RegistryComponentSource(registry_), {});
    } catch (const std::exception& e) {
      error(node.at, "components." + node.path + ": " + e.what());
      return std::nullopt;
    }
    return out;
  }

  static std::string with_label(const std::string& label, const std::string& message) {
    return message.find(label) != std::string::npos ? message : label + ": " + message;
  }

  /// Builds the plugin once per sweep value (the other sweeps at their first value), so that
  /// constraints only the plugin knows (e.g. parameters that exclude each other) and throwing
  /// factories are reported now, with a position, instead of after work has started.
  void try_construct(Family family, const ResolvedPlugin& plugin, const SourceLocation& where,
                     const std::string& label) {
    std::map<std::string, ParamValue> base = plugin.fixed;
    for (const auto& s : plugin.sweeps) base[s.param] = s.values.front();
    std::vector<std::map<std::string, ParamValue>> variants{base};
    for (const auto& s : plugin.sweeps)
      for (std::size_t k = 1; k < s.values.size(); ++k) {
        variants.push_back(base);
        variants.back()[s.param] = s.values[k];
      }
    for (const auto& values : variants) {
      try {
        registry_.create(family, plugin.entry->info->name,
                         Params(plugin.entry->info->schema, values));
      } catch (const ConfigError& e) {
        const auto& d = e.diagnostics();
        error(where, with_label(label, d.empty() ? std::string(e.what()) : d.front().message));
        return;
      } catch (const std::exception& e) {
        error(where, with_label(label, e.what()));
        return;
      }
    }
  }

  /// One value of a parameter, checked against its spec; reports problems at `where`.
  std::optional<ParamValue> value(const ParamSpec& spec, const YAML::Node& node,
                                  const SourceLocation& where, const std::string& what) {
    auto wrong_type = [&] {
      error(where, what + " expects " + to_string(spec.type) + ", got " + describe(node));
      return std::nullopt;
    };
    ParamValue v;
    switch (spec.type) {
      case ParamType::integer: {
        if (!is_plain(node) || !is_integer(node.Scalar())) return wrong_type();
        const std::string& s = node.Scalar();
        std::int64_t i = 0;
        const char* first = s.data() + (s[0] == '+' ? 1 : 0);
        if (std::from_chars(first, s.data() + s.size(), i).ec != std::errc()) {
          error(where, what + " is out of range: " + s);
          return std::nullopt;
        }
        v = i;
        break;
      }
      case ParamType::real: {
        if (!is_plain(node)) return wrong_type();
        auto x = parse_real(node.Scalar());
        if (!x) return wrong_type();
        v = *x;
        break;
      }
      case ParamType::boolean: {
        const std::string s = node.IsScalar() ? node.Scalar() : std::string();
        if (is_plain(node) && (s == "true" || s == "True" || s == "TRUE"))
          v = true;
        else if (is_plain(node) && (s == "false" || s == "False" || s == "FALSE"))
          v = false;
        else
          return wrong_type();
        break;
      }
      case ParamType::string:
      case ParamType::plugin:
        if (!node.IsScalar()) return wrong_type();
        v = node.Scalar();
        break;
      case ParamType::real_list: {
        if (!node.IsSequence()) return wrong_type();
        std::vector<double> xs;
        for (const auto& item : node) {
          auto x = is_plain(item) ? parse_real(item.Scalar()) : std::nullopt;
          if (!x) {
            error(at(item, where), what + " expects a list of reals, got item " + describe(item));
            return std::nullopt;
          }
          xs.push_back(*x);
        }
        v = std::move(xs);
        break;
      }
    }
    if (std::string why = check_value(spec, v); !why.empty()) {
      if (spec.type == ParamType::string && !spec.choices.empty())
        why += suggestion(std::get<std::string>(v), spec.choices);
      error(where, what + " " + why);
      return std::nullopt;
    }
    if (spec.type == ParamType::plugin) {
      const auto family = family_from_string(spec.plugin_family);
      if (family && !find(*family, std::get<std::string>(v), where, " (" + what + ")"))
        return std::nullopt;
    }
    return v;
  }

  /// The engines named by `resolved`'s engine-valued parameters (e.g. mc_bootstrap's inner
  /// engine): set, defaulted or swept, with the parameter's name; then, since a named engine
  /// runs with its default parameters, the engines its defaults name ("inner.inner": exact_loo
  /// over exact_loo reaches the inner exact_loo's default classifier), to any depth.
  std::vector<std::pair<const PluginEntry*, std::string>> inner_engines(
      const EngineSpec& engine, const ResolvedPlugin& resolved) const {
    std::vector<std::pair<const PluginEntry*, std::string>> found;
    const auto named = [&](const PluginEntry& entry, const EngineSpec* spec,
                           const ResolvedPlugin* set, const std::string& prefix) {
      std::vector<std::pair<const PluginEntry*, std::string>> direct;
      for (const auto& ps : entry.info->schema.specs()) {
        if (ps.type != ParamType::plugin || ps.plugin_family != to_string(Family::engine)) continue;
        std::vector<std::string> names;
        const bool fixed = set && set->fixed.count(ps.name);
        if (fixed)
          names.push_back(std::get<std::string>(set->fixed.at(ps.name)));
        else if (ps.default_value && !(spec && spec->spec.params.count(ps.name)))
          names.push_back(std::get<std::string>(*ps.default_value));
        if (set)
          for (const auto& s : set->sweeps)
            if (s.param == ps.name)
              for (const auto& v : s.values) names.push_back(std::get<std::string>(v));
        for (const auto& name : names)
          if (const PluginEntry* inner = registry_.find(Family::engine, name))
            direct.emplace_back(inner, prefix + ps.name);
      }
      return direct;
    };
    found = named(*resolved.entry, &engine, &resolved, "");
    // Breadth first; a chain of defaults deeper than the registry has engines is a cycle.
    const std::size_t limit = registry_.plugins().size();
    for (std::size_t i = 0; i < found.size() && found.size() <= limit; ++i)
      for (auto& deeper : named(*found[i].first, nullptr, nullptr, found[i].second + "."))
        found.push_back(std::move(deeper));
    return found;
  }

  /// Where an engine's named engine `param` ("inner", or "inner.inner" for one its default
  /// names) is set: the engine's own parameter, else the engine.
  static SourceLocation named_engine_at(const EngineSpec& engine, const std::string& param) {
    const auto it = engine.spec.params.find(param.substr(0, param.find('.')));
    return param.empty() || it == engine.spec.params.end() ? engine.spec.at : it->second.at;
  }

  /// Reports families an engine needs that the pipeline does not define, including those
  /// needed by engines it names through plugin parameters (e.g. an inner engine).
  void check_needs(const EngineSpec& engine, const ResolvedPlugin& resolved) {
    std::vector<std::pair<Family, std::string>> needs;  // (family, "" or " for ...")
    for (Family f : resolved.entry->info->needs) needs.emplace_back(f, "");
    for (const auto& [inner, param] : inner_engines(engine, resolved))
      for (Family f : inner->info->needs)
        needs.emplace_back(f, " (for " + param + " engine '" + inner->info->name + "')");
    std::vector<Family> reported;
    for (const auto& [family, why] : needs) {
      if (spec_.has(family) || std::ranges::count(spec_.broken_components, family) ||
          std::ranges::count(reported, family))
        continue;
      reported.push_back(family);
      const std::string f = to_string(family);
      error(engine.spec.at, "engine '" + engine.name + "' (" + engine.spec.plugin + ") needs " +
                                with_article(f) + why + "; add components." + f);
    }
  }

  /// With `inducing:`, every engine (and every engine it names) must run on the
  /// inducing-point prior; without it, none may need it (PluginInfo::inducing).
  void check_inducing(const EngineSpec& engine, const ResolvedPlugin& resolved) {
    std::vector<std::pair<const PluginEntry*, std::string>> all = {{resolved.entry, ""}};
    for (const auto& inner : inner_engines(engine, resolved)) all.push_back(inner);
    for (const auto& [entry, param] : all) {
      const std::string which = param.empty()
                                    ? "engine '" + engine.name + "' (" + entry->info->name + ")"
                                    : "engine '" + engine.name + "': its " + param + " engine '" +
                                          entry->info->name + "'";
      if (spec_.inducing && entry->info->inducing == InducingUse::none)
        error(named_engine_at(engine, param),
              which + " runs on the exact prior only, but the pipeline sets 'inducing' (line " +
                  std::to_string(spec_.inducing_at.line) +
                  "); use an engine that takes inducing points (quench plugins) or drop "
                  "'inducing'");
      else if (!spec_.inducing && entry->info->inducing == InducingUse::required)
        error(engine.spec.at, which +
                                  " needs inducing inputs; add e.g. 'inducing: {count: 500, "
                                  "method: greedy_variance}' to the pipeline");
    }
  }

  /// With a kernel per class (components.kernel a list), every engine (and every engine it
  /// names) must take one (PluginInfo::class_kernels), except the engines named below one that
  /// splits it (one_vs_rest hands each binary engine one class's kernel).
  void check_class_kernels(const EngineSpec& engine, const ResolvedPlugin& resolved) {
    if (!spec_.per_class_kernel()) return;
    std::vector<std::pair<const PluginEntry*, std::string>> all = {{resolved.entry, ""}};
    for (const auto& inner : inner_engines(engine, resolved)) all.push_back(inner);
    // The params whose every engine splits it (a swept inner of several engines shares one
    // param: below it, an engine is exempt only when all of them split).
    std::vector<std::string> splitting;
    for (const auto& [entry, param] : all) {
      const std::string& at = param;  // (a lambda cannot capture a binding)
      if (std::ranges::all_of(all, [&](const auto& other) {
            return other.second != at || other.first->info->class_kernels == ClassKernelUse::splits;
          }))
        splitting.push_back(param);
    }
    const auto below_a_split = [&](const std::string& param) {
      return std::ranges::any_of(splitting, [&](const std::string& s) {
        return !param.empty() && (s.empty() || param.compare(0, s.size() + 1, s + ".") == 0);
      });
    };
    for (const auto& [entry, param] : all)
      if (entry->info->class_kernels == ClassKernelUse::none && !below_a_split(param))
        error(named_engine_at(engine, param),
              (param.empty() ? "engine '" + engine.name + "' (" + entry->info->name + ")"
                             : "engine '" + engine.name + "': its " + param + " engine '" +
                                   entry->info->name + "'") +
                  " takes one kernel, but components.kernel is a list, a kernel per class (line " +
                  std::to_string(spec_.kernel_tree->at.line) + "); " +
                  engines_taking_class_kernels() + ", or give one kernel");
  }

  /// The engine plugins that take a kernel per class (for messages).
  std::string engines_taking_class_kernels() const {
    std::string names;
    for (const PluginEntry* entry : registry_.plugins())
      if (entry->info->family == Family::engine &&
          entry->info->class_kernels != ClassKernelUse::none)
        names += (names.empty() ? "" : ", ") + entry->info->name;
    return names.empty() ? "no loaded engine takes one" : "engines that do: " + names;
  }

  /// The likelihood as the pipeline builds it (each swept parameter at its first value), or
  /// null when there is none or it cannot be built (reported where it is resolved).
  std::shared_ptr<const Likelihood> likelihood_of(const ResolvedPipeline& out) const {
    const auto c = out.components.find(Family::likelihood);
    if (c == out.components.end()) return nullptr;
    std::map<std::string, ParamValue> values = c->second.fixed;
    for (const Sweep& s : c->second.sweeps) values[s.param] = s.values.front();
    try {
      return registry_.create_as<Likelihood>(Family::likelihood, c->second.entry->info->name,
                                             Params(c->second.entry->info->schema, values));
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  /// The engine plugins that fit a likelihood of `kind` (for messages).
  std::string engines_serving(TargetKind kind, const Likelihood& likelihood) const {
    std::string names;
    for (const PluginEntry* entry : registry_.plugins()) {
      const TargetUse& use = entry->info->targets;
      if (entry->info->family != Family::engine || !std::ranges::count(use.likelihood, kind) ||
          (use.closed_form_gaussian && !likelihood.gaussian_noise_variance()))
        continue;
      names += (names.empty() ? "" : ", ") + entry->info->name;
    }
    return names.empty() ? "none is loaded" : "engines that do: " + names;
  }

  static std::string kinds_text(const std::vector<TargetKind>& kinds) {
    std::string text;
    for (std::size_t i = 0; i < kinds.size(); ++i)
      text += std::string(i == 0                  ? ""
                          : i + 1 == kinds.size() ? " and "
                                                  : ", ") +
              to_string(kinds[i]);
    return text;
  }

  /// How the data's target is read (ResolvedTarget), and what does not fit: a likelihood that
  /// declares no kind, an engine (or one it names) that cannot fit the likelihood, engines that
  /// read the target as different kinds.
  ResolvedTarget resolve_target(const ResolvedPipeline& out,
                                const std::vector<const EngineSpec*>& engine_specs) {
    ResolvedTarget target;
    const std::shared_ptr<const Likelihood> likelihood = likelihood_of(out);
    std::optional<TargetKind> kind;
    std::string likelihood_name;
    if (likelihood) {
      const PluginSpec& spec = spec_.components.at(Family::likelihood);
      likelihood_name = "likelihood '" + spec.plugin + "'";
      kind = likelihood->target_kind();
      if (!kind)
        error(spec.at, "likelihood plugin '" + spec.plugin +
                           "' declares no target kind (Likelihood::target_kind: real, count, "
                           "binary, successes or classes), so no engine can read the data for it");
    }
    std::optional<std::pair<TargetKind, std::string>> reading;  // the first engine's, and whose
    for (std::size_t e = 0; e < out.engines.size(); ++e) {
      const auto& [name, resolved] = out.engines[e];
      const EngineSpec& engine = *engine_specs[e];
      std::vector<std::pair<const PluginEntry*, std::string>> all = {{resolved.entry, ""}};
      for (const auto& inner : inner_engines(engine, resolved)) all.push_back(inner);
      // An engine that reads the target itself hands its own problems to the engines it names
      // and to those they name ("inner.inner" below "inner" and below the engine itself).
      const PluginEntry& engine_entry = *resolved.entry;  // (a lambda cannot capture a binding)
      const auto handed = [&](const std::string& param) {
        if (param.empty()) return false;
        if (engine_entry.info->targets.data) return true;
        return std::ranges::any_of(all, [&](const auto& outer) {
          const std::string& p = outer.second;
          return !p.empty() && param.compare(0, p.size() + 1, p + ".") == 0 &&
                 outer.first->info->targets.data.has_value();
        });
      };
      for (const auto& [entry, param] : all) {
        const PluginInfo& info = *entry->info;
        const TargetUse& use = info.targets;
        const std::string which =
            param.empty() ? "engine '" + name + "' (" + info.name + ")"
                          : "engine '" + name + "': its " + param + " engine '" + info.name + "'";
        const SourceLocation where = named_engine_at(engine, param);
        if (kind && !use.likelihood.empty() && !std::ranges::count(use.likelihood, *kind))
          error(where, which + " cannot fit the " + to_string(*kind) + " target of " +
                           likelihood_name + "; it fits " + kinds_text(use.likelihood) +
                           " targets (" + engines_serving(*kind, *likelihood) + ")");
        else if (kind && use.closed_form_gaussian && !likelihood->gaussian_noise_variance())
          error(where, which + " needs a Gaussian likelihood (its algebra is in closed form); " +
                           likelihood_name + " is not one (" + engines_serving(*kind, *likelihood) +
                           ")");
        if (handed(param)) {
          // It is handed the likelihood's problems by the engine that names it.
          if (use.data && kind && *use.data != *kind)
            error(where, which + " reads the target as " + to_string(*use.data) + ", but engine '" +
                             name + "' hands it " + to_string(*kind) + " problems");
          continue;
        }
        // What it reads the target as: its own kind, else its likelihood's; nothing else.
        if (!use.data && !(kind && !use.likelihood.empty())) continue;
        const TargetKind reads = use.data ? *use.data : *kind;
        const std::string who = use.data ? which : likelihood_name;
        if (!reading) {
          reading.emplace(reads, who);
        } else if (reading->first != reads) {
          error(where, which + " reads the target as " + to_string(reads) + " but " +
                           reading->second + " as " + to_string(reading->first) +
                           "; run them in separate pipelines");
        }
      }
    }
    if (reading) {
      target.kind = reading->first;
      target.reader = reading->second;
      if (kind && *kind == target.kind) target.size_column = likelihood->size_column();
    }
    return target;
  }

  /// `learn:`: the optimizer plugin, the engine offering the objective (a pipeline engine by
  /// name, else an engine plugin; by default the first pipeline engine offering it, else an
  /// engine a pipeline engine names, else a loaded engine that fits the likelihood, those with
  /// closed-form Gaussian algebra first), the objective among
  /// those it offers, and the owners of the parameters. Names of kernel and likelihood
  /// hyperparameters are checked against the prepared components when the data is loaded.
  std::optional<ResolvedLearning> resolve_learning(
      const LearnSpec& l, const ResolvedPipeline& out,
      const std::vector<const EngineSpec*>& engine_specs) {
    ResolvedLearning learning;
    learning.optimizer = find(Family::optimizer, l.optimizer, l.optimizer_at, " (learn.optimizer)");
    for (const auto& [key, where] : l.parameters) {
      const auto dot = key.find('.');
      const std::string owner = key.substr(0, dot);
      const auto family = family_from_string(owner);
      if (dot == std::string::npos || (owner != "kernel" && owner != "likelihood")) {
        error(where, "learn.parameters: '" + key +
                         "' must name kernel.<parameter> or likelihood.<parameter>" +
                         suggestion(key, {"kernel." + key, "likelihood." + key}));
      } else if (!spec_.has(*family)) {
        error(where, "learn.parameters: '" + key + "' names the " + owner +
                         ", but the pipeline has no components." + owner);
      }
    }
    // Learning runs once per pipeline run, so the components it tunes must not be swept.
    for (Family f : {Family::kernel, Family::likelihood}) {
      const auto c = out.components.find(f);
      if (c != out.components.end() && !c->second.sweeps.empty())
        error(l.at, std::string("learn: the ") + to_string(f) + " has swept parameters ('" +
                        c->second.sweeps.front().key +
                        "'); learning runs once per pipeline run, so learn or sweep");
      if (!spec_.has(f)) error(l.at, std::string("learn needs components.") + to_string(f));
    }
    // The engine offering the objective.
    const auto offers = [&](const PluginEntry* entry,
                            const std::map<std::string, ParamValue>& fixed) {
      try {
        const auto engine = registry_.create_as<InferenceEngine>(
            Family::engine, entry->info->name, Params(entry->info->schema, fixed));
        return engine->hyperparameter_objectives(
            registry_engines(registry_), spec_.inducing ? PriorKind::inducing : PriorKind::exact);
      } catch (const std::exception&) {
        return std::vector<std::string>{};  // reported where the engine is resolved
      }
    };
    std::vector<std::string> offered;
    if (!l.engine.empty()) {
      const auto named = std::find_if(out.engines.begin(), out.engines.end(),
                                      [&](const auto& e) { return e.first == l.engine; });
      if (named != out.engines.end()) {
        learning.engine = named->second;
      } else if (const PluginEntry* entry = find(Family::engine, l.engine, l.engine_at,
                                                 " (learn.engine: an engine of the pipeline or "
                                                 "an engine plugin)")) {
        learning.engine.entry = entry;
      } else {
        return std::nullopt;
      }
      learning.engine_name = l.engine;
      offered = offers(learning.engine.entry, learning.engine.fixed);
      if (offered.empty()) {
        error(l.engine_at, "learn.engine '" + l.engine + "' (" + learning.engine.entry->info->name +
                               ") offers no hyperparameter objective");
        return std::nullopt;
      }
    } else {
      // The first engine offering the objective, else (for the message) the first offering any.
      for (bool any : {false, true}) {
        for (const auto& [name, plugin] : out.engines) {
          offered = offers(plugin.entry, plugin.fixed);
          if (any ? !offered.empty() : std::count(offered.begin(), offered.end(), l.objective)) {
            learning.engine_name = name;
            learning.engine = plugin;
            break;
          }
        }
        if (learning.engine.entry) break;
      }
      if (!learning.engine.entry) {
        // An engine a pipeline engine names (mc_bootstrap's inner), else a loaded engine that
        // fits the likelihood on the pipeline's prior, closed-form Gaussian algebra first.
        std::vector<const PluginEntry*> candidates;
        for (std::size_t e = 0; e < out.engines.size(); ++e)
          for (const auto& inner : inner_engines(*engine_specs[e], out.engines[e].second))
            candidates.push_back(inner.first);
        const std::shared_ptr<const Likelihood> likelihood = likelihood_of(out);
        const std::optional<TargetKind> kind =
            likelihood ? likelihood->target_kind() : std::nullopt;
        for (const bool closed_form : {true, false})
          for (const PluginEntry* entry : registry_.plugins()) {
            const PluginInfo& info = *entry->info;
            if (info.family != Family::engine || !kind ||
                !std::ranges::count(info.targets.likelihood, *kind) ||
                info.targets.closed_form_gaussian != closed_form ||
                (closed_form && !likelihood->gaussian_noise_variance()) ||
                info.inducing == (spec_.inducing ? InducingUse::none : InducingUse::required) ||
                (spec_.per_class_kernel() && info.class_kernels == ClassKernelUse::none))
              continue;
            candidates.push_back(entry);
          }
        for (const PluginEntry* entry : candidates) {
          offered = offers(entry, {});
          if (!std::count(offered.begin(), offered.end(), l.objective)) continue;
          learning.engine.entry = entry;
          learning.engine_name = entry->info->name;
          break;
        }
        if (!learning.engine.entry) {
          error(l.at,
                "learn: no engine of the pipeline, nor any loaded engine that fits its "
                "likelihood, offers the objective '" +
                    l.objective +
                    "'; name one in "
                    "learn.engine");
          return std::nullopt;
        }
      }
    }
    if (learning.engine.entry && !learning.engine.sweeps.empty())
      error(l.engine_at, "learn.engine '" + learning.engine_name +
                             "' has swept parameters; name an engine with fixed parameters");
    if (!std::count(offered.begin(), offered.end(), l.objective)) {
      std::string list;
      for (const auto& o : offered) list += (list.empty() ? "'" : ", '") + o + "'";
      error(l.objective_at, "learn.objective '" + l.objective + "' is not offered by engine '" +
                                learning.engine_name + "'" +
                                (spec_.inducing ? " on the inducing-point prior" : "") +
                                " (it offers " + list + ")" + suggestion(l.objective, offered));
    }
    if (learning.engine.entry && spec_.inducing &&
        learning.engine.entry->info->inducing == InducingUse::none)
      error(l.engine_at.line ? l.engine_at : l.at,
            "learn.engine '" + learning.engine_name + "' (" + learning.engine.entry->info->name +
                ") runs on the exact prior only, but the pipeline sets 'inducing': learning "
                "would cost O(N^3); learn with an engine that takes inducing points (e.g. "
                "sparse_gp_regression)");
    if (learning.engine.entry && spec_.per_class_kernel() &&
        learning.engine.entry->info->class_kernels == ClassKernelUse::none)
      error(l.engine_at.line ? l.engine_at : l.at,
            "learn.engine '" + learning.engine_name + "' (" + learning.engine.entry->info->name +
                ") takes one kernel, but components.kernel is a list, a kernel per class");
    if (!learning.optimizer) return std::nullopt;
    return learning;
  }

  const PipelineSpec& spec_;
  const Registry& registry_;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace

ResolvedPipeline resolve_pipeline(const PipelineSpec& spec, const Registry& registry,
                                  ResolvedTarget* target) {
  return Resolver(spec, registry).resolve(target);
}

}  // namespace quench
