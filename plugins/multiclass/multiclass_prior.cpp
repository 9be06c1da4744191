#include "multiclass_prior.h"

#include <optional>

#include "inducing_class_posterior.h"
#include "inducing_multiclass_model.h"
#include "multiclass_model.h"
#include "quench/parallel.h"
#include "quench/site_prior.h"
#include "quench/units.h"

namespace quench::multiclass {
namespace {

class DenseMulticlassPrior final : public MulticlassPrior {
 public:
  DenseMulticlassPrior(const Kernel& kernel, const Eigen::MatrixXd& X, std::optional<int> threads)
      : kernel_(kernel), X_(X), K_(kernel.gram(X)), prior_(K_, threads) {}
  const ClassPrior& classes() const override { return prior_; }
  Eigen::VectorXd evidence_gradient(const Eigen::VectorXi& y,
                                    const MulticlassFit& fit) const override {
    return kernel_.gram_derivative_contractions(X_, multiclass_evidence_weights(y, fit));
  }
  std::shared_ptr<const Model> model(std::shared_ptr<const Kernel> kernel,
                                     std::shared_ptr<const Likelihood> likelihood,
                                     const Eigen::VectorXi& y,
                                     const MulticlassFit& fit) const override {
    return MulticlassModel::from_fit(std::move(kernel), std::move(likelihood), X_, y, fit);
  }
  std::string where() const override { return ""; }

 private:
  const Kernel& kernel_;
  const Eigen::MatrixXd& X_;
  Eigen::MatrixXd K_;
  DenseClassPrior prior_;  // refers to K_
};

class InducingMulticlassPrior final : public MulticlassPrior {
 public:
  InducingMulticlassPrior(const Kernel& kernel, const Eigen::MatrixXd& X,
                          const InducingInputs& inducing)
      : kernel_(kernel), X_(X), form_(inducing.form), sites_(kernel, X, inducing), prior_(sites_) {}
  const ClassPrior& classes() const override { return prior_; }
  Eigen::VectorXd evidence_gradient(const Eigen::VectorXi& y,
                                    const MulticlassFit& fit) const override {
    require_points_once(fit, "evidence_gradient");
    Eigen::MatrixXd pi, h;
    site_forms(y, fit.sites, pi, h);
    return inducing_class_evidence_gradient(kernel_, X_, sites_, pi,
                                            multiclass_mean_weights(y, fit), fit.posterior);
  }
  std::shared_ptr<const Model> model(std::shared_ptr<const Kernel> kernel,
                                     std::shared_ptr<const Likelihood> likelihood,
                                     const Eigen::VectorXi&,
                                     const MulticlassFit& fit) const override {
    return InducingMulticlassModel::from_fit(std::move(kernel), std::move(likelihood), sites_, fit);
  }
  std::string where() const override {
    return ", on the inducing-point prior (" + to_string(form_) +
           ", M = " + std::to_string(sites_.low_rank().rank()) + ")";
  }

 private:
  const Kernel& kernel_;
  const Eigen::MatrixXd& X_;
  LowRankForm form_;
  InducingSitePrior sites_;
  InducingClassPrior prior_;  // refers to sites_
};

}  // namespace

MulticlassPrior::~MulticlassPrior() = default;

std::unique_ptr<MulticlassPrior> make_multiclass_prior(const Kernel& kernel,
                                                       const Eigen::MatrixXd& X,
                                                       const InducingInputs* inducing,
                                                       int threads) {
  if (inducing) return std::make_unique<InducingMulticlassPrior>(kernel, X, *inducing);
  const bool in_turn = inside_unit() || blas_threads() > 1;
  return std::make_unique<DenseMulticlassPrior>(
      kernel, X, in_turn ? std::nullopt : std::optional<int>(threads));
}

}  // namespace quench::multiclass
