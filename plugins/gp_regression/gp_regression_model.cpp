#include "gp_regression_model.h"

#include <algorithm>
#include <string>
#include <utility>

#include "quench/errors.h"

namespace quench::gp_regression {
namespace {
// New inputs per block: the kernel matrix of a block is N x kBlockRows.
constexpr Eigen::Index kBlockRows = 512;
}  // namespace

GpRegressionModel::GpRegressionModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_train,
                                     Eigen::VectorXd alpha, Eigen::MatrixXd lower,
                                     double noise_variance)
    : kernel_(std::move(kernel)),
      X_train_(std::move(X_train)),
      alpha_(std::move(alpha)),
      lower_(std::move(lower)),
      noise_variance_(noise_variance) {}

std::unique_ptr<GpRegressionModel> GpRegressionModel::read(ModelArchive& archive,
                                                           const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train)
    throw ConfigError({}, "gp_regression model needs its kernel and training inputs");
  const Eigen::Index n = parts.X_train->rows();
  Eigen::MatrixXd lower = archive.take_cholesky_factor("posterior/cholesky_lower", n);
  return std::make_unique<GpRegressionModel>(parts.kernel, *parts.X_train,
                                             archive.vector("posterior/alpha", n), std::move(lower),
                                             archive.real("posterior/noise_variance"));
}

Predictions GpRegressionModel::predict(const Eigen::MatrixXd& X) const {
  const Eigen::Index m = X.rows();
  Eigen::VectorXd mean(m), variance(m);
  for (Eigen::Index start = 0; start < m; start += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, m - start);
    const Eigen::MatrixXd Xb = X.middleRows(start, rows);
    Eigen::MatrixXd Ks = kernel_->cross(X_train_, Xb);              // N x rows
    mean.segment(start, rows).noalias() = Ks.transpose() * alpha_;  // R&W eq 2.25
    lower_.triangularView<Eigen::Lower>().solveInPlace(Ks);         // V = L^{-1} K* (dtrsm)
    variance.segment(start, rows) =                                 // R&W eq 2.26: k(x, x) - v^T v
        (kernel_->diagonal(Xb) - Ks.colwise().squaredNorm().transpose()).cwiseMax(0.0);
  }
  return regression_predictions(mean, variance, noise_variance_);
}

Predictions regression_predictions(const Eigen::VectorXd& mean, const Eigen::VectorXd& variance,
                                   double noise_variance) {
  Predictions p;
  p.add("mean", mean, PredictionUnit::target);
  p.add("variance", variance, PredictionUnit::target_variance);
  p.add("predictive_variance", (variance.array() + noise_variance).matrix(),
        PredictionUnit::target_variance);
  return p;
}

void GpRegressionModel::write(ModelArchive& archive) const {
  archive.put("posterior/alpha", alpha_);
  archive.put("posterior/cholesky_lower", lower_);
  archive.put("posterior/noise_variance", noise_variance_);
}

}  // namespace quench::gp_regression
