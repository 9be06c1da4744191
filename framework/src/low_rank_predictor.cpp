#include "quench/low_rank_predictor.h"

#include <algorithm>
#include <optional>

namespace quench {
namespace {

// New inputs per block: u(x) of a block is M x kPredictionBlockRows.
constexpr Eigen::Index kPredictionBlockRows = 4096;

}  // namespace

LowRankPredictor LowRankPredictor::of(const LowRankPrior& prior,
                                      const LowRankGaussianPosterior& posterior) {
  return {prior.inducing_inputs(), prior.inducing_cholesky().lower(), posterior.weights,
          Eigen::MatrixXd(posterior.b.matrixL()), prior.form()};
}

void LowRankPredictor::predict(const Kernel& kernel, const Eigen::MatrixXd& X,
                               Eigen::VectorXd& mean, Eigen::VectorXd& variance) const {
  const Eigen::Index n = X.rows();
  mean.resize(n);
  variance.resize(n);
  Eigen::VectorXd m, v;
  for (Eigen::Index r = 0; r < n; r += kPredictionBlockRows) {
    const Eigen::Index b = std::min(kPredictionBlockRows, n - r);
    const Eigen::MatrixXd Xb = X.middleRows(r, b);
    const Eigen::VectorXd prior =
        form == LowRankForm::sor ? Eigen::VectorXd() : Eigen::VectorXd(kernel.diagonal(Xb));
    predict_from_features(LowRankPrior::features(kernel, inducing_inputs, inducing_lower, Xb),
                          prior, m, v);
    mean.segment(r, b) = m;
    variance.segment(r, b) = v;
  }
}

void LowRankPredictor::predict_from_features(const Eigen::MatrixXd& features,
                                             const Eigen::VectorXd& prior_variance,
                                             Eigen::VectorXd& mean,
                                             Eigen::VectorXd& variance) const {
  Eigen::MatrixXd v = features.transpose();
  mean.noalias() = features * weights;
  const Eigen::VectorXd explained = v.colwise().squaredNorm().transpose();
  const Eigen::VectorXd& prior = form == LowRankForm::sor ? explained : prior_variance;
  b_lower.triangularView<Eigen::Lower>().solveInPlace(v);  // L_B^-1 u(x)
  variance = (prior - explained + v.colwise().squaredNorm().transpose()).cwiseMax(0.0);
}

void LowRankPredictor::write(ModelArchive& archive, const std::string& prefix) const {
  archive.put(prefix + "/inducing_inputs", inducing_inputs);
  archive.put(prefix + "/inducing_cholesky_lower", inducing_lower);
  archive.put(prefix + "/weights", weights);
  archive.put(prefix + "/b_cholesky_lower", b_lower);
  archive.put(prefix + "/form", to_string(form));
}

LowRankPredictor LowRankPredictor::read(ModelArchive& archive, const std::string& prefix,
                                        Eigen::Index dimension) {
  LowRankPredictor p;
  p.inducing_inputs = archive.take_matrix(prefix + "/inducing_inputs", -1, dimension);
  const Eigen::Index m = p.inducing_inputs.rows();
  const std::string& form = archive.text(prefix + "/form");
  const std::optional<LowRankForm> named = low_rank_form_named(form);
  if (!named)
    throw archive.error("entry '" + prefix + "/form' is '" + form + "', not fitc, vfe or sor");
  p.form = *named;
  p.inducing_lower = archive.take_cholesky_factor(prefix + "/inducing_cholesky_lower", m);
  p.b_lower = archive.take_cholesky_factor(prefix + "/b_cholesky_lower", m);
  p.weights = archive.vector(prefix + "/weights", m);
  return p;
}

}  // namespace quench
