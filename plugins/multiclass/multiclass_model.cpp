#include "multiclass_model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <variant>

#include "quench/class_kernels.h"
#include "quench/errors.h"

namespace quench::multiclass {

namespace {

constexpr Eigen::Index kKernelBlockRows =
    512;  // new inputs per block (K(X_train, block) is N x 512)

}  // namespace

MulticlassModel::MulticlassModel(std::shared_ptr<const Kernel> kernel,
                                 std::shared_ptr<const Likelihood> lik, Eigen::MatrixXd X_train,
                                 Eigen::MatrixXd mean_weights, ClassCoupling coupling)
    : kernel_(std::move(kernel)),
      likelihood_(std::move(lik)),
      X_train_(std::move(X_train)),
      mean_weights_(std::move(mean_weights)),
      coupling_(std::move(coupling)) {
  require_class_likelihood(likelihood_.get(), "multiclass_gp_classifier");
}

std::shared_ptr<const MulticlassModel> MulticlassModel::from_fit(
    std::shared_ptr<const Kernel> kernel, std::shared_ptr<const Likelihood> lik,
    const Eigen::MatrixXd& X, const Eigen::VectorXi& y, const MulticlassFit& fit) {
  return std::make_shared<const MulticlassModel>(std::move(kernel), std::move(lik), X,
                                                 multiclass_mean_weights(y, fit),
                                                 std::get<ClassCoupling>(fit.posterior.coupling));
}

std::unique_ptr<MulticlassModel> MulticlassModel::read(ModelArchive& archive,
                                                       const ModelParts& parts) {
  if (!parts.kernel || !parts.likelihood || !parts.X_train)
    throw ConfigError({},
                      "multiclass_gp_classifier model needs its kernel, likelihood and "
                      "training inputs");
  const Eigen::Index n = parts.X_train->rows();
  Eigen::MatrixXd b = archive.matrix("posterior/mean_weights", n);
  if (const std::string why = class_kernels_mismatch(*parts.kernel, b.cols()); !why.empty())
    throw archive.error("entry 'posterior/mean_weights': " + why);
  ClassCoupling coupling;
  for (Eigen::Index c = 0; c < b.cols(); ++c)
    coupling.e.push_back(archive.take_matrix("posterior/coupling_" + std::to_string(c), n, n));
  coupling.m_lower = archive.take_cholesky_factor("posterior/m_lower", n);
  return std::make_unique<MulticlassModel>(parts.kernel, parts.likelihood, *parts.X_train,
                                           std::move(b), std::move(coupling));
}

ClassLatents MulticlassModel::latents(const Eigen::MatrixXd& X) const {
  const Eigen::Index m = X.rows(), classes = mean_weights_.cols();
  const bool per_class = kernel_classes(*kernel_) > 0;
  ClassLatents out{Eigen::MatrixXd(m, classes), Eigen::MatrixXd::Zero(classes, classes * m)};
  std::vector<Eigen::MatrixXd> z(static_cast<std::size_t>(classes));
  Eigen::MatrixXd k;
  Eigen::VectorXd prior;
  for (Eigen::Index start = 0; start < m; start += kKernelBlockRows) {
    const Eigen::Index rows = std::min(kKernelBlockRows, m - start);
    const Eigen::MatrixXd Xb = X.middleRows(start, rows);
    for (Eigen::Index c = 0; c < classes; ++c) {
      if (c == 0 || per_class) {  // K_c(X_train, block) and the prior variance at the block
        const Kernel& kernel = class_kernel(*kernel_, c);
        k = kernel.cross(X_train_, Xb);
        // The prior variance includes the kernel's diagonal noise, as in eq 27 of 001.
        prior = kernel.diagonal(Xb).array() + kernel.diagonal_noise();
      }
      out.mean.block(start, c, rows, 1).noalias() = k.transpose() * mean_weights_.col(c);
      Eigen::MatrixXd& zc = z[static_cast<std::size_t>(c)];
      zc.noalias() = coupling_.e[static_cast<std::size_t>(c)] * k;
      const Eigen::VectorXd within = prior - k.cwiseProduct(zc).colwise().sum().transpose();
      coupling_.m_lower.triangularView<Eigen::Lower>().solveInPlace(zc);
      for (Eigen::Index j = 0; j < rows; ++j)
        out.covariance(c, (start + j) * classes + c) = within(j);
    }
    for (Eigen::Index j = 0; j < rows; ++j)
      for (Eigen::Index c = 0; c < classes; ++c)
        for (Eigen::Index k2 = 0; k2 <= c; ++k2) {
          const double v =
              z[static_cast<std::size_t>(c)].col(j).dot(z[static_cast<std::size_t>(k2)].col(j));
          out.covariance(c, (start + j) * classes + k2) += v;
          if (k2 != c) out.covariance(k2, (start + j) * classes + c) += v;
        }
  }
  return out;
}

Predictions MulticlassModel::predict(const Eigen::MatrixXd& X) const {
  return class_predictions(require_class_likelihood(likelihood_.get(), kind()), latents(X));
}

Predictions class_predictions(const ClassLikelihood& lik, const ClassLatents& f) {
  const Eigen::Index m = f.mean.rows(), classes = f.mean.cols();
  Eigen::MatrixXd probability(m, classes);
  for (Eigen::Index j = 0; j < m; ++j)
    probability.row(j) =
        lik.predictive(f.mean.row(j).transpose(), f.covariance.middleCols(j * classes, classes))
            .transpose();
  Predictions out;
  for (Eigen::Index c = 0; c < classes; ++c) out.add(class_column("latent_mean", c), f.mean.col(c));
  for (Eigen::Index c = 0; c < classes; ++c) {
    Eigen::VectorXd var(m);
    for (Eigen::Index j = 0; j < m; ++j) var(j) = f.covariance(c, j * classes + c);
    out.add(class_column("latent_variance", c), var);
  }
  for (Eigen::Index c = 0; c < classes; ++c)
    out.add(class_column("probability", c), probability.col(c));
  out.add("label", row_argmax(probability).cast<double>());
  return out;
}

void MulticlassModel::write(ModelArchive& archive) const {
  archive.put("posterior/mean_weights", mean_weights_);
  for (std::size_t c = 0; c < coupling_.e.size(); ++c)
    archive.put("posterior/coupling_" + std::to_string(c), coupling_.e[c]);
  archive.put("posterior/m_lower", coupling_.m_lower);
}

}  // namespace quench::multiclass
