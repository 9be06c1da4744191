#include "adatap_model.h"

#include <algorithm>
#include <utility>

#include "quench/errors.h"

namespace quench::adatap {
namespace {
// New inputs per block: the kernel matrix of a block is N x kBlockRows.
constexpr Eigen::Index kBlockRows = 512;
}  // namespace

AdatapModel::AdatapModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_train,
                         Eigen::MatrixXd G, Eigen::VectorXd delta_lambda, Eigen::VectorXd gamma,
                         Eigen::VectorXd lambda, double expected_sample_size)
    : kernel_(std::move(kernel)),
      X_train_(std::move(X_train)),
      G_(std::move(G)),
      delta_lambda_(std::move(delta_lambda)),
      gamma_(std::move(gamma)),
      lambda_(std::move(lambda)),
      expected_sample_size_(expected_sample_size) {}

std::unique_ptr<AdatapModel> AdatapModel::read(ModelArchive& archive, const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train)
    throw ConfigError({}, "adatap_bootstrap model needs its kernel and training inputs");
  const Eigen::Index n = parts.X_train->rows();
  Eigen::MatrixXd G = archive.take_matrix("posterior/G", n, n);
  return std::make_unique<AdatapModel>(
      parts.kernel, *parts.X_train, std::move(G), archive.vector("posterior/delta_lambda", n),
      archive.vector("posterior/gamma", n), archive.vector("posterior/lambda", n),
      archive.real("posterior/expected_sample_size"));
}

Predictions AdatapModel::predict(const Eigen::MatrixXd& X) const {
  const Eigen::Index m = X.rows();
  Eigen::VectorXd mean(m), variance(m);
  for (Eigen::Index start = 0; start < m; start += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, m - start);
    const Eigen::MatrixXd Kx = kernel_->cross(X_train_, X.middleRows(start, rows));  // N x rows
    // T^T k(x) = k - G D k (eq 57 without a factorization; 2 N^2 rows flops).
    Eigen::MatrixXd V = Kx;
    V.noalias() -= G_ * (delta_lambda_.asDiagonal() * Kx);
    mean.segment(start, rows).noalias() = V.transpose() * gamma_;
    variance.segment(start, rows).noalias() = -(V.cwiseAbs2().transpose() * lambda_);
  }
  Predictions p;
  p.add("bootstrap_mean", mean, PredictionUnit::target);
  p.add("bootstrap_variance", variance, PredictionUnit::target_variance);
  return p;
}

void AdatapModel::write(ModelArchive& archive) const {
  archive.put("posterior/G", G_);
  archive.put("posterior/delta_lambda", delta_lambda_);
  archive.put("posterior/gamma", gamma_);
  archive.put("posterior/lambda", lambda_);
  archive.put("posterior/expected_sample_size", expected_sample_size_);
}

}  // namespace quench::adatap
