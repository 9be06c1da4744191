// What a plugin library exports: one descriptor listing its plugins. A library defines
//
//   const quench::LibraryDescriptor* describe() {
//     static const auto d = quench::make_library("my_lib", "1.0", {
//         quench::make_plugin<MyKernel>(quench::Family::kernel, "mine", "1.0", "doc",
//                                       MyKernel::schema())});
//     return &d;
//   }
//   QUENCH_PLUGIN_LIBRARY(describe)
//
// The registry reads api_version and descriptor_size first, then the ABI fingerprint, and
// refuses a library whose values differ from its own before touching anything else in the
// descriptor. The fingerprint is filled in where the descriptor is constructed, i.e. in the
// plugin's own translation unit with the plugin's compiler flags (quench/abi_fingerprint.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/dll/alias.hpp>

#include "quench/abi_fingerprint.h"
#include "quench/component.h"
#include "quench/parameters.h"
#include "quench/target.h"

namespace quench {

/// Bumped on any change of the plugin ABI (this header, the interfaces, Params).
/// 3: the descriptor carries an AbiFingerprint after descriptor_size.
/// 4: learnable hyperparameters (Kernel, Likelihood) and hyperparameter objectives of engines.
/// 5: fitted models (Results::model, Problem::make_model, InferenceEngine::read_model).
/// 6: retrains kept as kernel expansions (ResampledModel::kernel_expansion); k-fold tilted
///    moments (Likelihood::tilted_moments_power).
/// 7: retrains' predictive probabilities at the test inputs (ResampledModel::test_probability).
/// 8: independent units on the host's executor (RunContext::executor, quench/units.h).
/// 9: minimization within bounds (Optimizer::minimize_within, Box).
/// 10: inducing-point priors (Problem::inducing, PluginInfo::inducing,
///     Kernel::diagonal_derivative_contractions, ResampledModel::expansion_inputs).
/// 11: multi-class likelihoods (Likelihood::classes, quench/class_likelihood.h) and retrains
///     (ResampledModel::classes).
/// 12: composite kernels (Kernel::diagonal_noise_derivative, quench/composite_kernel.h;
///     ComponentRecord's parts and columns).
/// 13: any likelihood: Likelihood's per-site methods take an Observation, target_kind,
///     size_column, curvature_bound, target_moments, target_cdf, predictive_moments,
///     d_log_likelihood_hyperparameters; Hyperparameter::learned_by_default and
///     target_unit_power; PluginInfo::targets.
/// 14: checks before numerics (InferenceEngine::check, InferenceEngine::retrainable).
/// 15: what retraining takes and gives (InferenceEngine::retraining replaces retrainable),
///     Resampler::draws_counts and Resampler::perturbs.
/// 16: a kernel per class (quench/class_kernels.h, PluginInfo::class_kernels, ClassKernelUse).
/// 17: the objectives an engine offers depend on its prior
///     (InferenceEngine::hyperparameter_objectives takes a PriorKind).
inline constexpr std::uint32_t kPluginApiVersion = 17;

/// How an engine uses the pipeline's `inducing:` block (quench/low_rank_prior.h).
enum class InducingUse {
  none,      ///< exact only: a pipeline with `inducing:` is refused for this engine
  optional,  ///< exact without the block, on the inducing-point prior with it
  required   ///< needs the block (a sparse-only engine)
};

/// How an engine takes a kernel per class (quench/class_kernels.h: components.kernel as a list).
enum class ClassKernelUse {
  none,   ///< one kernel only: a kernel per class is refused for this engine
  takes,  ///< reads class c's through class_kernel(), or hands the whole list to the engines it
          ///< names (which must take it too)
  splits  ///< hands class c's kernel alone to the engines it names for class c's problem (which
          ///< need take one kernel only: one_vs_rest)
};

/// What an engine fits (engines only; docs/design.md, "Any likelihood"). Empty: the engine
/// constrains no target itself (it takes no likelihood, or it is a meta-engine whose inner
/// engines are checked).
struct TargetUse {
  /// The target kinds of the likelihoods the engine serves.
  std::vector<TargetKind> likelihood;
  /// Only a likelihood with closed-form Gaussian algebra (Likelihood::gaussian_noise_variance).
  bool closed_form_gaussian = false;
  /// The kind of the data's target when the engine reads it itself rather than as its
  /// likelihood does (one_vs_rest: classes, handed to binary engines; svm_limit: binary, no
  /// likelihood; vboot: any, its own labels).
  std::optional<TargetKind> data;

  /// An engine fitting likelihoods of `kinds` (only the closed-form Gaussian with
  /// `closed_form_gaussian`).
  static TargetUse fitting(std::vector<TargetKind> kinds, bool closed_form_gaussian = false) {
    TargetUse use;
    use.likelihood = std::move(kinds);
    use.closed_form_gaussian = closed_form_gaussian;
    return use;
  }
  /// An engine reading the data's target as `data` itself, fitting likelihoods of `kinds` (none:
  /// it takes no likelihood).
  static TargetUse reading(TargetKind data, std::vector<TargetKind> kinds = {}) {
    TargetUse use;
    use.likelihood = std::move(kinds);
    use.data = data;
    return use;
  }
};

using PluginFactory = std::function<std::unique_ptr<Component>(const Params&)>;

struct PluginInfo {
  Family family = Family::kernel;
  std::string name;     ///< unique within its family, e.g. "gaussian"
  std::string version;  ///< the plugin's own version
  std::string doc;      ///< one line
  ParamSchema schema;
  PluginFactory factory;
  /// Components an engine needs from the pipeline (engines only).
  std::vector<Family> needs;
  /// Whether the engine runs on the inducing-point prior (engines only).
  InducingUse inducing = InducingUse::none;
  /// The targets the engine fits (engines only).
  TargetUse targets;
  /// How the engine takes a kernel per class (engines only); an engine of `none` is refused one
  /// before it runs.
  ClassKernelUse class_kernels = ClassKernelUse::none;
};

struct LibraryDescriptor {
  // Read first, before the layout of the rest is trusted.
  std::uint32_t api_version = kPluginApiVersion;
  std::uint32_t descriptor_size = sizeof(LibraryDescriptor);
  // Read when the two fields above match: the compiler and Eigen configuration of the
  // translation unit that constructs the descriptor (the plugin's, not the host's).
  AbiFingerprint abi = QUENCH_ABI_FINGERPRINT;
  // Valid only when the three fields above match the host's.
  std::string library_name;
  std::string library_version;
  std::vector<PluginInfo> plugins;
};

using DescriptorFunction = const LibraryDescriptor*();

/// A plugin whose factory constructs T from its Params (T must have T(const Params&)).
template <class T>
PluginInfo make_plugin(Family family, std::string name, std::string version, std::string doc,
                       ParamSchema schema, std::vector<Family> needs = {},
                       InducingUse inducing = InducingUse::none, TargetUse targets = {},
                       ClassKernelUse class_kernels = ClassKernelUse::none) {
  return {family,
          std::move(name),
          std::move(version),
          std::move(doc),
          std::move(schema),
          [](const Params& p) -> std::unique_ptr<Component> { return std::make_unique<T>(p); },
          std::move(needs),
          inducing,
          std::move(targets),
          class_kernels};
}

/// A descriptor with this header's API version and size and the caller's ABI fingerprint.
inline LibraryDescriptor make_library(std::string name, std::string version,
                                      std::vector<PluginInfo> plugins) {
  LibraryDescriptor d;
  d.library_name = std::move(name);
  d.library_version = std::move(version);
  d.plugins = std::move(plugins);
  return d;
}

/// The one symbol a plugin library exports.
inline constexpr const char* kDescriptorSymbol = "quench_plugin_descriptor";

}  // namespace quench

/// Exports `function` (a DescriptorFunction) as the library's descriptor.
#define QUENCH_PLUGIN_LIBRARY(function) BOOST_DLL_ALIAS(function, quench_plugin_descriptor)
