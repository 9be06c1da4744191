#include <cmath>
#include <string>

#include "kernels.h"
#include "quench/errors.h"
#include "quench/printable.h"
#include "stationary_kernel.h"

namespace quench::kernels {
namespace {

class MaternKernel final : public StationaryKernel {
 public:
  explicit MaternKernel(const Params& p) : StationaryKernel(p), nu_(p.real("nu")) {
    if (nu_ != 0.5 && nu_ != 1.5 && nu_ != 2.5)
      throw ConfigError({},
                        "matern 'nu' must be 0.5, 1.5 or 2.5 (the closed forms of R&W eq "
                        "4.17), got " +
                            format_number(nu_));
  }

 private:
  // Rasmussen & Williams (2006) eq 4.17 (and nu = 1/2, exp(-r), Sec. 4.2.1) with
  // r = sqrt(D), D = sum_l w_l (x_l - x'_l)^2:
  //   f_1/2 = exp(-r),                         df/dD = -exp(-r) / (2 r)
  //   f_3/2 = (1 + sqrt3 r) exp(-sqrt3 r),     df/dD = -(3/2) exp(-sqrt3 r)
  //   f_5/2 = (1 + sqrt5 r + 5 r^2/3) exp(-sqrt5 r), df/dD = -(5/6)(1 + sqrt5 r) exp(-sqrt5 r).
  // For nu = 1/2 the slope is unbounded at r = 0, where its product with the (zero) squared
  // differences is taken as the limit 0.
  void profile(Eigen::MatrixXd& G, Eigen::MatrixXd* slope) const override {
    auto r = G.array();
    r = r.sqrt();  // G holds r = sqrt(D) until its last assignment
    if (nu_ == 0.5) {
      if (slope) *slope = (r > 0).select(-(-r).exp() / (2.0 * r), 0.0).matrix();
      r = (-r).exp();
      return;
    }
    const double s = std::sqrt(nu_ == 1.5 ? 3.0 : 5.0);
    if (!slope && nu_ == 1.5) r = (1.0 + s * r) * (-s * r).exp();
    if (!slope && nu_ == 2.5) r = (1.0 + s * r + (5.0 / 3.0) * r.square()) * (-s * r).exp();
    if (!slope) return;
    *slope = (-s * r).exp().matrix();
    auto e = slope->array();
    if (nu_ == 1.5) {
      r = (1.0 + s * r) * e;
      e *= -1.5;
      return;
    }
    e *= 1.0 + s * r;                                      // (1 + s r) e
    r = e + (5.0 / 3.0) * r.square() * e / (1.0 + s * r);  // + 5/3 r^2 e
    e *= -5.0 / 6.0;
  }

  double nu_;
};

}  // namespace

ParamSchema matern_schema() {
  ParamSchema s;
  s.real("nu", "smoothness: 0.5, 1.5 or 2.5 (R&W eq 4.17)", 1.5, 0.5, 2.5);
  InputWeights::declare(s);
  declare_amplitude_bias_noise(s);
  return s;
}

std::unique_ptr<Kernel> make_matern(const Params& p) { return std::make_unique<MaternKernel>(p); }

}  // namespace quench::kernels
