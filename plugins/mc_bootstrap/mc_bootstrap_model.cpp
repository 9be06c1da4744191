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

McBootstrapModel::McBootstrapModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_train,
                                   Eigen::MatrixXd coefficients, double expected_sample_size)
    : kernel_(std::move(kernel)),
      X_train_(std::move(X_train)),
      coefficients_(std::move(coefficients)),
      expected_sample_size_(expected_sample_size) {}

std::unique_ptr<McBootstrapModel> McBootstrapModel::read(ModelArchive& archive,
                                                         const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train)
    throw ConfigError({}, "mc_bootstrap model needs its kernel and training inputs");
  Eigen::MatrixXd A = archive.take_matrix("posterior/coefficients", parts.X_train->rows());
  if (A.cols() == 0) throw archive.error("entry 'posterior/coefficients' has no samples");
  return std::make_unique<McBootstrapModel>(parts.kernel, *parts.X_train, std::move(A),
                                            archive.real("posterior/expected_sample_size"));
}

Predictions McBootstrapModel::predict(const Eigen::MatrixXd& X) const {
  const Eigen::Index m = X.rows(), T = coefficients_.cols();
  Eigen::VectorXd mean(m), variance(m);
  for (Eigen::Index start = 0; start < m; start += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, m - start);
    const Eigen::MatrixXd Kx = kernel_->cross(X.middleRows(start, rows), X_train_);  // rows x N
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
  archive.put("posterior/coefficients", coefficients_);
  archive.put("posterior/expected_sample_size", expected_sample_size_);
}

}  // namespace quench::mc_bootstrap
