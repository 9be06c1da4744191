#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "kernels.h"
#include "quench/cosine_features.h"
#include "quench/rng.h"
#include "stationary_kernel.h"

namespace quench::kernels {
namespace {

// Random Fourier features (Rahimi & Recht 2007; 002 Sec. 5) of
// v0 exp(-1/2 sum_l w_l (x_l - x'_l)^2) + v1: phi_j(x) = sqrt(2 v0 / D) cos(omega_j^T x + b_j)
// with omega_jl ~ N(0, w_l) and b_j ~ U(0, 2 pi), so E[phi(x)^T phi(x')] is the kernel; a
// constant feature sqrt(v1) carries the bias when v1 > 0. Draw j comes from
// RngStream(seed, j), so the map does not depend on how it is built. The realized arrays are a
// CosineFeatures, which a fitted model can copy and store.
std::unique_ptr<CosineFeatures> random_fourier_features(Eigen::Index D, std::uint64_t seed,
                                                        const Eigen::VectorXd& w, double v0,
                                                        double v1) {
  Eigen::MatrixXd omega(w.size(), D);
  Eigen::RowVectorXd phase(D);
  const Eigen::VectorXd sd = w.cwiseSqrt();
  for (Eigen::Index j = 0; j < D; ++j) {
    RngStream rng(seed, static_cast<std::uint64_t>(j));
    for (Eigen::Index l = 0; l < w.size(); ++l) omega(l, j) = sd(l) * rng.normal();
    phase(j) = 2.0 * M_PI * rng.uniform();
  }
  return std::make_unique<CosineFeatures>(std::move(omega), std::move(phase),
                                          std::sqrt(2.0 * v0 / double(D)), v1);
}

class GaussianKernel final : public StationaryKernel {
 public:
  explicit GaussianKernel(const Params& p)
      : StationaryKernel(p),
        features_(p.integer("random_features")),
        feature_seed_(static_cast<std::uint64_t>(p.integer("feature_seed"))) {}

  void prepare(const Eigen::MatrixXd& X) override {
    StationaryKernel::prepare(X);
    build_feature_map();
  }
  const FeatureMap* feature_map() const override { return map_.get(); }

  // A learned value reaches the random Fourier features too: same seed, new weights/scales.
  void set_hyperparameter(const std::string& name, const Eigen::VectorXd& value) override {
    StationaryKernel::set_hyperparameter(name, value);
    if (map_) build_feature_map();
  }

 private:
  // 001 App. B: v0 exp(-1/2 sum_l w_l (x_l - x'_l)^2) + v1, i.e. g(D) = exp(-D/2).
  void profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope) const override {
    gaussian_profile(G, slope);
  }

  void build_feature_map() {
    if (features_ > 0)
      map_ = random_fourier_features(features_, feature_seed_,
                                     input_weights().weights(input_weights().dimension()),
                                     amplitude(), bias());
  }

  Eigen::Index features_;
  std::uint64_t feature_seed_;
  std::unique_ptr<CosineFeatures> map_;
};

}  // namespace

ParamSchema gaussian_schema() {
  ParamSchema s;
  InputWeights::declare(s);
  declare_amplitude_bias_noise(s);
  s.integer("random_features",
            "D random Fourier features offered as feature_map() (0 = none; 002 Sec. 5); the map "
            "holds rows x D doubles",
            0, 0, 100000)
      .integer("feature_seed", "seed of the random Fourier features", 0, 0);
  return s;
}

std::unique_ptr<Kernel> make_gaussian(const Params& p) {
  return std::make_unique<GaussianKernel>(p);
}

}  // namespace quench::kernels
