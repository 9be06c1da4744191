#include "classifier_model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "quench/errors.h"

namespace quench::latent_gp {
namespace {

// New inputs per block: the kernel matrix of a block is N x kBlockRows.
constexpr Eigen::Index kBlockRows = 512;

// <h(x)> at the rows of X in blocks: calls f(start, X block, K, h block) with
// K = C(X_train, X block) (N x rows, without diagonal noise: x is not a training input) and
// h block = K^T (t o alpha) (eq 27; the SVM's decision of Sec. 7).
template <class F>
Eigen::VectorXd mean_field_in_blocks(const Kernel& kernel, const Eigen::MatrixXd& X_train,
                                     const Eigen::VectorXd& t_alpha, const Eigen::MatrixXd& X,
                                     F&& f) {
  Eigen::VectorXd h(X.rows());
  for (Eigen::Index start = 0; start < X.rows(); start += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, X.rows() - start);
    const Eigen::MatrixXd Xb = X.middleRows(start, rows);
    Eigen::MatrixXd K = kernel.cross(X_train, Xb);
    h.segment(start, rows).noalias() = K.transpose() * t_alpha;
    f(start, Xb, K);
  }
  return h;
}

// Eq 13: +1 when <h(x)> >= 0, else -1.
Eigen::VectorXd labels(const Eigen::VectorXd& h) {
  return h.unaryExpr([](double v) { return v >= 0 ? 1.0 : -1.0; });
}

void require_parts(const ModelParts& parts, bool likelihood, const char* kind) {
  if (!parts.kernel || !parts.X_train || (likelihood && !parts.likelihood))
    throw ConfigError({}, std::string(kind) + " model needs its kernel" +
                              (likelihood ? ", likelihood" : "") + " and training inputs");
}

constexpr const char* kForms[] = {"prior", "cholesky", "inverse"};

// The gp_classifier columns from <h(x)> and the latent variance of eq 27: those two and the
// likelihood's predictions of y (binary: probability by eq 12, label by eq 13).
Predictions latent_columns(const Likelihood& lik, const Eigen::VectorXd& h,
                           const Eigen::VectorXd& var, const TargetQuery& query) {
  Predictions out;
  out.add("latent_mean", h);
  out.add("latent_variance", var);
  add_target_predictions(out, lik, h, var, query);
  return out;
}

}  // namespace

ClassifierModel::ClassifierModel(std::shared_ptr<const Kernel> kernel,
                                 std::shared_ptr<const Likelihood> lik, Eigen::MatrixXd X_train,
                                 Eigen::VectorXd slope, LatentVarianceForm variance)
    : kernel_(std::move(kernel)),
      likelihood_(std::move(lik)),
      X_train_(std::move(X_train)),
      slope_(std::move(slope)),
      variance_(std::move(variance)) {}

LatentVarianceForm LatentVarianceForm::of(const SiteSystem* sites) {
  LatentVarianceForm form;
  if (sites && sites->b_factor()) {
    form.kind = Kind::cholesky;
    form.sqrt_tau = sites->site_scale();
    form.matrix = *sites->b_factor();
  } else if (sites) {
    form.kind = Kind::inverse;
    form.matrix = sites->inverse_omega_plus_c();
  }
  return form;
}

Eigen::VectorXd LatentVarianceForm::variance(Eigen::MatrixXd& K,
                                             const Eigen::VectorXd& prior) const {
  Eigen::VectorXd v = prior;  // eq 27
  if (kind == Kind::cholesky) {
    // k^T S B^{-1} S k = |L^{-1} S k|^2 (one dtrsm).
    K = sqrt_tau.asDiagonal() * K;
    matrix.triangularView<Eigen::Lower>().solveInPlace(K);
    v -= K.colwise().squaredNorm().transpose();
  } else if (kind == Kind::inverse) {
    v -= (K.array() * (matrix * K).array()).colwise().sum().transpose().matrix();
  }
  return v.cwiseMax(0.0);
}

std::shared_ptr<const ClassifierModel> ClassifierModel::from_fit(const Problem& problem,
                                                                 const MeanFieldFit& fit,
                                                                 const SiteSystem* sites) {
  return std::make_shared<const ClassifierModel>(problem.kernel, problem.likelihood,
                                                 problem.data->X_train, fit.slope,
                                                 LatentVarianceForm::of(sites));
}

std::unique_ptr<ClassifierModel> ClassifierModel::read(ModelArchive& archive,
                                                       const ModelParts& parts) {
  require_parts(parts, true, "gp_classifier");
  const Eigen::Index n = parts.X_train->rows();
  LatentVarianceForm form;
  const std::string& kind = archive.text("posterior/latent_variance");
  if (kind == "cholesky") {
    form.kind = LatentVarianceForm::Kind::cholesky;
    form.sqrt_tau = archive.vector("posterior/sqrt_tau", n);
    form.matrix = archive.take_cholesky_factor("posterior/cholesky_lower", n);
  } else if (kind == "inverse") {
    form.kind = LatentVarianceForm::Kind::inverse;
    form.matrix = archive.take_matrix("posterior/omega_plus_c_inverse", n, n);
  } else if (kind != "prior") {
    throw archive.error("entry 'posterior/latent_variance' is '" + kind +
                        "', expected prior, cholesky or inverse");
  }
  return std::make_unique<ClassifierModel>(parts.kernel, parts.likelihood, *parts.X_train,
                                           archive.vector("posterior/t_alpha", n), std::move(form));
}

Predictions ClassifierModel::predict(const Eigen::MatrixXd& X, const TargetQuery& query) const {
  Eigen::VectorXd var(X.rows());
  const Eigen::VectorXd h =
      mean_field_in_blocks(*kernel_, X_train_, slope_, X,
                           [&](Eigen::Index start, const Eigen::MatrixXd& Xb, Eigen::MatrixXd& K) {
                             var.segment(start, Xb.rows()) = variance_.variance(
                                 K, kernel_->diagonal(Xb).array() + kernel_->diagonal_noise());
                           });
  return latent_columns(*likelihood_, h, var, query);
}

void ClassifierModel::write(ModelArchive& archive) const {
  archive.put("posterior/t_alpha", slope_);
  archive.put("posterior/latent_variance", std::string(kForms[static_cast<int>(variance_.kind)]));
  if (variance_.kind == LatentVarianceForm::Kind::cholesky) {
    archive.put("posterior/sqrt_tau", variance_.sqrt_tau);
    archive.put("posterior/cholesky_lower", variance_.matrix);
  } else if (variance_.kind == LatentVarianceForm::Kind::inverse) {
    archive.put("posterior/omega_plus_c_inverse", variance_.matrix);
  }
}

LowRankClassifierModel::LowRankClassifierModel(std::shared_ptr<const Kernel> kernel,
                                               std::shared_ptr<const Likelihood> lik,
                                               LowRankPredictor predictor)
    : kernel_(std::move(kernel)), likelihood_(std::move(lik)), predictor_(std::move(predictor)) {}

std::unique_ptr<LowRankClassifierModel> LowRankClassifierModel::read(ModelArchive& archive,
                                                                     const ModelParts& parts) {
  require_parts(parts, true, "gp_classifier");
  return std::make_unique<LowRankClassifierModel>(
      parts.kernel, parts.likelihood,
      LowRankPredictor::read(archive, "posterior/low_rank", parts.X_train->cols()));
}

Predictions LowRankClassifierModel::predict(const Eigen::MatrixXd& X,
                                            const TargetQuery& query) const {
  Eigen::VectorXd h, var;
  predictor_.predict(*kernel_, X, h, var);
  var.array() += kernel_->diagonal_noise();  // eq 27: C(x, x) includes v2
  return latent_columns(*likelihood_, h, var, query);
}

void LowRankClassifierModel::write(ModelArchive& archive) const {
  archive.put("posterior/latent_variance", std::string("low_rank"));
  predictor_.write(archive, "posterior/low_rank");
}

std::unique_ptr<Model> read_gp_classifier(ModelArchive& archive, const ModelParts& parts) {
  if (archive.has("posterior/latent_variance") &&
      archive.text("posterior/latent_variance") == "low_rank")
    return LowRankClassifierModel::read(archive, parts);
  return ClassifierModel::read(archive, parts);
}

SvmModel::SvmModel(std::shared_ptr<const Kernel> kernel, Eigen::MatrixXd X_train,
                   Eigen::VectorXd t_alpha)
    : kernel_(std::move(kernel)), X_train_(std::move(X_train)), t_alpha_(std::move(t_alpha)) {}

std::unique_ptr<SvmModel> SvmModel::read(ModelArchive& archive, const ModelParts& parts) {
  require_parts(parts, false, "svm_classifier");
  return std::make_unique<SvmModel>(parts.kernel, *parts.X_train,
                                    archive.vector("posterior/t_alpha", parts.X_train->rows()));
}

Predictions SvmModel::predict(const Eigen::MatrixXd& X) const {
  const Eigen::VectorXd h =
      mean_field_in_blocks(*kernel_, X_train_, t_alpha_, X,
                           [](Eigen::Index, const Eigen::MatrixXd&, Eigen::MatrixXd&) {});
  Predictions out;
  out.add("decision", h);
  out.add("label", labels(h));
  return out;
}

void SvmModel::write(ModelArchive& archive) const { archive.put("posterior/t_alpha", t_alpha_); }

}  // namespace quench::latent_gp
