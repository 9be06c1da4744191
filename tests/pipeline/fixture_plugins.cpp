// Fixture plugins with known schemas for the pipeline tests. They are only ever resolved
// (which constructs them once), never run: each factory returns an inert object of its
// family's interface.
#include <memory>

#include "quench/inference_engine.h"
#include "quench/plugin.h"

namespace {

using quench::Family;
using quench::ParamSchema;

struct InertKernel final : quench::Kernel {
  Eigen::MatrixXd cross(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const override {
    return Eigen::MatrixXd::Zero(a.rows(), b.rows());
  }
};
// A likelihood that declares its target kind and nothing else.
template <quench::TargetKind kind>
struct InertLikelihood final : quench::Likelihood {
  std::optional<quench::TargetKind> target_kind() const override { return kind; }
  double log_likelihood(const quench::Observation&, double) const override { return 0; }
  double d_log_likelihood(const quench::Observation&, double) const override { return 0; }
  double d2_log_likelihood(const quench::Observation&, double) const override { return 0; }
};
struct InertResampler final : quench::Resampler {
  void do_prepare(Eigen::Index) override {}
  double do_occupation_pmf(int k) const override { return k == 1 ? 1.0 : 0.0; }
  int do_max_occupation(double) const override { return 1; }
  Eigen::VectorXd do_sample(quench::RngStream&) const override { return {}; }
  double do_expected_size() const override { return 0; }
};
struct InertOptimizer final : quench::Optimizer {
  quench::OptimizerReport minimize(const quench::SmoothObjective&,
                                   Eigen::VectorXd&) const override {
    return {};
  }
};
struct InertEngine final : quench::InferenceEngine {
  quench::Results run(const quench::Problem&) const override { return {}; }
};

template <class T>
std::unique_ptr<quench::Component> make(const quench::Params&) {
  return std::make_unique<T>();
}

quench::PluginFactory factory_for(Family family) {
  switch (family) {
    case Family::kernel:
      return make<InertKernel>;
    case Family::likelihood:
      return make<InertLikelihood<quench::TargetKind::real>>;
    case Family::resampler:
      return make<InertResampler>;
    case Family::optimizer:
      return make<InertOptimizer>;
    case Family::engine:
      return make<InertEngine>;
  }
  return nullptr;
}

quench::PluginInfo plugin(Family family, const char* name, ParamSchema schema,
                          std::vector<Family> needs = {},
                          quench::InducingUse inducing = quench::InducingUse::none,
                          quench::TargetUse targets = {},
                          quench::ClassKernelUse class_kernels = quench::ClassKernelUse::none) {
  quench::PluginInfo info;
  info.family = family;
  info.name = name;
  info.version = "1.0";
  info.doc = "test fixture";
  info.schema = std::move(schema);
  info.factory = factory_for(family);
  info.needs = std::move(needs);
  info.inducing = inducing;
  info.targets = std::move(targets);
  info.class_kernels = class_kernels;
  return info;
}

// A likelihood fixture of target kind `kind`.
template <quench::TargetKind kind>
quench::PluginInfo likelihood(const char* name, ParamSchema schema) {
  quench::PluginInfo info = plugin(Family::likelihood, name, std::move(schema));
  info.factory = make<InertLikelihood<kind>>;
  return info;
}

const quench::LibraryDescriptor* describe() {
  static const quench::LibraryDescriptor descriptor = [] {
    quench::LibraryDescriptor d;
    d.library_name = "pipeline_fixtures";
    d.library_version = "1.0";
    d.plugins = {
        plugin(Family::kernel, "gaussian",
               ParamSchema()
                   .real("l2", "squared length scale", std::nullopt, 0.0)
                   .string("scaling", "output scaling", "none",
                           {"none", "variance", "sqrt_variance"})),
        plugin(Family::kernel, "matern",
               ParamSchema()
                   .real("l2", "squared length scale", 1.0, 0.0)
                   .real("nu", "smoothness", 1.5, 0.5, 5.0)),
        likelihood<quench::TargetKind::real>(
            "gaussian", ParamSchema().real("noise", "noise variance", 0.01, 0.0)),
        likelihood<quench::TargetKind::binary>("probit", ParamSchema()),
        likelihood<quench::TargetKind::classes>("multinomial_probit", ParamSchema()),
        plugin(Family::resampler, "poisson_bootstrap",
               ParamSchema().real("ratio", "resample size / data size", 1.0, 0.0, 10.0)),
        plugin(Family::resampler, "jackknife", ParamSchema()),
        plugin(Family::optimizer, "lbfgs",
               ParamSchema()
                   .integer("max_iterations", "iteration limit", 100, 1)
                   .real("tolerance", "gradient tolerance", 1e-6, 0.0)),
        plugin(Family::engine, "exact_gp_regression",
               ParamSchema().real("jitter", "diagonal jitter", 1e-8, 0.0),
               {Family::kernel, Family::likelihood}, quench::InducingUse::none,
               quench::TargetUse::fitting({quench::TargetKind::real})),
        plugin(Family::engine, "ep", ParamSchema(), {Family::kernel, Family::likelihood},
               quench::InducingUse::none,
               quench::TargetUse::fitting({quench::TargetKind::real, quench::TargetKind::binary})),
        plugin(
            Family::engine, "one_vs_rest", ParamSchema(), {Family::kernel, Family::likelihood},
            quench::InducingUse::none,
            quench::TargetUse::reading(quench::TargetKind::classes, {quench::TargetKind::binary}),
            quench::ClassKernelUse::splits),
        plugin(Family::engine, "multiclass_ep", ParamSchema(), {Family::kernel, Family::likelihood},
               quench::InducingUse::none, quench::TargetUse::fitting({quench::TargetKind::classes}),
               quench::ClassKernelUse::takes),
        plugin(Family::engine, "laplace",
               ParamSchema().boolean("verbose", "print iterations", false),
               {Family::kernel, Family::likelihood, Family::optimizer}),
        plugin(Family::engine, "mc_bootstrap",
               ParamSchema()
                   .integer("samples", "bootstrap samples", std::nullopt, 1, 1000000)
                   .plugin("inner", "engine", "engine run on each sample",
                           std::string("exact_gp_regression"))
                   .real_list("quantiles", "reported quantiles", std::vector<double>{0.05, 0.95},
                              0.0, 1.0)
                   .boolean("parallel", "run samples in parallel", true)
                   .string("label", "free text", std::nullopt)
                   .optional(),
               {Family::resampler}, quench::InducingUse::optional, {},
               quench::ClassKernelUse::takes),
        plugin(Family::engine, "sparse_gp_regression", ParamSchema(),
               {Family::kernel, Family::likelihood}, quench::InducingUse::required),
    };
    return d;
  }();
  return &descriptor;
}

}  // namespace

QUENCH_PLUGIN_LIBRARY(describe)
