#include "adatap_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "quench/errors.h"

namespace quench::adatap {
namespace {
// New inputs per block: the kernel matrix of a block is N x kKernelBlockRows.
constexpr Eigen::Index kKernelBlockRows = 512;
}  // namespace

AdatapModel::AdatapModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_train,
                         Eigen::MatrixXd G, Eigen::VectorXd delta_lambda, Eigen::VectorXd gamma,
                         Eigen::VectorXd lambda, double expected_sample_size, Form form,
                         std::shared_ptr<const Likelihood> likelihood)
    : kernel_(std::move(kernel)),
      X_train_(std::move(X_train)),
      G_(std::move(G)),
      delta_lambda_(std::move(delta_lambda)),
      gamma_(std::move(gamma)),
      lambda_(std::move(lambda)),
      expected_sample_size_(expected_sample_size),
      form_(form),
      likelihood_(std::move(likelihood)) {
  if (form_ == Form::classifier && !likelihood_)
    throw ConfigError({}, "an adatap_classifier model needs its likelihood");
}

std::unique_ptr<AdatapModel> AdatapModel::read(ModelArchive& archive, const ModelParts& parts,
                                               Form form) {
  if (!parts.kernel || !parts.X_train)
    throw ConfigError({}, "adatap_bootstrap model needs its kernel and training inputs");
  const Eigen::Index n = parts.X_train->rows();
  Eigen::MatrixXd G = archive.take_matrix("posterior/G", n, n);
  return std::make_unique<AdatapModel>(
      parts.kernel, *parts.X_train, std::move(G), archive.vector("posterior/delta_lambda", n),
      archive.vector("posterior/gamma", n), archive.vector("posterior/lambda", n),
      archive.real("posterior/expected_sample_size"),
      form == Form::regression && parts.likelihood && !parts.likelihood->gaussian_noise_variance()
          ? Form::classifier
          : form,
      parts.likelihood);
}

Predictions AdatapModel::predict(const Eigen::MatrixXd& X, const TargetQuery& query) const {
  const Eigen::Index m = X.rows();
  const bool classifier = form_ == Form::classifier;
  Eigen::VectorXd mean(m), variance(m), within(classifier ? m : 0);
  for (Eigen::Index start = 0; start < m; start += kKernelBlockRows) {
    const Eigen::Index rows = std::min(kKernelBlockRows, m - start);
    const Eigen::MatrixXd Xb = X.middleRows(start, rows);
    const Eigen::MatrixXd Kx = kernel_->cross(X_train_, Xb);  // N x rows
    // T^T k(x) = k - G D k (eq 57 without a factorization; 2 N^2 rows flops).
    const Eigen::MatrixXd DK = delta_lambda_.asDiagonal() * Kx;
    Eigen::MatrixXd V = Kx;
    V.noalias() -= G_ * DK;
    mean.segment(start, rows).noalias() = V.transpose() * gamma_;
    variance.segment(start, rows).noalias() = -(V.cwiseAbs2().transpose() * lambda_);
    if (classifier)  // G_xx = K(x, x) - (D k)^T T^T k
      within.segment(start, rows) =
          (kernel_->diagonal(Xb) - DK.cwiseProduct(V).colwise().sum().transpose()).cwiseMax(0.0);
  }
  if (classifier) return classifier_predictions(*likelihood_, mean, variance, within, query);
  Predictions p;
  if (form_ == Form::regression) {
    p.add("bootstrap_mean", mean, PredictionUnit::target);
    p.add("bootstrap_variance", variance, PredictionUnit::target_variance);
    return p;
  }
  p.add("bootstrap_mean", mean);  // the SVM limit
  p.add("bootstrap_variance", variance);
  p.add("label", mean.unaryExpr([](double f) { return f >= 0 ? 1.0 : -1.0; }));
  return p;
}

Predictions classifier_predictions(const Likelihood& likelihood, const Eigen::VectorXd& mean,
                                   const Eigen::VectorXd& variance, const Eigen::VectorXd& within,
                                   const TargetQuery& query) {
  Predictions p;
  p.add("bootstrap_mean", mean);
  p.add("bootstrap_variance", variance);
  p.add("within_sample_variance", within);
  // Eq 21 for labels, and likewise for any target: the bootstrap average of the predictive of y
  // is the predictive under N(mean, G_xx + variance), the replica Gaussian's within-sample
  // variance convolved with the predictor's bootstrap distribution.
  add_target_predictions(p, likelihood, mean, (within.array() + variance.array().max(0.0)).matrix(),
                         query);
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
