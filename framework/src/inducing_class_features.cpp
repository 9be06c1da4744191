#include "quench/inducing_class_features.h"

#include <string>

#include "quench/class_kernels.h"
#include "quench/diagonal_plus_low_rank.h"
#include "quench/low_rank_prior.h"
#include "quench/model_archive.h"

namespace quench {

std::vector<const Eigen::MatrixXd*> InducingClassFeatures::pointers() const {
  std::vector<const Eigen::MatrixXd*> out;
  for (const Eigen::MatrixXd& u : features) out.push_back(&u);
  return out;
}

InducingClassFeatures inducing_class_features(const Kernel& kernel, const Eigen::MatrixXd& Z,
                                              const std::vector<Eigen::MatrixXd>& lower,
                                              LowRankForm form, const Eigen::MatrixXd& X) {
  const auto kernels = static_cast<Eigen::Index>(lower.size());
  InducingClassFeatures out{std::vector<Eigen::MatrixXd>(lower.size()),
                            Eigen::MatrixXd(X.rows(), kernels)};
  for (Eigen::Index k = 0; k < kernels; ++k) {
    const Kernel& part = class_kernel(kernel, k);
    Eigen::MatrixXd& u = out.features[static_cast<std::size_t>(k)];
    u = LowRankPrior::features(part, Z, lower[static_cast<std::size_t>(k)], X);
    out.residual.col(k).setConstant(part.diagonal_noise());
    if (form != LowRankForm::sor)
      out.residual.col(k) += (part.diagonal(X) - u.rowwise().squaredNorm()).cwiseMax(0.0);
  }
  return out;
}

namespace {

std::string factor_entry(Eigen::Index k, Eigen::Index kernels) {
  return "posterior/inducing_cholesky_lower" + (kernels > 0 ? "_" + std::to_string(k) : "");
}

}  // namespace

void put_inducing_factors(ModelArchive& archive, const Kernel& kernel,
                          const std::vector<Eigen::MatrixXd>& lower) {
  const Eigen::Index kernels = kernel_classes(kernel);
  for (std::size_t k = 0; k < lower.size(); ++k)
    archive.put(factor_entry(static_cast<Eigen::Index>(k), kernels), lower[k]);
}

std::vector<Eigen::MatrixXd> take_inducing_factors(ModelArchive& archive, const Kernel& kernel,
                                                   Eigen::Index m) {
  const Eigen::Index kernels = kernel_classes(kernel);
  std::vector<Eigen::MatrixXd> lower;
  for (Eigen::Index k = 0; k < distinct_kernels(kernel); ++k)
    lower.push_back(archive.take_cholesky_factor(factor_entry(k, kernels), m));
  return lower;
}

namespace {

template <class Matrix>
Eigen::MatrixXd class_products(
    const std::vector<const Matrix*>& U,
    const std::function<Eigen::VectorXd(Eigen::Index c, Eigen::Index e)>& weights,
    Eigen::Index classes, double diagonal) {
  using Vector = Eigen::Matrix<typename Matrix::Scalar, Eigen::Dynamic, 1>;
  const Eigen::Index m = U.front()->cols();
  Eigen::MatrixXd out(classes * m, classes * m);
  for (Eigen::Index c = 0; c < classes; ++c)
    for (Eigen::Index e = 0; e <= c; ++e) {
      const Vector w = weights(c, e).template cast<typename Matrix::Scalar>();
      Eigen::MatrixXd block =
          weighted_product(*of_class(U, c), w, *of_class(U, e)).template cast<double>();
      if (c == e) block.diagonal().array() += diagonal;
      out.block(c * m, e * m, m, m) = block;
      if (c != e) out.block(e * m, c * m, m, m) = block.transpose();
    }
  return out;
}

}  // namespace

Eigen::MatrixXd inducing_class_products(
    const std::vector<const Eigen::MatrixXd*>& U,
    const std::function<Eigen::VectorXd(Eigen::Index c, Eigen::Index e)>& weights,
    Eigen::Index classes, double diagonal) {
  return class_products(U, weights, classes, diagonal);
}

Eigen::MatrixXd inducing_class_products(
    const std::vector<const Eigen::MatrixXf*>& U,
    const std::function<Eigen::VectorXd(Eigen::Index c, Eigen::Index e)>& weights,
    Eigen::Index classes, double diagonal) {
  return class_products(U, weights, classes, diagonal);
}

namespace {

template <class Matrix>
Matrix class_covariances(const std::vector<const Matrix*>& features, const Matrix& P,
                         Eigen::Index classes) {
  const Eigen::Index n = features.front()->rows(), m = features.front()->cols();
  Matrix S(classes, classes * n);
  Matrix Y(n, m);
  for (Eigen::Index c = 0; c < classes; ++c)
    for (Eigen::Index k = 0; k <= c; ++k) {
      Y.noalias() = *of_class(features, c) * P.block(c * m, k * m, m, m);
      const auto s = Y.cwiseProduct(*of_class(features, k)).rowwise().sum().eval();
      for (Eigen::Index i = 0; i < n; ++i) {
        S(c, i * classes + k) = s(i);
        S(k, i * classes + c) = s(i);
      }
    }
  return S;
}

}  // namespace

Eigen::MatrixXd inducing_class_covariances(const std::vector<const Eigen::MatrixXd*>& features,
                                           const Eigen::MatrixXd& P, Eigen::Index classes) {
  return class_covariances(features, P, classes);
}

Eigen::MatrixXf inducing_class_covariances(const std::vector<const Eigen::MatrixXf*>& features,
                                           const Eigen::MatrixXf& P, Eigen::Index classes) {
  return class_covariances(features, P, classes);
}

}  // namespace quench
