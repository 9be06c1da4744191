// The latent-GP engines' descriptor: TAP and naive mean field (Opper & Winther, 001, 003) and
// EP over any scalar likelihood, and the SVM limit.
#include "ep.h"
#include "mean_field.h"
#include "quench/plugin.h"
#include "svm_limit.h"

namespace quench::latent_gp {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_latent_gp", "0.1.0",
      {make_plugin<TapEngine>(
           Family::engine, "tap", "0.1.0",
           "TAP mean-field latent GP, any scalar likelihood (001 Secs. 3-4), built-in LOO",
           TapEngine::schema(), {Family::kernel, Family::likelihood}, InducingUse::none,
           TargetUse::fitting(scalar_target_kinds())),
       make_plugin<NaiveMeanFieldEngine>(
           Family::engine, "naive_mean_field", "0.1.0",
           "naive mean-field latent GP, any scalar likelihood (001 Sec. 6), LOO of App. D",
           NaiveMeanFieldEngine::schema(), {Family::kernel, Family::likelihood}, InducingUse::none,
           TargetUse::fitting(scalar_target_kinds())),
       make_plugin<SvmLimitEngine>(Family::engine, "svm_limit", "0.1.0",
                                   "SVM limit (001 Sec. 7, App. E): Adatron, LOO eq 38",
                                   SvmLimitEngine::schema(), {Family::kernel}, InducingUse::none,
                                   TargetUse::reading(TargetKind::binary)),
       make_plugin<EpEngine>(
           Family::engine, "ep", "0.1.0",
           "expectation propagation latent GP, any scalar likelihood (FITC/VFE/SoR with inducing:)",
           EpEngine::schema(), {Family::kernel, Family::likelihood}, InducingUse::optional,
           TargetUse::fitting(scalar_target_kinds()))});
  return &descriptor;
}

}  // namespace quench::latent_gp

QUENCH_PLUGIN_LIBRARY(quench::latent_gp::describe)
