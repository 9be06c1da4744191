#include "multiclass_model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <variant>

#include "quench/errors.h"

namespace quench::gp_classification {

namespace {

constexpr Eigen::Index kBlockRows = 512;  // new inputs per block (K(X_train, block) is N x 512)

std::string column(const char* name, Eigen::Index c) { return name + ("." + std::to_string(c)); }

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

const ClassLikelihood& require_class_likelihood(const Likelihood* likelihood,
                                                const std::string& who) {
  const ClassLikelihood* classes = likelihood ? likelihood->classes() : nullptr;
  if (!classes)
    throw ConfigError({}, who +
                              " needs a multi-class likelihood (likelihood: {plugin: "
                              "multinomial_probit}); for one-vs-rest over a binary likelihood "
                              "use the one_vs_rest engine");
  return *classes;
}

std::unique_ptr<MulticlassModel> MulticlassModel::read(ModelArchive& archive,
                                                       const ModelParts& parts) {
  if (!parts.kernel || !parts.likelihood || !parts.X_train)
    throw ConfigError({},
                      "multiclass_gp_classifier model needs its kernel, likelihood and "
                      "training inputs");
  const Eigen::Index n = parts.X_train->rows();
  Eigen::MatrixXd b = archive.matrix("posterior/mean_weights", n);
  ClassCoupling coupling;
  for (Eigen::Index c = 0; c < b.cols(); ++c)
    coupling.e.push_back(archive.take_matrix("posterior/coupling_" + std::to_string(c), n, n));
  coupling.m_lower = archive.take_cholesky_factor("posterior/m_lower", n);
  return std::make_unique<MulticlassModel>(parts.kernel, parts.likelihood, *parts.X_train,
                                           std::move(b), std::move(coupling));
}

ClassLatents MulticlassModel::latents(const Eigen::MatrixXd& X) const {
  const Eigen::Index m = X.rows(), classes = mean_weights_.cols();
  ClassLatents out{Eigen::MatrixXd(m, classes), Eigen::MatrixXd::Zero(classes, classes * m)};
  std::vector<Eigen::MatrixXd> z(static_cast<std::size_t>(classes));
  for (Eigen::Index start = 0; start < m; start += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, m - start);
    const Eigen::MatrixXd Xb = X.middleRows(start, rows);
    const Eigen::MatrixXd k = kernel_->cross(X_train_, Xb);
    out.mean.middleRows(start, rows).noalias() = k.transpose() * mean_weights_;
    // The prior variance includes the kernel's diagonal noise, as in eq 27 of 001.
    const Eigen::VectorXd prior = kernel_->diagonal(Xb).array() + kernel_->diagonal_noise();
    for (Eigen::Index c = 0; c < classes; ++c) {
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
  for (Eigen::Index c = 0; c < classes; ++c) out.add(column("latent_mean", c), f.mean.col(c));
  for (Eigen::Index c = 0; c < classes; ++c) {
    Eigen::VectorXd var(m);
    for (Eigen::Index j = 0; j < m; ++j) var(j) = f.covariance(c, j * classes + c);
    out.add(column("latent_variance", c), var);
  }
  for (Eigen::Index c = 0; c < classes; ++c) out.add(column("probability", c), probability.col(c));
  out.add("label", row_argmax(probability).cast<double>());
  return out;
}

void MulticlassModel::write(ModelArchive& archive) const {
  archive.put("posterior/mean_weights", mean_weights_);
  for (std::size_t c = 0; c < coupling_.e.size(); ++c)
    archive.put("posterior/coupling_" + std::to_string(c), coupling_.e[c]);
  archive.put("posterior/m_lower", coupling_.m_lower);
}

Eigen::VectorXi row_argmax(const Eigen::MatrixXd& values) {
  Eigen::VectorXi best(values.rows());
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    Eigen::Index c = 0;
    values.row(i).maxCoeff(&c);  // the first maximum
    best(i) = static_cast<int>(c);
  }
  return best;
}

Eigen::MatrixXd class_probabilities(const Predictions& p, Eigen::Index classes) {
  Eigen::MatrixXd out(p.values.rows(), classes);
  for (Eigen::Index c = 0; c < classes; ++c) out.col(c) = p.column(column("probability", c));
  return out;
}

namespace {

// Errors (argmax != label) and the mean log probability of the labels.
std::pair<Eigen::Index, double> score(const Eigen::VectorXi& y, const Eigen::MatrixXd& p) {
  const Eigen::VectorXi guess = row_argmax(p);
  Eigen::Index errors = 0;
  double log_p = 0.0;
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    errors += guess(i) != y(i);
    log_p += std::log(p(i, y(i)));
  }
  return {errors, y.size() > 0 ? log_p / static_cast<double>(y.size()) : 0.0};
}

}  // namespace

void add_class_test_outputs(Results& r, const Dataset& data, const Eigen::MatrixXd& probability) {
  r.matrices["test_probability"] = probability;
  r.vectors["test_class"] = row_argmax(probability).cast<double>();
  if (data.y_test.size() != probability.rows() || probability.rows() == 0) return;
  const auto [errors, log_p] =
      score(class_indices(data, DataPart::test, "multi-class classifier"), probability);
  r.scalars["test_errors"] = static_cast<double>(errors);
  r.scalars["test_error"] = static_cast<double>(errors) / static_cast<double>(probability.rows());
  r.scalars["test_log_predictive"] = log_p;
}

void add_class_loo_outputs(Results& r, const Eigen::VectorXi& y,
                           const Eigen::MatrixXd& probability) {
  const auto [errors, log_p] = score(y, probability);
  r.matrices["loo_probability"] = probability;
  r.scalars["loo_errors"] = static_cast<double>(errors);
  r.scalars["loo_error"] =
      y.size() > 0 ? static_cast<double>(errors) / static_cast<double>(y.size()) : 0.0;
  r.scalars["loo_log_predictive"] = log_p;
}

}  // namespace quench::gp_classification
