// The GP classification library's descriptor: the mean-field classifiers of Opper & Winther
// (001, 003), EP as their cross-check, and exact leave-one-out.
#include "ep.h"
#include "exact_loo.h"
#include "mean_field.h"
#include "multiclass_ep.h"
#include "one_vs_rest.h"
#include "quench/plugin.h"
#include "svm_limit.h"

namespace quench::gp_classification {

const LibraryDescriptor* describe() {
  static const auto descriptor = make_library(
      "quench_gp_classification", "0.1.0",
      {make_plugin<TapEngine>(Family::engine, "tap", "0.1.0",
                              "TAP mean-field GP classifier (001 Secs. 3-4), built-in LOO eq 32",
                              TapEngine::schema(), {Family::kernel, Family::likelihood},
                              InducingUse::none, TargetUse{{TargetKind::binary}}),
       make_plugin<NaiveMeanFieldEngine>(
           Family::engine, "naive_mean_field", "0.1.0",
           "naive mean-field GP classifier (001 Sec. 6), LOO of App. D",
           NaiveMeanFieldEngine::schema(), {Family::kernel, Family::likelihood}, InducingUse::none,
           TargetUse{{TargetKind::binary}}),
       make_plugin<SvmLimitEngine>(Family::engine, "svm_limit", "0.1.0",
                                   "SVM limit (001 Sec. 7, App. E): Adatron, LOO eq 38",
                                   SvmLimitEngine::schema(), {Family::kernel}, InducingUse::none,
                                   TargetUse{{}, false, TargetKind::binary}),
       make_plugin<EpEngine>(
           Family::engine, "ep", "0.1.0",
           "expectation propagation GP classifier (TAP cross-check; FITC/VFE/SoR with inducing:)",
           EpEngine::schema(), {Family::kernel, Family::likelihood}, InducingUse::optional,
           TargetUse{{TargetKind::binary}}),
       make_plugin<ExactLooEngine>(Family::engine, "exact_loo", "0.1.0",
                                   "exact leave-one-out by N retrains of a classifier engine",
                                   ExactLooEngine::schema(), {Family::kernel, Family::likelihood}),
       make_plugin<MulticlassEpEngine>(
           Family::engine, "multiclass_ep", "0.1.0",
           "multi-class GP classifier: nested EP, multinomial probit, built-in LOO (FITC/VFE/SoR "
           "with inducing:)",
           MulticlassEpEngine::schema(), {Family::kernel, Family::likelihood},
           InducingUse::optional, TargetUse{{TargetKind::classes}}),
       make_plugin<OneVsRestEngine>(
           Family::engine, "one_vs_rest", "0.1.0",
           "one-vs-rest multi-class classifier over a binary engine, per-class built-in LOO",
           OneVsRestEngine::schema(), {Family::kernel, Family::likelihood}, InducingUse::none,
           TargetUse{{TargetKind::binary}, false, TargetKind::classes})});
  return &descriptor;
}

}  // namespace quench::gp_classification

QUENCH_PLUGIN_LIBRARY(quench::gp_classification::describe)
