// Internal: YAML text to a node tree that every later walk can trust. yaml-cpp builds a graph
// in which an alias is the node it names, so `a: &x [1, *x]` becomes a list holding itself;
// load_yaml refuses such inputs before any code walks the tree.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "quench/errors.h"

namespace quench {

/// The position of a yaml-cpp mark in `file` (1-based; line 0 when the mark has none).
SourceLocation yaml_location(const std::string& file, const YAML::Mark& mark);

/// The first document of `yaml` (file names it in messages). Throws one ConfigError with
/// every problem of the text itself, each at its position: a syntax error (yaml-cpp stops
/// there), nesting beyond yaml-cpp's depth guard, an alias naming a list or mapping that
/// contains it, a quoted string without its closing quote. The tree returned is acyclic and
/// at most yaml-cpp's guard (500 levels) deep, though aliases may share nodes between places.
YAML::Node load_yaml(const std::string& yaml, const std::string& file);

/// Whether `node` is a plain (unquoted, untagged) scalar: the only ones read as numbers,
/// booleans or merge keys.
inline bool is_plain(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

}  // namespace quench
