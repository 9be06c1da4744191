// The ADATAP analytical bootstrap library's descriptor.
#include "adatap_bootstrap.h"
#include "adatap_svm.h"
#include "quench/plugin.h"

namespace quench::adatap {

namespace {

// adatap_bootstrap: every scalar likelihood (general_solver.h) and C classes (class_solver.h).
std::vector<TargetKind> fitted_kinds() {
  std::vector<TargetKind> kinds = scalar_target_kinds();
  kinds.push_back(TargetKind::classes);
  return kinds;
}

}  // namespace

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_adatap_bootstrap", "0.1.0",
      {make_plugin<AdatapBootstrap>(
           Family::engine, "adatap_bootstrap", "0.1.0",
           "analytical (ADATAP) bootstrap of GP regression (000 eqs "
           "53-67, App. A), GP classifiers (docs/adatap_classification.md) and C-class GP "
           "classifiers (docs/adatap_multiclass.md)",
           AdatapBootstrap::schema(), {Family::kernel, Family::likelihood, Family::resampler},
           InducingUse::optional, TargetUse::fitting(fitted_kinds()), ClassKernelUse::takes),
       make_plugin<AdatapSvm>(Family::engine, "adatap_svm", "0.1.0",
                              "analytical (ADATAP) bootstrap of the hard-margin SVM without bias, "
                              "the SVM limit (docs/adatap_classification.md eq 23)",
                              AdatapSvm::schema(), {Family::kernel, Family::resampler},
                              InducingUse::none, TargetUse::reading(TargetKind::binary))});
  return &descriptor;
}

}  // namespace quench::adatap

QUENCH_PLUGIN_LIBRARY(quench::adatap::describe)
