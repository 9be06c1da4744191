// Loading saved models through the registry: the model's components are rebuilt from the
// plugins found, which must be of the versions the model was saved with.
#pragma once

#include <string>

#include "quench/export.h"
#include "quench/fitted_model.h"
#include "quench/inference_engine.h"
#include "quench/registry.h"

namespace quench {

/// The registry as a ComponentSource: refuses a plugin that is absent or of another version
/// than the model's (naming both), and gives booleans back from their stored integers.
class QUENCH_API RegistryComponentSource final : public ComponentSource {
 public:
  explicit RegistryComponentSource(const Registry& registry) : registry_(registry) {}
  std::shared_ptr<Component> create(Family family, const std::string& plugin,
                                    const std::string& version,
                                    const std::map<std::string, ParamValue>& params) const override;
  EngineFactory engines() const override;
  bool takes_class_kernels(const std::string& engine) const override;

 private:
  const Registry& registry_;
};

/// The registry's engines by plugin name, with default parameters (ConfigError for an unknown
/// name): RunContext::make_engine, ModelParts::make_engine, the objectives a wrapping engine
/// offers. Refers to `registry`.
QUENCH_API EngineFactory registry_engines(const Registry& registry);

/// load_model(path, RegistryComponentSource(registry)).
QUENCH_API FittedModel load_model(const std::string& path, const Registry& registry);

}  // namespace quench
