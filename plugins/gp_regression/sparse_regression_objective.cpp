#include "sparse_regression_objective.h"

#include <utility>

#include "quench/errors.h"
#include "quench/low_rank_evidence.h"

namespace quench::gp_regression {
namespace {

class SparseEvidence final : public HyperparameterObjective {
 public:
  SparseEvidence(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const InducingInputs& inducing)
      : X_(X), y_(y), inducing_(inducing) {}

  std::string quantity() const override {
    return inducing_.form == LowRankForm::vfe ? "log_evidence_bound" : "log_evidence";
  }

  ObjectiveValue evaluate(const Kernel& kernel, const Likelihood& likelihood) override {
    const auto noise = likelihood.gaussian_noise_variance();
    if (!noise) throw ConfigError({}, "sparse GP regression objectives need a Gaussian likelihood");
    ObjectiveValue v;
    try {
      const double s2 = *noise + kernel.diagonal_noise();
      const double t = inducing_.form == LowRankForm::vfe ? 0.5 / s2 : 0.0;
      const Evidence e = evidence(kernel, s2, t);
      v.value = e.value;
      // sigma^2 enters through phi_i = sigma^2 and, for VFE, the trace weight 1/(2 sigma^2).
      const double by_noise = e.noise_gradient + t / s2 * e.residual_trace;
      const auto lik_blocks = likelihood.hyperparameters();
      v.gradient = Eigen::VectorXd::Zero(e.kernel_gradient.size() + flat_size(lik_blocks));
      // The kernel's noise entries (0 in kernel_gradient) enter as sigma^2 does.
      v.gradient.head(e.kernel_gradient.size()) =
          e.kernel_gradient + by_noise * kernel.diagonal_noise_derivative();
      Eigen::Index offset = e.kernel_gradient.size();
      for (const Hyperparameter& h : lik_blocks) {
        if (h.name != "noise")
          throw ConfigError({},
                            "sparse GP regression cannot learn the likelihood's '" + h.name + "'");
        v.gradient(offset) = by_noise;
        offset += h.value.size();
      }
    } catch (const NumericalError& e) {
      v.status = {RunStatus::failed, e.what(), 0};
    }
    return v;
  }

 private:
  struct Evidence {
    double value, noise_gradient, residual_trace;  // noise_gradient: summed over the rows
    Eigen::VectorXd kernel_gradient;
  };
  // VFE and SoR (no diagonal correction, one noise variance) from K(X, Z) alone
  // (shared_noise_evidence: 3 N M^2 flops); FITC through its prior (5-6 N M^2).
  Evidence evidence(const Kernel& kernel, double s2, double t) const {
    if (inducing_.form != LowRankForm::fitc) {
      SharedNoiseEvidence e = shared_noise_evidence(kernel, X_, inducing_, y_, s2, t);
      return {e.value, e.noise_gradient, e.residual_trace, std::move(e.kernel_gradient)};
    }
    const LowRankPrior prior(kernel, X_, inducing_);
    LowRankEvidence e = low_rank_gaussian_evidence(kernel, X_, prior, y_,
                                                   Eigen::VectorXd::Constant(y_.size(), s2), t);
    return {e.value, e.noise_gradient.sum(), e.residual_trace, std::move(e.kernel_gradient)};
  }

  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
  InducingInputs inducing_;
};

}  // namespace

std::unique_ptr<HyperparameterObjective> make_sparse_evidence(const Eigen::MatrixXd& X,
                                                              const Eigen::VectorXd& y,
                                                              const InducingInputs& inducing) {
  return std::make_unique<SparseEvidence>(X, y, inducing);
}

}  // namespace quench::gp_regression
