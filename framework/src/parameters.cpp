#include "quench/parameters.h"

#include <cmath>
#include <sstream>

#include "quench/errors.h"

namespace quench {

const char* to_string(ParamType type) {
  switch (type) {
    case ParamType::real:
      return "real";
    case ParamType::integer:
      return "integer";
    case ParamType::boolean:
      return "boolean";
    case ParamType::string:
      return "string";
    case ParamType::real_list:
      return "list of reals";
    case ParamType::plugin:
      return "plugin name";
  }
  return "?";
}

namespace {
std::string format_real(double x) {
  std::ostringstream out;
  out.precision(10);
  out << x;
  return out.str();
}
}  // namespace

std::string to_string(const ParamValue& value) {
  struct Visitor {
    std::string operator()(double x) const { return format_real(x); }
    std::string operator()(std::int64_t x) const { return std::to_string(x); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(const std::string& x) const { return x; }
    std::string operator()(const std::vector<double>& xs) const {
      std::string text = "[";
      for (std::size_t i = 0; i < xs.size(); ++i) text += (i ? ", " : "") + format_real(xs[i]);
      return text + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

namespace {
ParamSpec make_spec(std::string name, ParamType type, std::string doc) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.doc = std::move(doc);
  return spec;
}
}  // namespace

ParamSchema& ParamSchema::real(std::string name, std::string doc, std::optional<double> def,
                               double min, double max) {
  ParamSpec spec = make_spec(std::move(name), ParamType::real, std::move(doc));
  if (def) spec.default_value = *def;
  spec.min = min;
  spec.max = max;
  specs_.push_back(std::move(spec));
  return *this;
}

ParamSchema& ParamSchema::integer(std::string name, std::string doc,
                                  std::optional<std::int64_t> def, std::int64_t min,
                                  std::int64_t max) {
  ParamSpec spec = make_spec(std::move(name), ParamType::integer, std::move(doc));
  if (def) spec.default_value = *def;
  spec.min = static_cast<double>(min);
  spec.max = static_cast<double>(max);
  specs_.push_back(std::move(spec));
  return *this;
}

ParamSchema& ParamSchema::boolean(std::string name, std::string doc, bool def) {
  ParamSpec spec = make_spec(std::move(name), ParamType::boolean, std::move(doc));
  spec.default_value = def;
  specs_.push_back(std::move(spec));
  return *this;
}

ParamSchema& ParamSchema::string(std::string name, std::string doc, std::optional<std::string> def,
                                 std::vector<std::string> choices) {
  ParamSpec spec = make_spec(std::move(name), ParamType::string, std::move(doc));
  if (def) spec.default_value = *def;
  spec.choices = std::move(choices);
  specs_.push_back(std::move(spec));
  return *this;
}

ParamSchema& ParamSchema::real_list(std::string name, std::string doc,
                                    std::optional<std::vector<double>> def, double min,
                                    double max) {
  ParamSpec spec = make_spec(std::move(name), ParamType::real_list, std::move(doc));
  if (def) spec.default_value = *def;
  spec.min = min;
  spec.max = max;
  specs_.push_back(std::move(spec));
  return *this;
}

ParamSchema& ParamSchema::plugin(std::string name, std::string family, std::string doc,
                                 std::optional<std::string> def) {
  ParamSpec spec = make_spec(std::move(name), ParamType::plugin, std::move(doc));
  if (def) spec.default_value = *def;
  spec.plugin_family = std::move(family);
  specs_.push_back(std::move(spec));
  return *this;
}

ParamSchema& ParamSchema::optional() {
  if (!specs_.empty()) specs_.back().optional = true;
  return *this;
}

const ParamSpec* ParamSchema::find(const std::string& name) const {
  for (const auto& spec : specs_)
    if (spec.name == name) return &spec;
  return nullptr;
}

namespace {
std::string check_range(const ParamSpec& spec, double x) {
  if (!std::isfinite(x)) return "must be finite, got " + format_real(x);
  if (x < spec.min) return "must be >= " + format_real(spec.min) + ", got " + format_real(x);
  if (x > spec.max) return "must be <= " + format_real(spec.max) + ", got " + format_real(x);
  return {};
}
}  // namespace

std::string check_value(const ParamSpec& spec, const ParamValue& value) {
  const std::string expected = std::string("expected ") + to_string(spec.type);
  switch (spec.type) {
    case ParamType::real:
      if (auto* x = std::get_if<double>(&value)) return check_range(spec, *x);
      if (auto* i = std::get_if<std::int64_t>(&value))
        return check_range(spec, static_cast<double>(*i));
      return expected + ", got '" + to_string(value) + "'";
    case ParamType::integer:
      if (auto* i = std::get_if<std::int64_t>(&value))
        return check_range(spec, static_cast<double>(*i));
      return expected + ", got '" + to_string(value) + "'";
    case ParamType::boolean:
      if (std::holds_alternative<bool>(value)) return {};
      return expected + " (true or false), got '" + to_string(value) + "'";
    case ParamType::string:
    case ParamType::plugin: {
      auto* s = std::get_if<std::string>(&value);
      if (!s) return expected + ", got '" + to_string(value) + "'";
      if (spec.choices.empty()) return {};
      for (const auto& c : spec.choices)
        if (c == *s) return {};
      std::string text = "must be one of";
      for (std::size_t i = 0; i < spec.choices.size(); ++i)
        text += (i ? ", " : " ") + spec.choices[i];
      return text + "; got '" + *s + "'";
    }
    case ParamType::real_list: {
      auto* xs = std::get_if<std::vector<double>>(&value);
      if (!xs) return expected + ", got '" + to_string(value) + "'";
      for (std::size_t k = 0; k < xs->size(); ++k) {
        auto why = check_range(spec, (*xs)[k]);
        if (!why.empty()) return "item " + std::to_string(k + 1) + " " + why;
      }
      return {};
    }
  }
  return {};
}

Params::Params(const ParamSchema& schema, std::map<std::string, ParamValue> values) {
  for (auto& [name, value] : values) {
    const ParamSpec* spec = schema.find(name);
    if (!spec) throw ConfigError({}, "unknown parameter '" + name + "'");
    auto why = check_value(*spec, value);
    if (!why.empty()) throw ConfigError({}, "parameter '" + name + "' " + why);
    // Normalise integers given for reals so getters see one type.
    if (spec->type == ParamType::real)
      if (auto* i = std::get_if<std::int64_t>(&value)) value = static_cast<double>(*i);
    values_[name] = value;
  }
  for (const auto& spec : schema.specs()) {
    if (values_.count(spec.name)) continue;
    if (spec.default_value) {
      values_[spec.name] = *spec.default_value;
    } else if (!spec.optional) {
      throw ConfigError({}, "missing required parameter '" + spec.name + "'");
    }
  }
}

const ParamValue& Params::at(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw ConfigError({}, "parameter '" + name + "' is not set");
  return it->second;
}

double Params::real(const std::string& name) const {
  const auto& v = at(name);
  if (auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}
std::int64_t Params::integer(const std::string& name) const {
  return std::get<std::int64_t>(at(name));
}
bool Params::boolean(const std::string& name) const { return std::get<bool>(at(name)); }
const std::string& Params::string(const std::string& name) const {
  return std::get<std::string>(at(name));
}
const std::vector<double>& Params::real_list(const std::string& name) const {
  return std::get<std::vector<double>>(at(name));
}

}  // namespace quench
