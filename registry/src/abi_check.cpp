// The host's ABI fingerprint and the field-by-field comparison with a plugin's.
#include "abi_check.h"

#include <cstdint>

namespace quench {

const AbiFingerprint& host_abi_fingerprint() {
  static const AbiFingerprint host = QUENCH_ABI_FINGERPRINT;
  return host;
}

std::optional<std::string> abi_mismatch(const AbiFingerprint& plugin, const AbiFingerprint& host) {
  struct Field {
    const char* name;
    std::uint32_t AbiFingerprint::*member;
  };
  static constexpr Field kFields[] = {
      {"__GXX_ABI_VERSION", &AbiFingerprint::gxx_abi_version},
      {"_GLIBCXX_USE_CXX11_ABI", &AbiFingerprint::glibcxx_use_cxx11_abi},
      {"EIGEN_WORLD_VERSION", &AbiFingerprint::eigen_world_version},
      {"EIGEN_MAJOR_VERSION", &AbiFingerprint::eigen_major_version},
      {"EIGEN_MINOR_VERSION", &AbiFingerprint::eigen_minor_version},
      {"EIGEN_MAX_ALIGN_BYTES", &AbiFingerprint::eigen_max_align_bytes},
      {"EIGEN_MAX_STATIC_ALIGN_BYTES", &AbiFingerprint::eigen_max_static_align_bytes},
      {"EIGEN_VECTORIZE_SSE2", &AbiFingerprint::eigen_vectorize_sse2},
      {"EIGEN_VECTORIZE_AVX", &AbiFingerprint::eigen_vectorize_avx},
      {"EIGEN_VECTORIZE_AVX512", &AbiFingerprint::eigen_vectorize_avx512},
      {"EIGEN_VECTORIZE_NEON", &AbiFingerprint::eigen_vectorize_neon},
      {"EIGEN_VECTORIZE_ALTIVEC", &AbiFingerprint::eigen_vectorize_altivec},
      {"sizeof(Eigen::Index)", &AbiFingerprint::sizeof_eigen_index},
  };
  static_assert(
      sizeof(kFields) / sizeof(kFields[0]) * sizeof(std::uint32_t) == sizeof(AbiFingerprint),
      "every AbiFingerprint field is compared");
  std::string differences;
  for (const Field& field : kFields) {
    const std::uint32_t p = plugin.*field.member, h = host.*field.member;
    if (p == h) continue;
    if (!differences.empty()) differences += "; ";
    differences +=
        std::string(field.name) + ": plugin " + std::to_string(p) + ", host " + std::to_string(h);
  }
  if (differences.empty()) return std::nullopt;
  return differences;
}

}  // namespace quench
