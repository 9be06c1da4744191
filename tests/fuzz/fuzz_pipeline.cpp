// libFuzzer harness: arbitrary text as a pipeline file, parsed and validated against the
// build's real plugins. Any outcome but success or a quench::Error (an escaped exception
// of another type, a crash, a sanitizer report, a leak) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "quench/errors.h"
#include "quench/pipeline.h"
#include "quench/registry.h"

namespace {

// Loaded once for the whole run and never destroyed: the plugins stay mapped, as in the
// quench binary, and loading them per input would dominate the run time.
const quench::Registry& plugins() {
  static const quench::Registry* registry = [] {
    auto* r = new quench::Registry;
    r->load(QUENCH_FUZZ_PLUGIN_DIR);
    return r;
  }();
  return *registry;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string yaml(reinterpret_cast<const char*>(data), size);
  try {
    const auto pipeline = quench::Pipeline::from_string(yaml, "fuzz.yaml", "/nonexistent");
    pipeline.validate(plugins());
  } catch (const quench::Error&) {
    // A refused pipeline: the expected outcome for most inputs.
  }
  return 0;
}
