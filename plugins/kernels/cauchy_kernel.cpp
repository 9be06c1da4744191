#include "kernels.h"
#include "stationary_kernel.h"

namespace quench::kernels {
namespace {

class CauchyKernel final : public StationaryKernel {
 public:
  explicit CauchyKernel(const Params& p) : StationaryKernel(p), beta_(p.real("beta")) {}

 private:
  // 001 App. B: v0 / (1 + sum_l w_l (x_l - x'_l)^2)^beta + v1, i.e. g(D) = (1 + D)^-beta,
  // g'(D) = -beta g(D) / (1 + D). Kept, beta fixed, for the 001 papers' pipelines and saved
  // models; rational_quadratic is the learnable-shape form (alpha learnable, the length scales
  // keeping their meaning as alpha varies, alpha -> infinity the gaussian): alpha = beta with
  // weights 2 beta w_l gives this kernel.
  void profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope) const override {
    G.array() += 1.0;  // 1 + D
    if (slope) *slope = G;
    G.array() = G.array().pow(-beta_);
    if (slope) slope->array() = -beta_ * G.array() / slope->array();
  }

  double beta_;
};

}  // namespace

ParamSchema cauchy_schema() {
  ParamSchema s;
  InputWeights::declare(s);
  declare_amplitude_bias_noise(s);
  s.real("beta", "exponent of the rational quadratic (1 in 001)", 1.0, 1e-12);
  return s;
}

std::unique_ptr<Kernel> make_cauchy(const Params& p) { return std::make_unique<CauchyKernel>(p); }

}  // namespace quench::kernels
