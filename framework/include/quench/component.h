// Common base of everything a plugin can create. Interfaces derive from it so one factory
// signature serves every family; the registry checks the family before handing objects out.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "quench/export.h"

namespace quench {

enum class Family { kernel, likelihood, resampler, optimizer, engine };

QUENCH_API const char* to_string(Family family);
/// "kernel" -> Family::kernel; std::nullopt for an unknown name.
QUENCH_API std::optional<Family> family_from_string(std::string_view name);

class QUENCH_API Component {
 public:
  virtual ~Component();
};

}  // namespace quench
