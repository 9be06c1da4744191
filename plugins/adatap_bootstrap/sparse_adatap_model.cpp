#include "sparse_adatap_model.h"

#include <algorithm>
#include <string>
#include <utility>

#include "quench/errors.h"
#include "quench/low_rank_prior.h"

namespace quench::adatap {
namespace {
// New inputs per block: the features of a block are kBlockRows x M.
constexpr Eigen::Index kBlockRows = 4096;
}  // namespace

SparseAdatapModel::SparseAdatapModel(std::shared_ptr<const Kernel> kernel,
                                     Eigen::MatrixXd inducing_inputs,
                                     Eigen::MatrixXd inducing_lower, SparsePredictor predictor,
                                     double expected_sample_size)
    : kernel_(std::move(kernel)),
      Z_(std::move(inducing_inputs)),
      lower_(std::move(inducing_lower)),
      predictor_(std::move(predictor)),
      expected_sample_size_(expected_sample_size) {}

bool SparseAdatapModel::holds(const ModelArchive& archive) {
  return archive.has("posterior/variance_form");
}

std::unique_ptr<SparseAdatapModel> SparseAdatapModel::read(ModelArchive& archive,
                                                           const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train)
    throw ConfigError({}, "sparse ADATAP model needs its kernel and training inputs");
  Eigen::MatrixXd Z = archive.take_matrix("posterior/inducing_inputs", -1, parts.X_train->cols());
  const Eigen::Index m = Z.rows();
  Eigen::MatrixXd lower = archive.take_matrix("posterior/inducing_cholesky_lower", m, m);
  for (Eigen::Index i = 0; i < m; ++i)
    if (!(lower(i, i) > 0.0))
      throw archive.error(
          "entry 'posterior/inducing_cholesky_lower' is not a Cholesky factor (diagonal " +
          std::to_string(i) + " is not positive)");
  SparsePredictor predictor(archive.vector("posterior/mean_weights", m),
                            archive.take_matrix("posterior/variance_form", m, m));
  return std::make_unique<SparseAdatapModel>(parts.kernel, std::move(Z), std::move(lower),
                                             std::move(predictor),
                                             archive.real("posterior/expected_sample_size"));
}

Predictions SparseAdatapModel::predict(const Eigen::MatrixXd& X) const {
  const Eigen::Index n = X.rows();
  Eigen::VectorXd mean(n), variance(n), m, v;
  for (Eigen::Index r = 0; r < n; r += kBlockRows) {
    const Eigen::Index b = std::min(kBlockRows, n - r);
    predictor_.predict(LowRankPrior::features(*kernel_, Z_, lower_, X.middleRows(r, b)), m, v);
    mean.segment(r, b) = m;
    variance.segment(r, b) = v;
  }
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
}

}  // namespace quench::adatap
