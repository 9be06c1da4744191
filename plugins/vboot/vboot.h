// The variational bootstrap for classification (002, Algorithms 1-2): labels become C
// heteroskedastic regressions by the likelihood's Dirichlet transform (eqs 10-11); each of K
// particles fits perturbed targets (eq 13) with a perturbed prior mean (eq 6) by solving the
// MAP problem eq 7 — in closed form for a linear model on the kernel's random Fourier features
// (eq 8, one factorization per class shared by all particles) or by Adam for a 2-hidden-layer
// ReLU network (eq 2); predictions average the softmax over particles (eq 12). The particles
// are kept as a fitted model (vboot_model.h), which computes the test outputs.
#pragma once

#include <string>

#include "quench/inference_engine.h"
#include "quench/parameters.h"

namespace quench::vboot {

class VBoot final : public InferenceEngine {
 public:
  static ParamSchema schema();
  explicit VBoot(const Params& params);
  Results run(const Problem& problem) const override;
  /// 'rff' needs a kernel with random Fourier features.
  void check(const Problem& problem, Eigen::Index inducing_count) const override;
  /// The model of a run (vboot_model.h); it needs no components: the particles, and for
  /// 'rff' the realized feature map, are stored in the archive.
  std::unique_ptr<Model> read_model(ModelArchive& archive, const ModelParts& parts) const override;

 private:
  std::int64_t particles_, classes_, width_;
  std::string model_;
  double prior_variance_;
  bool share_factorization_, keep_particles_;
  int bins_;
};

}  // namespace quench::vboot
