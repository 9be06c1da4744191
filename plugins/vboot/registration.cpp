// The variational bootstrap library's descriptor: the vboot engine and the perturbation
// resampler it draws its particles from.
#include "perturbation.h"
#include "quench/plugin.h"
#include "vboot.h"

namespace quench::vboot {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_vboot", "0.1.0",
      {make_plugin<VBoot>(Family::engine, "vboot", "0.1.0",
                          "variational bootstrap for classification: Dirichlet transform, RFF "
                          "or MLP particles, softmax average (002)",
                          VBoot::schema(), {Family::likelihood, Family::resampler},
                          InducingUse::none,
                          TargetUse::reading(TargetKind::any, {TargetKind::classes})),
       make_plugin<PerturbationResampler>(
           Family::resampler, "perturbation", "0.1.0",
           "perturbed targets N(y^, sigma^2) and prior means N(0, alpha^2 I) (002 eqs 6, 13)",
           PerturbationResampler::schema())});
  return &descriptor;
}

}  // namespace quench::vboot

QUENCH_PLUGIN_LIBRARY(quench::vboot::describe)
