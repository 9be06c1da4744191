#include "sparse_adatap_model.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "adatap_model.h"
#include "quench/errors.h"
#include "quench/low_rank_prior.h"

namespace quench::adatap {
namespace {
// New inputs per block: the features of a block are kFeatureBlockRows x M.
constexpr Eigen::Index kFeatureBlockRows = 4096;
}  // namespace

SparseAdatapModel::SparseAdatapModel(std::shared_ptr<const Kernel> kernel,
                                     Eigen::MatrixXd inducing_inputs,
                                     Eigen::MatrixXd inducing_lower, SparsePredictor predictor,
                                     double expected_sample_size,
                                     std::shared_ptr<const Likelihood> likelihood, LowRankForm form)
    : kernel_(std::move(kernel)),
      Z_(std::move(inducing_inputs)),
      lower_(std::move(inducing_lower)),
      predictor_(std::move(predictor)),
      expected_sample_size_(expected_sample_size),
      likelihood_(std::move(likelihood)),
      form_(form) {
  if (likelihood_ && predictor_.within_form().rows() != Z_.rows())
    throw ConfigError({}, "a sparse ADATAP classifier model needs the within-sample form");
}

bool SparseAdatapModel::holds(const ModelArchive& archive) {
  return archive.has("posterior/variance_form");
}

std::unique_ptr<SparseAdatapModel> SparseAdatapModel::read(ModelArchive& archive,
                                                           const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train)
    throw ConfigError({}, "sparse ADATAP model needs its kernel and training inputs");
  Eigen::MatrixXd Z = archive.take_matrix("posterior/inducing_inputs", -1, parts.X_train->cols());
  const Eigen::Index m = Z.rows();
  Eigen::MatrixXd lower = archive.take_cholesky_factor("posterior/inducing_cholesky_lower", m);
  const bool classifier = archive.has("posterior/within_form");
  if (classifier && (!parts.likelihood || parts.likelihood->gaussian_noise_variance()))
    throw archive.error("a sparse ADATAP classifier model needs its non-Gaussian likelihood");
  Eigen::VectorXd weights = archive.vector("posterior/mean_weights", m);
  Eigen::MatrixXd variance_form = archive.take_matrix("posterior/variance_form", m, m);
  SparsePredictor predictor(
      std::move(weights), std::move(variance_form),
      classifier ? archive.take_matrix("posterior/within_form", m, m) : Eigen::MatrixXd());
  LowRankForm form = LowRankForm::fitc;
  if (classifier) {
    const std::string& name = archive.text("posterior/inducing_form");
    const std::optional<LowRankForm> parsed = low_rank_form_named(name);
    if (!parsed)
      throw archive.error("entry 'posterior/inducing_form' is '" + name +
                          "', not fitc, vfe or sor");
    form = *parsed;
  }
  return std::make_unique<SparseAdatapModel>(parts.kernel, std::move(Z), std::move(lower),
                                             std::move(predictor),
                                             archive.real("posterior/expected_sample_size"),
                                             classifier ? parts.likelihood : nullptr, form);
}

Predictions SparseAdatapModel::predict(const Eigen::MatrixXd& X, const TargetQuery& query) const {
  const Eigen::Index n = X.rows();
  Eigen::VectorXd mean(n), variance(n), within(likelihood_ ? n : 0), m, v;
  for (Eigen::Index r = 0; r < n; r += kFeatureBlockRows) {
    const Eigen::Index b = std::min(kFeatureBlockRows, n - r);
    const Eigen::MatrixXd Xb = X.middleRows(r, b);
    const Eigen::MatrixXd features = LowRankPrior::features(*kernel_, Z_, lower_, Xb);
    predictor_.predict(features, m, v);
    mean.segment(r, b) = m;
    variance.segment(r, b) = v;
    if (likelihood_) {  // G_xx = k(x, x) - u^T A u (sparse_solver.h)
      const Eigen::VectorXd prior = form_ == LowRankForm::sor
                                        ? Eigen::VectorXd(features.rowwise().squaredNorm())
                                        : kernel_->diagonal(Xb);
      within.segment(r, b) = (prior - predictor_.within_reduction(features)).cwiseMax(0.0);
    }
  }
  if (likelihood_) return classifier_predictions(*likelihood_, mean, variance, within, query);
  Predictions p;
  p.add("bootstrap_mean", mean, PredictionUnit::target);
  p.add("bootstrap_variance", variance, PredictionUnit::target_variance);
  return p;
}

void SparseAdatapModel::write(ModelArchive& archive) const {
  archive.put("posterior/inducing_inputs", Z_);
  archive.put("posterior/inducing_cholesky_lower", lower_);
  archive.put("posterior/mean_weights", predictor_.mean_weights());
  archive.put("posterior/variance_form", predictor_.variance_form());
  archive.put("posterior/expected_sample_size", expected_sample_size_);
  if (likelihood_) {
    archive.put("posterior/within_form", predictor_.within_form());
    archive.put("posterior/inducing_form", to_string(form_));
  }
}

}  // namespace quench::adatap
