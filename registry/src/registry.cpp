// The plugin registry: loading of plugin libraries with Boost.DLL, validation of their
// descriptors, plugin lookup and construction.
#include "quench/registry.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include <boost/dll/shared_library.hpp>

#include "abi_check.h"
#include "elf_check.h"
#include "quench/errors.h"
#include "quench/inference_engine.h"
#include "quench/kernel.h"
#include "quench/likelihood.h"
#include "quench/optimizer.h"
#include "quench/resampler.h"

#ifndef QUENCH_PLUGIN_RELATIVE_DIR
#define QUENCH_PLUGIN_RELATIVE_DIR "quench/plugins"
#endif

namespace quench {
namespace {

namespace fs = std::filesystem;
using Library = boost::dll::shared_library;

constexpr Family kFamilies[] = {Family::kernel, Family::likelihood, Family::resampler,
                                Family::optimizer, Family::engine};

bool valid_family(Family family) {
  for (Family f : kFamilies)
    if (f == family) return true;
  return false;
}

bool has_library_suffix(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".so" || ext == ".dylib" || ext == ".dll";
}

// Whether an object implements the interface of its family.
bool implements(Family family, const Component& object) {
  switch (family) {
    case Family::kernel:
      return dynamic_cast<const Kernel*>(&object) != nullptr;
    case Family::likelihood:
      return dynamic_cast<const Likelihood*>(&object) != nullptr;
    case Family::resampler:
      return dynamic_cast<const Resampler*>(&object) != nullptr;
    case Family::optimizer:
      return dynamic_cast<const Optimizer*>(&object) != nullptr;
    case Family::engine:
      return dynamic_cast<const InferenceEngine*>(&object) != nullptr;
  }
  return false;
}

// Failure reasons and warnings are single lines.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

// The loader's own reason from a Boost.DLL load error: the dlerror() text without the path
// prefix (the failure line names the file already).
std::string loader_reason(const std::string& what, const std::string& loaded_path) {
  std::string text = what;
  const std::string marker = "dlerror system message: ";
  if (auto pos = text.find(marker); pos != std::string::npos) {
    text = text.substr(pos + marker.size());
    if (auto close = text.rfind(')'); close != std::string::npos) text.erase(close);
  }
  const std::string prefix = loaded_path + ": ";
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  return text;
}

std::string plugin_label(Family family, const std::string& name) {
  return std::string(to_string(family)) + " plugin '" + name + "'";
}

// A key to recognise the same file or directory reached through different spellings.
std::string identity(const std::string& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return fs::path(path).lexically_normal().string();
  return canonical.string();
}

// Rethrows a ConfigError with the plugin named in each diagnostic.
[[noreturn]] void rethrow_config(const ConfigError& error, const std::string& label) {
  std::vector<Diagnostic> diagnostics = error.diagnostics();
  for (auto& d : diagnostics) d.message = label + ": " + d.message;
  throw ConfigError(std::move(diagnostics));
}

// Anchors dladdr() in this library.
const int kAnchor = 0;

}  // namespace

struct Registry::Impl {
  std::map<std::pair<Family, std::string>, PluginEntry> plugins;
  std::vector<std::shared_ptr<Library>> libraries;  // every accepted library, in load order
  std::set<std::string> loaded_files;               // identities of accepted libraries
  std::set<std::string> visited_directories;
  std::vector<LoadFailure> failures;
  std::vector<std::string> warnings;
};

std::vector<std::string> plugin_search_path(const std::vector<std::string>& command_line,
                                            const std::vector<std::string>& pipeline) {
  std::vector<std::string> path;
  std::set<std::string> seen;
  auto add = [&](const std::string& dir) {
    if (dir.empty()) return;
    std::string key = fs::path(dir).lexically_normal().string();
    while (key.size() > 1 && key.back() == '/') key.pop_back();
    if (seen.insert(key).second) path.push_back(dir);
  };
  for (const auto& dir : command_line) add(dir);
  if (const char* env = std::getenv("QUENCH_PLUGIN_PATH")) {
    std::string list = env;
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      add(list.substr(start, end - start));
      start = end + 1;
    }
  }
  for (const auto& dir : pipeline) add(dir);
  add(default_plugin_directory());
  return path;
}

std::string default_plugin_directory() {
  Dl_info info{};
  if (dladdr(&kAnchor, &info) == 0 || info.dli_fname == nullptr || *info.dli_fname == '\0')
    return {};
  std::error_code ec;
  fs::path library = fs::absolute(info.dli_fname, ec);
  if (ec) library = info.dli_fname;
  return (library.parent_path() / QUENCH_PLUGIN_RELATIVE_DIR).lexically_normal().string();
}

Registry::Registry() : impl_(std::make_unique<Impl>()) {}
Registry::~Registry() = default;
Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

Registry Registry::discover(const std::vector<std::string>& command_line,
                            const std::vector<std::string>& pipeline) {
  Registry registry;
  for (const auto& dir : plugin_search_path(command_line, pipeline)) registry.load(dir);
  return registry;
}

void Registry::load(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    impl_->failures.push_back({path, "no such file or directory"});
    return;
  }
  if (ec) {
    impl_->failures.push_back({path, one_line(ec.message())});
    return;
  }
  if (!fs::is_directory(status)) {
    load_library(path);
    return;
  }
  if (!impl_->visited_directories.insert(identity(path)).second) return;

  std::vector<fs::path> files;
  fs::directory_iterator it(path, ec);
  if (ec) {
    impl_->failures.push_back({path, "cannot read directory: " + one_line(ec.message())});
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (!has_library_suffix(it->path())) continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;  // follows symlinks
    files.push_back(it->path());
  }
  if (ec) {
    impl_->failures.push_back({path, "cannot read directory: " + one_line(ec.message())});
    return;
  }
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  for (const auto& file : files) load_library(file.string());
}

bool Registry::load_library(const std::string& file) {
  auto refuse = [&](const std::string& reason) {
    impl_->failures.push_back({file, one_line(reason)});
    return false;
  };

  // The same file reached again (symlink, other spelling): already loaded.
  const std::string id = identity(file);
  if (impl_->loaded_files.count(id)) return true;

  // dlopen runs the library's constructors and faults on segments missing from the file:
  // only a well-formed ELF shared library of this host's kind gets that far.
  if (auto problem = elf_file_problem(file)) return refuse(*problem);

  std::error_code ec;

  // dlopen would search the system folders for a bare file name; use an absolute path.
  fs::path absolute = fs::absolute(file, ec);
  if (ec) absolute = file;
  const std::string load_path = absolute.string();

  auto library = std::make_shared<Library>();
  try {
    // RTLD_NODELETE: dlclose never unmaps it, so no object, static registration (glog,
    // Ceres) or atexit handler of the library outlives its code.
    library->load(boost::dll::fs::path(load_path),
                  boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local |
                      static_cast<boost::dll::load_mode::type>(RTLD_NODELETE));
  } catch (const std::exception& e) {
    return refuse("cannot be loaded as a shared library: " + loader_reason(e.what(), load_path));
  }

  if (!library->has(kDescriptorSymbol))
    return refuse(std::string("does not export ") + kDescriptorSymbol + "; not a quench plugin");

  const LibraryDescriptor* descriptor = nullptr;
  try {
    DescriptorFunction& describe = library->get_alias<DescriptorFunction>(kDescriptorSymbol);
    descriptor = describe();
  } catch (const std::exception& e) {
    return refuse(std::string("plugin descriptor function threw: ") + e.what());
  } catch (...) {
    return refuse("plugin descriptor function threw an unknown exception");
  }
  if (!descriptor) return refuse("plugin descriptor function returned no descriptor");

  // Only these two fields are trusted until they match, then the ABI fingerprint.
  const std::uint32_t api_version = descriptor->api_version;
  const std::uint32_t descriptor_size = descriptor->descriptor_size;
  if (api_version != kPluginApiVersion)
    return refuse("plugin API version " + std::to_string(api_version) + ", this quench expects " +
                  std::to_string(kPluginApiVersion) + "; rebuild the plugin against this quench");
  if (descriptor_size != sizeof(LibraryDescriptor))
    return refuse("plugin descriptor size " + std::to_string(descriptor_size) +
                  " bytes, this quench expects " + std::to_string(sizeof(LibraryDescriptor)) +
                  "; rebuild the plugin against this quench");
  if (auto mismatch = abi_mismatch(descriptor->abi, host_abi_fingerprint()))
    return refuse("built for another ABI (" + *mismatch +
                  "); rebuild the plugin with the compiler and flags of this quench");

  std::set<std::pair<Family, std::string>> declared;
  for (const PluginInfo& info : descriptor->plugins) {
    if (!valid_family(info.family))
      return refuse("plugin '" + info.name + "' has an unknown family (" +
                    std::to_string(static_cast<int>(info.family)) + ")");
    if (info.name.empty())
      return refuse(std::string("declares a ") + to_string(info.family) +
                    " plugin with an empty name");
    if (!declared.insert({info.family, info.name}).second)
      return refuse("declares " + plugin_label(info.family, info.name) + " more than once");
    if (!info.factory) return refuse(plugin_label(info.family, info.name) + " has no factory");
  }

  impl_->libraries.push_back(library);
  impl_->loaded_files.insert(id);
  for (const PluginInfo& info : descriptor->plugins) {
    auto key = std::make_pair(info.family, info.name);
    if (auto found = impl_->plugins.find(key); found != impl_->plugins.end()) {
      impl_->warnings.push_back(one_line(plugin_label(info.family, info.name) + " in " + file +
                                         " is shadowed by the one in " +
                                         found->second.library_path + " (found first)"));
      continue;
    }
    PluginEntry entry;
    entry.info = &info;
    entry.library_path = file;
    entry.library_name = descriptor->library_name;
    entry.library_version = descriptor->library_version;
    entry.library = library;
    impl_->plugins.emplace(std::move(key), std::move(entry));
  }
  return true;
}

const std::vector<LoadFailure>& Registry::failures() const { return impl_->failures; }

const std::vector<std::string>& Registry::warnings() const { return impl_->warnings; }

const PluginEntry* Registry::find(Family family, const std::string& name) const {
  auto it = impl_->plugins.find({family, name});
  return it == impl_->plugins.end() ? nullptr : &it->second;
}

std::vector<const PluginEntry*> Registry::plugins() const {
  std::vector<const PluginEntry*> entries;
  entries.reserve(impl_->plugins.size());
  for (const auto& [key, entry] : impl_->plugins) entries.push_back(&entry);
  return entries;
}

std::vector<std::string> Registry::names(Family family) const {
  std::vector<std::string> names;
  for (const auto& [key, entry] : impl_->plugins)
    if (key.first == family) names.push_back(key.second);
  return names;
}

std::shared_ptr<Component> Registry::create(Family family, const std::string& name,
                                            const Params& params) const {
  const PluginEntry* entry = find(family, name);
  if (!entry) {
    std::string message = "unknown " + std::string(to_string(family)) + " plugin '" + name + "'";
    const auto known = names(family);
    if (known.empty()) {
      message += " (no " + std::string(to_string(family)) + " plugins are loaded)";
    } else {
      message += " (available:";
      for (std::size_t i = 0; i < known.size(); ++i) message += (i ? ", " : " ") + known[i];
      message += ")";
    }
    throw ConfigError({}, message);
  }
  const PluginInfo& info = *entry->info;
  const std::string label = plugin_label(family, name);

  // Validates against this plugin's schema and fills its defaults.
  Params checked;
  try {
    checked = Params(info.schema, params.values());
  } catch (const ConfigError& e) {
    rethrow_config(e, label);
  }

  std::unique_ptr<Component> object;
  try {
    object = info.factory(checked);
  } catch (const ConfigError& e) {
    rethrow_config(e, label);  // the plugin rejected its parameters
  } catch (const std::exception& e) {
    throw PluginError(entry->library_path, label + " failed to construct: " + e.what());
  } catch (...) {
    throw PluginError(entry->library_path, label + " failed to construct: unknown exception");
  }
  if (!object) throw PluginError(entry->library_path, label + " factory returned no object");
  if (!implements(family, *object))
    throw PluginError(entry->library_path, label + " built an object that does not implement the " +
                                               to_string(family) + " interface");

  // The deleter keeps the library loaded until the object is gone; the control block lives
  // in this library, so releasing the plugin's last reference runs no plugin code.
  std::shared_ptr<void> library = entry->library;
  return std::shared_ptr<Component>(object.release(),
                                    [library = std::move(library)](Component* p) { delete p; });
}

void Registry::throw_wrong_type(Family family, const std::string& name) const {
  const PluginEntry* entry = find(family, name);
  throw PluginError(
      entry ? entry->library_path : std::string(),
      plugin_label(family, name) + " built an object that is not of the requested type");
}

}  // namespace quench
