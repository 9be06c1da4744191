// The ADATAP analytical bootstrap library's descriptor.
#include "adatap_bootstrap.h"
#include "quench/plugin.h"

namespace quench::adatap {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_adatap_bootstrap", "0.1.0",
      {make_plugin<AdatapBootstrap>(Family::engine, "adatap_bootstrap", "0.1.0",
                                    "analytical (ADATAP) bootstrap of GP regression (000 eqs "
                                    "53-67, App. A) and GP classifiers "
                                    "(docs/adatap_classification.md)",
                                    AdatapBootstrap::schema(),
                                    {Family::kernel, Family::likelihood, Family::resampler})});
  return &descriptor;
}

}  // namespace quench::adatap

QUENCH_PLUGIN_LIBRARY(quench::adatap::describe)
