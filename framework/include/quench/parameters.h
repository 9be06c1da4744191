// Declared parameters of a plugin (its schema) and the validated values it is built from.
// Schemas drive generic validation of pipeline files: unknown keys, types, ranges, choices.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "quench/export.h"

namespace quench {

enum class ParamType {
  real,       ///< double
  integer,    ///< std::int64_t
  boolean,    ///< bool
  string,     ///< std::string, optionally restricted to `choices`
  real_list,  ///< std::vector<double>
  plugin,     ///< std::string naming another plugin of family `plugin_family`
};
QUENCH_API const char* to_string(ParamType type);

using ParamValue = std::variant<double, std::int64_t, bool, std::string, std::vector<double>>;

/// Renders a value as it would be written in YAML ("0.5", "[1, 2]", "true", "name").
QUENCH_API std::string to_string(const ParamValue& value);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::real;
  std::string doc;                                        ///< one line
  std::optional<ParamValue> default_value;                ///< absent: the parameter is required
  double min = -std::numeric_limits<double>::infinity();  ///< inclusive, real/integer/list items
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  ///< for string parameters; empty = any string
  std::string plugin_family;         ///< for plugin parameters: "engine", "kernel", ...
  bool optional = false;             ///< no default, but may be left out (Params::has is false)

  bool required() const { return !default_value && !optional; }
};

/// Fluent builder for a schema, so plugins declare parameters in one readable block.
class QUENCH_API ParamSchema {
 public:
  ParamSchema& real(std::string name, std::string doc, std::optional<double> def = std::nullopt,
                    double min = -std::numeric_limits<double>::infinity(),
                    double max = std::numeric_limits<double>::infinity());
  ParamSchema& integer(std::string name, std::string doc, std::optional<std::int64_t> def,
                       std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t max = std::numeric_limits<std::int64_t>::max());
  ParamSchema& boolean(std::string name, std::string doc, bool def);
  ParamSchema& string(std::string name, std::string doc, std::optional<std::string> def,
                      std::vector<std::string> choices = {});
  ParamSchema& real_list(std::string name, std::string doc,
                         std::optional<std::vector<double>> def = std::nullopt,
                         double min = -std::numeric_limits<double>::infinity(),
                         double max = std::numeric_limits<double>::infinity());
  ParamSchema& plugin(std::string name, std::string family, std::string doc,
                      std::optional<std::string> def = std::nullopt);
  /// Marks the last declared parameter as optional (no default, may be absent).
  ParamSchema& optional();

  const std::vector<ParamSpec>& specs() const { return specs_; }
  const ParamSpec* find(const std::string& name) const;

 private:
  std::vector<ParamSpec> specs_;
};

/// Checks one value against its spec; returns an empty string when valid, else the reason
/// ("must be >= 0, got -1"). Integers are accepted where reals are expected.
QUENCH_API std::string check_value(const ParamSpec& spec, const ParamValue& value);

/// Validated parameter values. Every declared parameter with a default is present.
class QUENCH_API Params {
 public:
  Params() = default;
  /// Fills defaults from the schema and validates `values`; throws ConfigError on the first
  /// problem (pipelines validate earlier, with positions; this guards programmatic use).
  Params(const ParamSchema& schema, std::map<std::string, ParamValue> values);

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  double real(const std::string& name) const;
  std::int64_t integer(const std::string& name) const;
  bool boolean(const std::string& name) const;
  const std::string& string(const std::string& name) const;
  const std::vector<double>& real_list(const std::string& name) const;
  const std::map<std::string, ParamValue>& values() const { return values_; }

 private:
  const ParamValue& at(const std::string& name) const;
  std::map<std::string, ParamValue> values_;
};

}  // namespace quench
