// The plugin registry: finds plugin libraries, checks each file before loading it (ELF
// header and program headers), loads them with Boost.DLL, checks their API version and ABI
// fingerprint, and never unloads them (RTLD_NODELETE: a library stays mapped until exit).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quench/component.h"
#include "quench/export.h"
#include "quench/parameters.h"
#include "quench/plugin.h"

namespace quench {

/// A library that was refused, and why (one line).
struct LoadFailure {
  std::string path;
  std::string reason;
  std::string str() const { return path + ": " + reason; }
};

/// A plugin found in a loaded library.
struct PluginEntry {
  const PluginInfo* info = nullptr;  ///< owned by the library's descriptor
  std::string library_path;
  std::string library_name;
  std::string library_version;
  std::shared_ptr<void> library;  ///< keeps the shared library loaded
};

/// Where plugins are looked for, highest priority first: --plugin-path entries, then
/// QUENCH_PLUGIN_PATH (colon-separated), then `pipeline`, then the build or install plugin
/// directory. A plugin name found twice is taken from the first place. Loading a library runs
/// its code: pass a pipeline's plugin_paths as `pipeline` only when the user trusts that
/// pipeline (the quench CLI: `run --allow-pipeline-plugins`; never `validate`).
QUENCH_API std::vector<std::string> plugin_search_path(const std::vector<std::string>& command_line,
                                                       const std::vector<std::string>& pipeline);

/// The plugin directory of this build or installation (next to the framework library).
QUENCH_API std::string default_plugin_directory();

class QUENCH_API Registry {
 public:
  Registry();
  ~Registry();
  Registry(Registry&&) noexcept;
  Registry& operator=(Registry&&) noexcept;

  /// A registry loaded from plugin_search_path(command_line, pipeline). `pipeline` is empty
  /// unless the caller trusts the pipeline that names those directories (see above).
  static Registry discover(const std::vector<std::string>& command_line = {},
                           const std::vector<std::string>& pipeline = {});

  /// Loads every shared library in a directory (or the one file named). Libraries that are
  /// refused are recorded in failures(); the others still load. Missing directories are
  /// recorded too.
  void load(const std::string& path);
  /// Loads one library; returns false (and records why) when it is refused: a file that is
  /// not a 64-bit ELF shared library of this host's byte order and machine, or whose program
  /// headers reach beyond its end (checked before dlopen), a missing descriptor, another API
  /// version, descriptor size or ABI fingerprint, an invalid plugin list.
  bool load_library(const std::string& file);

  const std::vector<LoadFailure>& failures() const;
  /// Non-fatal notes, e.g. a plugin shadowed by one of the same name found earlier.
  const std::vector<std::string>& warnings() const;

  const PluginEntry* find(Family family, const std::string& name) const;
  std::vector<const PluginEntry*> plugins() const;  ///< sorted by family, then name
  std::vector<std::string> names(Family family) const;

  /// Builds a plugin. Throws ConfigError for an unknown plugin or invalid parameters and
  /// PluginError (naming the library) when the factory throws or returns nothing.
  std::shared_ptr<Component> create(Family family, const std::string& name,
                                    const Params& params) const;

  template <class T>
  std::shared_ptr<T> create_as(Family family, const std::string& name, const Params& params) const {
    auto object = create(family, name, params);
    auto typed = std::dynamic_pointer_cast<T>(object);
    if (!typed) throw_wrong_type(family, name);
    return typed;
  }

 private:
  [[noreturn]] void throw_wrong_type(Family family, const std::string& name) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The text of `quench plugins`: every plugin with its parameters, then refused libraries. With
/// `filter`, only the plugins of that family ("kernel", "likelihood", "resampler", "engine",
/// "optimizer") or of that name (in any family); ConfigError when none matches.
QUENCH_API std::string describe_plugins(const Registry& registry, const std::string& filter = "");

}  // namespace quench
