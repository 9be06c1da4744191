#include "multiclass_prior.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "inducing_class_posterior.h"
#include "inducing_multiclass_model.h"
#include "multiclass_model.h"
#include "quench/class_kernels.h"
#include "quench/parallel.h"
#include "quench/site_prior.h"
#include "quench/units.h"

namespace quench::multiclass {
namespace {

class DenseMulticlassPrior final : public MulticlassPrior {
 public:
  DenseMulticlassPrior(const Kernel& kernel, const Eigen::MatrixXd& X, std::optional<int> threads)
      : kernel_(kernel),
        X_(X),
        K_(class_gram_matrices(kernel, X)),
        prior_(class_grams(K_), threads) {}
  const ClassPrior& classes() const override { return prior_; }
  Eigen::VectorXd evidence_gradient(const Eigen::VectorXi& y,
                                    const MulticlassFit& fit) const override {
    return class_gram_gradient(kernel_, X_,
                               multiclass_evidence_weights(y, fit, kernel_classes(kernel_) > 0));
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
  std::vector<Eigen::MatrixXd> K_;  // K_c, or one K shared by every class
  DenseClassPrior prior_;           // refers to K_
};

class InducingMulticlassPrior final : public MulticlassPrior {
 public:
  InducingMulticlassPrior(const Kernel& kernel, const Eigen::MatrixXd& X,
                          const InducingInputs& inducing)
      : kernel_(kernel),
        X_(X),
        form_(inducing.form),
        sites_(class_site_priors(kernel, X, inducing)),
        prior_(pointers(sites_)) {}
  const ClassPrior& classes() const override { return prior_; }
  Eigen::VectorXd evidence_gradient(const Eigen::VectorXi& y,
                                    const MulticlassFit& fit) const override {
    require_points_once(fit, "evidence_gradient");
    Eigen::MatrixXd pi, h;
    site_forms(y, fit.sites, pi, h);
    return inducing_class_evidence_gradient(kernel_, X_, pointers(sites_), pi,
                                            multiclass_mean_weights(y, fit), fit.posterior);
  }
  std::shared_ptr<const Model> model(std::shared_ptr<const Kernel> kernel,
                                     std::shared_ptr<const Likelihood> likelihood,
                                     const Eigen::VectorXi&,
                                     const MulticlassFit& fit) const override {
    return InducingMulticlassModel::from_fit(std::move(kernel), std::move(likelihood),
                                             pointers(sites_), fit);
  }
  std::string where() const override {
    return ", on the inducing-point prior (" + to_string(form_) +
           ", M = " + std::to_string(sites_.front().low_rank().rank()) + ")";
  }

 private:
  // The inducing-point prior of each class's kernel (one when it is shared), on the same Z.
  static std::vector<InducingSitePrior> class_site_priors(const Kernel& kernel,
                                                          const Eigen::MatrixXd& X,
                                                          const InducingInputs& inducing) {
    std::vector<InducingSitePrior> sites;
    for (Eigen::Index c = 0; c < distinct_kernels(kernel); ++c)
      sites.emplace_back(class_kernel(kernel, c), X, inducing);
    return sites;
  }
  static std::vector<const InducingSitePrior*> pointers(const std::vector<InducingSitePrior>& s) {
    std::vector<const InducingSitePrior*> out;
    for (const InducingSitePrior& p : s) out.push_back(&p);
    return out;
  }

  const Kernel& kernel_;
  const Eigen::MatrixXd& X_;
  LowRankForm form_;
  std::vector<InducingSitePrior> sites_;  // one, or one per class
  InducingClassPrior prior_;              // refers to sites_
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
