// The GP classification library's descriptor: the mean-field classifiers of Opper & Winther
// (001, 003), EP as their cross-check, and exact leave-one-out.
#include "ep.h"
#include "exact_loo.h"
#include "mean_field.h"
#include "quench/plugin.h"
#include "svm_limit.h"

namespace quench::gp_classification {

const LibraryDescriptor* describe() {
  static const LibraryDescriptor descriptor = [] {
    LibraryDescriptor d;
    d.library_name = "quench_gp_classification";
    d.library_version = "0.1.0";
    d.plugins.push_back({Family::engine,
                         "tap",
                         "0.1.0",
                         "TAP mean-field GP classifier (001 Secs. 3-4), built-in LOO eq 32",
                         TapEngine::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<TapEngine>(p);
                         },
                         {Family::kernel, Family::likelihood}});
    d.plugins.push_back({Family::engine,
                         "naive_mean_field",
                         "0.1.0",
                         "naive mean-field GP classifier (001 Sec. 6), LOO of App. D",
                         NaiveMeanFieldEngine::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<NaiveMeanFieldEngine>(p);
                         },
                         {Family::kernel, Family::likelihood}});
    d.plugins.push_back({Family::engine,
                         "svm_limit",
                         "0.1.0",
                         "SVM limit (001 Sec. 7, App. E): Adatron, LOO eq 38",
                         SvmLimitEngine::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<SvmLimitEngine>(p);
                         },
                         {Family::kernel}});
    d.plugins.push_back({Family::engine,
                         "ep",
                         "0.1.0",
                         "expectation propagation GP classifier (TAP cross-check)",
                         EpEngine::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<EpEngine>(p);
                         },
                         {Family::kernel, Family::likelihood}});
    d.plugins.push_back({Family::engine,
                         "exact_loo",
                         "0.1.0",
                         "exact leave-one-out by N retrains of a classifier engine",
                         ExactLooEngine::schema(),
                         [](const Params& p) -> std::unique_ptr<Component> {
                           return std::make_unique<ExactLooEngine>(p);
                         },
                         {Family::kernel, Family::likelihood}});
    return d;
  }();
  return &descriptor;
}

}  // namespace quench::gp_classification

QUENCH_PLUGIN_LIBRARY(quench::gp_classification::describe)
