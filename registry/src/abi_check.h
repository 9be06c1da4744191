// Compares a plugin's ABI fingerprint with the host's.
#pragma once

#include <optional>
#include <string>

#include "quench/abi_fingerprint.h"

namespace quench {

/// The fingerprint of this quench, recorded when the registry was compiled.
const AbiFingerprint& host_abi_fingerprint();

/// Every field where `plugin` differs from `host`, as "FIELD: plugin P, host H" joined by
/// "; ", or nothing when they are equal.
std::optional<std::string> abi_mismatch(const AbiFingerprint& plugin, const AbiFingerprint& host);

}  // namespace quench
