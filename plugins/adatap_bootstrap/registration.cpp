// The ADATAP analytical bootstrap library's descriptor.
#include "adatap_bootstrap.h"
#include "quench/plugin.h"

namespace quench::adatap {

const LibraryDescriptor* describe() {
  static const LibraryDescriptor descriptor = [] {
    LibraryDescriptor d;
    d.library_name = "quench_adatap_bootstrap";
    d.library_version = "0.1.0";
    d.plugins.push_back({Family::engine,
                         "adatap_bootstrap",
                         "0.1.0",
                         "analytical (ADATAP) bootstrap of GP regression (000 eqs 53-67, App. A)",
                         AdatapBootstrap::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<AdatapBootstrap>(p);
                         },
                         {Family::kernel, Family::likelihood, Family::resampler}});
    return d;
  }();
  return &descriptor;
}

}  // namespace quench::adatap

QUENCH_PLUGIN_LIBRARY(quench::adatap::describe)
