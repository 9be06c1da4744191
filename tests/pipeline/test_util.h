// Helpers for the pipeline tests: the fixture registry and diagnostics of failed calls.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pipeline_spec.h"
#include "quench/errors.h"
#include "quench/registry.h"

namespace quench::testing {

/// The registry holding the fixture plugins (loaded once).
inline const Registry& fixtures() {
  static const Registry registry = [] {
    Registry r;
    r.load(QUENCH_PIPELINE_FIXTURES);
    return r;
  }();
  return registry;
}

/// Parses YAML as the pipeline file "test.yaml" in /base.
inline PipelineSpec parse(const std::string& yaml) {
  return parse_pipeline(yaml, "test.yaml", "/base");
}

/// Parses and resolves against the fixtures.
inline ResolvedPipeline resolve(const std::string& yaml) {
  return resolve_pipeline(parse(yaml), fixtures());
}

/// The diagnostics `f` throws as a ConfigError (fails the test if it throws none).
template <class F>
std::vector<Diagnostic> diagnostics(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "no ConfigError thrown";
  return {};
}

/// Diagnostics as "line:col: message" lines (the file name left out).
inline std::vector<std::string> lines(const std::vector<Diagnostic>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds)
    out.push_back(std::to_string(d.where.line) + ":" + std::to_string(d.where.column) + ": " +
                  d.message);
  return out;
}

template <class F>
std::vector<std::string> errors(F&& f) {
  return lines(diagnostics(std::forward<F>(f)));
}

}  // namespace quench::testing
