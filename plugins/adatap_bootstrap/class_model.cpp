#include "class_model.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "quench/class_kernels.h"
#include "quench/class_likelihood.h"
#include "quench/class_results.h"
#include "quench/errors.h"
#include "quench/model_archive.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// New inputs per block of eq M9 (its products are CN x C rows).
constexpr Index kClassBlockRows = 256;

const char* rule_name(ClassRule::Kind kind) {
  switch (kind) {
    case ClassRule::Kind::degree5:
      return "degree5";
    case ClassRule::Kind::product:
      return "product";
    case ClassRule::Kind::degree3:
      break;
  }
  return "degree3";
}

}  // namespace

ClassBootstrapModel::ClassBootstrapModel(std::shared_ptr<const Likelihood> likelihood,
                                         Index classes, ClassRule rule, double expected_sample_size)
    : likelihood_(std::move(likelihood)),
      classes_(classes),
      rule_(rule),
      expected_sample_size_(expected_sample_size) {
  require_class_likelihood(likelihood_.get(), "a multi-class bootstrap model");
}

void ClassBootstrapModel::write_rule(ModelArchive& archive) const {
  archive.put("posterior/cubature", std::string(rule_name(rule_.kind)));
  archive.put("posterior/cubature_nodes", static_cast<std::int64_t>(rule_.nodes));
  archive.put("posterior/expected_sample_size", expected_sample_size_);
}

ClassRule ClassBootstrapModel::read_rule(ModelArchive& archive) {
  const std::string& name = archive.text("posterior/cubature");
  ClassRule rule;
  rule.kind = name == "degree5"   ? ClassRule::Kind::degree5
              : name == "product" ? ClassRule::Kind::product
                                  : ClassRule::Kind::degree3;
  if (name != rule_name(rule.kind))
    throw archive.error("posterior/cubature: unknown rule '" + name + "'");
  rule.nodes = static_cast<int>(archive.integer("posterior/cubature_nodes"));
  if (rule.nodes < 2 || rule.nodes > 200)
    throw archive.error("posterior/cubature_nodes: out of [2, 200]");
  return rule;
}

AdatapClassModel::AdatapClassModel(std::shared_ptr<const Kernel> kernel,
                                   std::shared_ptr<const Likelihood> likelihood, MatrixXd X_train,
                                   ClassSolution&& sites, ClassRule rule,
                                   double expected_sample_size)
    : ClassBootstrapModel(std::move(likelihood), sites.gamma.cols(), rule, expected_sample_size),
      kernel_(std::move(kernel)),
      X_train_(std::move(X_train)) {
  sites_.G = std::move(sites.G);
  sites_.dl = std::move(sites.dl);
  sites_.lam = std::move(sites.lam);
  sites_.gamma = std::move(sites.gamma);
  sites_.m = std::move(sites.m);
}

std::unique_ptr<AdatapClassModel> AdatapClassModel::read(ModelArchive& archive,
                                                         const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train || !parts.likelihood)
    throw ConfigError({},
                      "an adatap_multiclass model needs its kernel, likelihood and training "
                      "inputs");
  const Index n = parts.X_train->rows();
  const MatrixXd& gamma = archive.matrix("posterior/gamma", n);
  const Index c = gamma.cols();
  if (const std::string why = class_kernels_mismatch(*parts.kernel, c); !why.empty())
    throw archive.error("entry 'posterior/gamma': " + why);
  ClassSolution s;
  s.gamma = gamma;
  s.m = archive.matrix("posterior/mean", n, c);
  s.dl = archive.matrix("posterior/delta_lambda", c, c * n);
  s.lam = archive.matrix("posterior/lambda", c, c * n);
  s.G = archive.take_matrix("posterior/G", c * n, c * n);
  const ClassRule rule = read_rule(archive);
  return std::make_unique<AdatapClassModel>(parts.kernel, parts.likelihood, *parts.X_train,
                                            std::move(s), rule,
                                            archive.real("posterior/expected_sample_size"));
}

ClassPredictive AdatapClassModel::latents(const MatrixXd& X) const {
  const Index m = X.rows(), c = sites_.gamma.cols();
  ClassPredictive out{MatrixXd(m, c), MatrixXd(c, c * m), MatrixXd(c, c * m)};
  for (Index start = 0; start < m; start += kClassBlockRows) {
    const Index rows = std::min(kClassBlockRows, m - start);
    const MatrixXd Xb = X.middleRows(start, rows);
    // Each class's kernel (one when shared); the prior variance with the kernel's diagonal
    // noise, as the fit's Gram matrices have it (0: check() refuses noise on the kernel).
    std::vector<MatrixXd> kx;
    std::vector<VectorXd> kxx;
    for (Index k = 0; k < distinct_kernels(*kernel_); ++k) {
      const Kernel& kernel = class_kernel(*kernel_, k);
      kx.push_back(kernel.cross(X_train_, Xb));
      kxx.push_back(kernel.diagonal(Xb).array() + kernel.diagonal_noise());
    }
    const ClassPredictive p = class_predictive(sites_, kx, kxx);
    out.mean.middleRows(start, rows) = p.mean;
    out.within.middleCols(start * c, rows * c) = p.within;
    out.spread.middleCols(start * c, rows * c) = p.spread;
  }
  return out;
}

Predictions ClassBootstrapModel::predict(const MatrixXd& X) const {
  return predictions(latents(X));
}

Predictions ClassBootstrapModel::predictions(const ClassPredictive& p) const {
  const ClassLikelihood& likelihood = require_class_likelihood(likelihood_.get(), kind());
  const Index m = p.mean.rows(), c = classes_;
  const ClassQuadrature fine = fine_class_quadrature(VectorXd::Ones(1), c, rule_);
  MatrixXd mean(m, c), variance(m, c);
  for (Index x = 0; x < m; ++x) {  // eq M10
    const MatrixXd L = class_decoupling(-p.spread.middleCols(x * c, c));
    VectorXd pm, pv;
    averaged_class_probability(likelihood, p.mean.row(x).transpose(), L,
                               p.within.middleCols(x * c, c), fine.rule(L.cols(), 0), pm, pv);
    mean.row(x) = pm.transpose();
    variance.row(x) = pv.transpose();
  }
  Predictions out;
  for (Index k = 0; k < c; ++k) out.add(class_column("bootstrap_mean", k), p.mean.col(k));
  for (Index k = 0; k < c; ++k) out.add(class_column("probability", k), mean.col(k));
  for (Index k = 0; k < c; ++k) out.add(class_column("probability_variance", k), variance.col(k));
  out.add("label", row_argmax(mean).cast<double>());
  return out;
}

void AdatapClassModel::write(ModelArchive& archive) const {
  archive.put("posterior/G", sites_.G);
  archive.put("posterior/delta_lambda", sites_.dl);
  archive.put("posterior/lambda", sites_.lam);
  archive.put("posterior/gamma", sites_.gamma);
  archive.put("posterior/mean", sites_.m);
  write_rule(archive);
}

}  // namespace quench::adatap
