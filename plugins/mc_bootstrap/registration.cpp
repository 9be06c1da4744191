// The Monte-Carlo bootstrap library's descriptor.
#include "mc_bootstrap.h"
#include "quench/plugin.h"

namespace quench::mc_bootstrap {

const LibraryDescriptor* describe() {
  static const LibraryDescriptor descriptor = [] {
    LibraryDescriptor d;
    d.library_name = "quench_mc_bootstrap";
    d.library_version = "0.1.0";
    d.plugins.push_back(
        {Family::engine,
         "mc_bootstrap",
         "0.1.0",
         "Monte-Carlo resampling: retrains an inner engine on resampled data (000 eq 21)",
         McBootstrap::schema(),
         [](const Params& p) -> std::unique_ptr<Component> {
           return std::make_unique<McBootstrap>(p);
         },
         {Family::kernel, Family::likelihood, Family::resampler}});
    return d;
  }();
  return &descriptor;
}

}  // namespace quench::mc_bootstrap

QUENCH_PLUGIN_LIBRARY(quench::mc_bootstrap::describe)
