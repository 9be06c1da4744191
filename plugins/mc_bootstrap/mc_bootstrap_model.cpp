#include "mc_bootstrap_model.h"

#include <algorithm>
#include <utility>

#include "quench/errors.h"

namespace quench::mc_bootstrap {
namespace {
// New inputs per block: a block holds its N x kBlockRows kernel matrix and kBlockRows x T
// retrain predictions.
constexpr Eigen::Index kBlockRows = 256;
}  // namespace

McBootstrapModel::McBootstrapModel(std::shared_ptr<const Kernel> kernel,
                                   Eigen::MatrixXd X_expansion, Eigen::MatrixXd coefficients,
                                   double expected_sample_size, bool own_inputs)
    : kernel_(std::move(kernel)),
      X_expansion_(std::move(X_expansion)),
      coefficients_(std::move(coefficients)),
      expected_sample_size_(expected_sample_size),
      own_inputs_(own_inputs) {}

std::unique_ptr<McBootstrapModel> McBootstrapModel::read(ModelArchive& archive,
                                                         const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train)
    throw ConfigError({}, "mc_bootstrap model needs its kernel and training inputs");
  const bool own = archive.has("posterior/expansion_inputs");
  Eigen::MatrixXd X =
      own ? archive.take_matrix("posterior/expansion_inputs", -1, parts.X_train->cols())
          : *parts.X_train;
  Eigen::MatrixXd A = archive.take_matrix("posterior/coefficients", X.rows());
  if (A.cols() == 0) throw archive.error("entry 'posterior/coefficients' has no samples");
  return std::make_unique<McBootstrapModel>(parts.kernel, std::move(X), std::move(A),
                                            archive.real("posterior/expected_sample_size"), own);
}

Predictions McBootstrapModel::predict(const Eigen::MatrixXd& X) const {
  const Eigen::Index m = X.rows(), T = coefficients_.cols();
  Eigen::VectorXd mean(m), variance(m);
  for (Eigen::Index start = 0; start < m; start += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, m - start);
    const Eigen::MatrixXd Kx = kernel_->cross(X.middleRows(start, rows), X_expansion_);
    Eigen::MatrixXd F = Kx * coefficients_;  // rows x T: every retrain at the block
    const Eigen::VectorXd mu = F.rowwise().mean();
    mean.segment(start, rows) = mu;
    F.colwise() -= mu;
    variance.segment(start, rows) = T > 1
                                        ? Eigen::VectorXd(F.rowwise().squaredNorm() / double(T - 1))
                                        : Eigen::VectorXd::Zero(rows);
  }
  Predictions p;
  p.add("bootstrap_mean", mean, PredictionUnit::target);
  p.add("bootstrap_variance", variance, PredictionUnit::target_variance);
  return p;
}

void McBootstrapModel::write(ModelArchive& archive) const {
  if (own_inputs_) archive.put("posterior/expansion_inputs", X_expansion_);
  archive.put("posterior/coefficients", coefficients_);
  archive.put("posterior/expected_sample_size", expected_sample_size_);
}

}  // namespace quench::mc_bootstrap
