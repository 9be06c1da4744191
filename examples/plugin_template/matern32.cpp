// A template for an out-of-tree quench plugin: the Matern 3/2 kernel
//
//   K(x, x') = v0 (1 + sqrt(3) r) exp(-sqrt(3) r),   r = ||x - x'|| / length_scale
//
// with parameters `amplitude` (v0) and `length_scale`. Copy this directory to start a plugin
// library of your own; one library may declare any number of plugins of any family.
//
// Build it against an installed quench (find_package(quench) + quench_add_plugin()), with the
// compiler and CPU flags of that quench (no -march=native or -mavx2 unless quench had them):
// the descriptor records this file's Eigen alignment and vectorization, and quench refuses a
// plugin whose values differ from its own.
//
//   cmake -S examples/plugin_template -B build-template -DCMAKE_PREFIX_PATH=<quench prefix>
//   cmake --build build-template
//
// which produces build-template/libquench_matern32.so (and the zero-inflated Poisson likelihood
// of zero_inflated_poisson.cpp beside it). Load it in one of three ways:
//
//   quench plugins --plugin-path build-template        (any quench command takes --plugin-path)
//   QUENCH_PLUGIN_PATH=build-template quench plugins   (colon-separated list of directories)
//   plugin_paths: [build-template]                     (in a pipeline, relative to its file;
//                                                       loaded only by `quench run
//                                                       --allow-pipeline-plugins`)
//
// or install it into the installation's plugin directory (see CMakeLists.txt). Then use it
// as `kernel: {plugin: matern32, ...}`, e.g. with the pipeline next to this file:
//
//   quench run examples/plugin_template/matern32_pipeline.yaml --plugin-path build-template
//
// Rebuild the plugin when quench's plugin API version (quench::kPluginApiVersion) changes:
// the registry refuses a library built for another version and says why.
#include <cmath>

#include <Eigen/Core>

#include "quench/kernel.h"
#include "quench/parameters.h"
#include "quench/plugin.h"

namespace matern32 {
namespace {

class Matern32Kernel final : public quench::Kernel {
 public:
  explicit Matern32Kernel(const quench::Params& p)
      : amplitude_(p.real("amplitude")), length_scale_(p.real("length_scale")) {}

  Eigen::MatrixXd cross(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) const override {
    // Squared distances ||a - b||^2 = ||a||^2 + ||b||^2 - 2 a.b, through one matrix product.
    Eigen::MatrixXd d2 = -2.0 * A * B.transpose();
    d2.colwise() += A.rowwise().squaredNorm();
    d2.rowwise() += B.rowwise().squaredNorm().transpose();
    const Eigen::ArrayXXd s = d2.cwiseMax(0.0).array().sqrt() * (std::sqrt(3.0) / length_scale_);
    return (amplitude_ * (1.0 + s) * (-s).exp()).matrix();
  }

  Eigen::VectorXd diagonal(const Eigen::MatrixXd& X) const override {
    return Eigen::VectorXd::Constant(X.rows(), amplitude_);  // r = 0
  }

 private:
  double amplitude_;
  double length_scale_;
};

quench::ParamSchema schema() {
  quench::ParamSchema s;
  s.real("amplitude", "v0, the prior variance", 1.0, 0.0)
      .real("length_scale", "distance over which the covariance decays", 1.0, 1e-300);
  return s;
}

}  // namespace

// The library's descriptor: its name and version and the plugins it declares. make_plugin<T>
// builds T from the validated parameters; the descriptor carries the plugin API version.
const quench::LibraryDescriptor* describe() {
  static const auto descriptor = quench::make_library(
      "quench_matern32", "0.1.0",
      {quench::make_plugin<Matern32Kernel>(
          quench::Family::kernel, "matern32", "0.1.0",
          "Matern 3/2: v0 (1 + sqrt(3) r) exp(-sqrt(3) r), r = |x - x'| / l", schema())});
  return &descriptor;
}

}  // namespace matern32

// Exports the descriptor under the one symbol the registry looks for.
QUENCH_PLUGIN_LIBRARY(matern32::describe)
