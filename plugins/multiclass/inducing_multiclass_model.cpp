#include "inducing_multiclass_model.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "inducing_class_posterior.h"
#include "quench/class_kernels.h"
#include "quench/errors.h"
#include "quench/inducing_class_features.h"
#include "quench/low_rank_prior.h"

namespace quench::multiclass {

namespace {

constexpr Eigen::Index kFeatureBlockRows =
    2048;  // new inputs per block (u(x) is kFeatureBlockRows x M)

}  // namespace

InducingMulticlassModel::InducingMulticlassModel(std::shared_ptr<const Kernel> kernel,
                                                 std::shared_ptr<const Likelihood> lik,
                                                 Eigen::MatrixXd inducing_inputs,
                                                 std::vector<Eigen::MatrixXd> inducing_lower,
                                                 LowRankForm form, Eigen::MatrixXd inducing_mean,
                                                 Eigen::MatrixXd precision_inverse)
    : kernel_(std::move(kernel)),
      likelihood_(std::move(lik)),
      inducing_inputs_(std::move(inducing_inputs)),
      inducing_lower_(std::move(inducing_lower)),
      form_(form),
      inducing_mean_(std::move(inducing_mean)),
      precision_inverse_(std::move(precision_inverse)) {
  require_class_likelihood(likelihood_.get(), "multiclass_gp_classifier");
}

std::shared_ptr<const InducingMulticlassModel> InducingMulticlassModel::from_fit(
    std::shared_ptr<const Kernel> kernel, std::shared_ptr<const Likelihood> lik,
    const std::vector<const InducingSitePrior*>& priors, const MulticlassFit& fit) {
  const LowRankPrior& p = priors.front()->low_rank();
  std::vector<Eigen::MatrixXd> lower;
  for (const InducingSitePrior* prior : priors)
    lower.push_back(prior->low_rank().inducing_cholesky().lower());
  const InducingCoupling& coupling = std::get<InducingCoupling>(fit.posterior.coupling);
  return std::make_shared<const InducingMulticlassModel>(
      std::move(kernel), std::move(lik), p.inducing_inputs(), std::move(lower), p.form(),
      coupling.inducing_mean, coupling.precision_inverse);
}

std::unique_ptr<InducingMulticlassModel> InducingMulticlassModel::read(ModelArchive& archive,
                                                                       const ModelParts& parts) {
  if (!parts.kernel || !parts.likelihood || !parts.X_train)
    throw ConfigError({},
                      "multiclass_gp_classifier model needs its kernel, likelihood and "
                      "training inputs");
  Eigen::MatrixXd Z = archive.take_matrix("posterior/inducing_inputs", -1, parts.X_train->cols());
  const Eigen::Index m = Z.rows();
  const std::string& form = archive.text("posterior/form");
  const std::optional<LowRankForm> named = low_rank_form_named(form);
  if (!named) throw archive.error("entry 'posterior/form' is '" + form + "', not fitc, vfe or sor");
  Eigen::MatrixXd mean = archive.take_matrix("posterior/inducing_mean", m);
  if (const std::string why = class_kernels_mismatch(*parts.kernel, mean.cols()); !why.empty())
    throw archive.error("entry 'posterior/inducing_mean': " + why);
  std::vector<Eigen::MatrixXd> lower = take_inducing_factors(archive, *parts.kernel, m);
  const Eigen::Index size = m * mean.cols();
  Eigen::MatrixXd inverse = archive.take_matrix("posterior/precision_inverse", size, size);
  return std::make_unique<InducingMulticlassModel>(parts.kernel, parts.likelihood, std::move(Z),
                                                   std::move(lower), *named, std::move(mean),
                                                   std::move(inverse));
}

ClassLatents InducingMulticlassModel::latents(const Eigen::MatrixXd& X) const {
  const Eigen::Index n = X.rows(), classes = inducing_mean_.cols();
  const auto kernels = static_cast<Eigen::Index>(inducing_lower_.size());  // 1 or C
  ClassLatents out{Eigen::MatrixXd(n, classes), Eigen::MatrixXd(classes, classes * n)};
  for (Eigen::Index start = 0; start < n; start += kFeatureBlockRows) {
    const Eigen::Index rows = std::min(kFeatureBlockRows, n - start);
    const InducingClassFeatures u = inducing_class_features(
        *kernel_, inducing_inputs_, inducing_lower_, form_, X.middleRows(start, rows));
    const std::vector<const Eigen::MatrixXd*> features = u.pointers();
    for (Eigen::Index c = 0; c < classes; ++c)
      out.mean.block(start, c, rows, 1).noalias() = *of_class(features, c) * inducing_mean_.col(c);
    Eigen::MatrixXd S = inducing_class_covariances(features, precision_inverse_, classes);
    for (Eigen::Index j = 0; j < rows; ++j)
      for (Eigen::Index c = 0; c < classes; ++c)
        S(c, j * classes + c) += u.residual(j, kernels == 1 ? 0 : c);
    out.covariance.middleCols(start * classes, rows * classes) = S;
  }
  return out;
}

Predictions InducingMulticlassModel::predict(const Eigen::MatrixXd& X) const {
  return class_predictions(require_class_likelihood(likelihood_.get(), kind()), latents(X));
}

void InducingMulticlassModel::write(ModelArchive& archive) const {
  archive.put("posterior/prior", std::string("inducing"));
  archive.put("posterior/form", to_string(form_));
  archive.put("posterior/inducing_inputs", inducing_inputs_);
  put_inducing_factors(archive, *kernel_, inducing_lower_);
  archive.put("posterior/inducing_mean", inducing_mean_);
  archive.put("posterior/precision_inverse", precision_inverse_);
}

std::unique_ptr<Model> read_multiclass_model(ModelArchive& archive, const ModelParts& parts) {
  if (archive.has("posterior/prior") && archive.text("posterior/prior") == "inducing")
    return InducingMulticlassModel::read(archive, parts);
  return MulticlassModel::read(archive, parts);
}

}  // namespace quench::multiclass
