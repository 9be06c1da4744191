// libFuzzer harness for the plugin checks that run before and right after dlopen: the ELF
// header / program header check over arbitrary bytes (as the whole file, and as the first
// bytes of a larger file), and the ABI fingerprint comparison of arbitrary fingerprints.
// Self-contained (no quench library needed), e.g. from the source root:
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I registry/src
//     -I framework/include -isystem /usr/include/eigen3 tests/fuzz/fuzz_plugin_file_check.cpp
//     registry/src/elf_check.cpp registry/src/abi_check.cpp -o fuzz_plugin_file_check
//   ./fuzz_plugin_file_check -max_total_time=600 tests/fuzz/corpus/plugin_file_check
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "abi_check.h"
#include "elf_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  const quench::ElfHost host = quench::host_elf();
  (void)quench::elf_image_problem(bytes, size, host);
  // The same bytes as the start of a file twice as long (segments may lie beyond them).
  (void)quench::elf_image_problem(bytes, std::uint64_t{size} * 2, host);

  if (size >= sizeof(quench::AbiFingerprint)) {
    quench::AbiFingerprint plugin;
    std::memcpy(&plugin, data, sizeof plugin);
    const auto mismatch = quench::abi_mismatch(plugin, quench::host_abi_fingerprint());
    // Equal fingerprints never differ; different ones always say where.
    const bool equal = std::memcmp(&plugin, &quench::host_abi_fingerprint(), sizeof plugin) == 0;
    if (equal == mismatch.has_value()) __builtin_trap();
  }
  return 0;
}
