#include "quench/registry_models.h"

namespace quench {

std::shared_ptr<Component> RegistryComponentSource::create(
    Family family, const std::string& plugin, const std::string& version,
    const std::map<std::string, ParamValue>& params) const {
  const PluginEntry* entry = registry_.find(family, plugin);
  if (!entry)
    throw ConfigError({}, std::string("no ") + to_string(family) + " plugin '" + plugin +
                              "' is loaded (the model was saved with its version " + version + ")");
  if (entry->info->version != version)
    throw ConfigError({}, std::string(to_string(family)) + " plugin '" + plugin + "' is version " +
                              entry->info->version + " here, the model was saved with version " +
                              version);
  std::map<std::string, ParamValue> values;
  for (const auto& [name, value] : params) {
    const ParamSpec* spec = entry->info->schema.find(name);
    const auto* integer = std::get_if<std::int64_t>(&value);
    values[name] =
        spec && spec->type == ParamType::boolean && integer ? ParamValue(*integer != 0) : value;
  }
  return registry_.create(family, plugin, Params(entry->info->schema, std::move(values)));
}

EngineFactory RegistryComponentSource::engines() const { return registry_engines(registry_); }

bool RegistryComponentSource::takes_class_kernels(const std::string& engine) const {
  const PluginEntry* entry = registry_.find(Family::engine, engine);
  return entry && entry->info->class_kernels != ClassKernelUse::none;
}

EngineFactory registry_engines(const Registry& registry) {
  return [&registry](const std::string& name) {
    const PluginEntry* entry = registry.find(Family::engine, name);
    if (!entry) throw ConfigError({}, "unknown engine plugin '" + name + "'");
    return registry.create_as<InferenceEngine>(Family::engine, name,
                                               Params(entry->info->schema, {}));
  };
}

FittedModel load_model(const std::string& path, const Registry& registry) {
  return load_model(path, RegistryComponentSource(registry));
}

}  // namespace quench
