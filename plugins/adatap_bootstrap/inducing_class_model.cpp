#include "inducing_class_model.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "quench/class_kernels.h"
#include "quench/errors.h"
#include "quench/model_archive.h"

namespace quench::adatap {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {
// New inputs per block (the features of a block are kFeatureBlockRows x M per kernel).
constexpr Index kFeatureBlockRows = 2048;
}  // namespace

InducingClassModel::InducingClassModel(std::shared_ptr<const Kernel> kernel,
                                       std::shared_ptr<const Likelihood> likelihood,
                                       MatrixXd inducing_inputs, std::vector<MatrixXd> lower,
                                       LowRankForm form, InducingClassWeights weights,
                                       Index classes, ClassRule rule, double expected_sample_size)
    : ClassBootstrapModel(std::move(likelihood), classes, rule, expected_sample_size),
      kernel_(std::move(kernel)),
      Z_(std::move(inducing_inputs)),
      lower_(std::move(lower)),
      form_(form),
      weights_(std::move(weights)) {}

std::unique_ptr<InducingClassModel> InducingClassModel::read(ModelArchive& archive,
                                                             const ModelParts& parts) {
  if (!parts.kernel || !parts.X_train || !parts.likelihood)
    throw ConfigError({},
                      "a sparse_adatap_multiclass model needs its kernel, likelihood and "
                      "training inputs");
  MatrixXd Z = archive.take_matrix("posterior/inducing_inputs", -1, parts.X_train->cols());
  const Index m = Z.rows();
  const std::string& name = archive.text("posterior/inducing_form");
  const std::optional<LowRankForm> form = low_rank_form_named(name);
  if (!form)
    throw archive.error("entry 'posterior/inducing_form' is '" + name + "', not fitc, vfe or sor");
  const MatrixXd mean = archive.take_matrix("posterior/inducing_mean", m);
  const Index c = mean.cols();
  if (const std::string why = class_kernels_mismatch(*parts.kernel, c); !why.empty())
    throw archive.error("entry 'posterior/inducing_mean': " + why);
  std::vector<MatrixXd> lower = take_inducing_factors(archive, *parts.kernel, m);
  InducingClassWeights w;
  w.mean = mean.reshaped();
  w.within = archive.take_matrix("posterior/inducing_covariance", c * m, c * m);
  w.spread = archive.take_matrix("posterior/inducing_spread", c * m, c * m);
  const ClassRule rule = read_rule(archive);
  return std::make_unique<InducingClassModel>(parts.kernel, parts.likelihood, std::move(Z),
                                              std::move(lower), *form, std::move(w), c, rule,
                                              archive.real("posterior/expected_sample_size"));
}

ClassPredictive InducingClassModel::latents(const MatrixXd& X) const {
  const Index n = X.rows(), c = classes();
  ClassPredictive out{MatrixXd(n, c), MatrixXd(c, c * n), MatrixXd(c, c * n)};
  for (Index start = 0; start < n; start += kFeatureBlockRows) {
    const Index rows = std::min(kFeatureBlockRows, n - start);
    const ClassPredictive p = inducing_class_predictive(
        weights_, inducing_class_features(*kernel_, Z_, lower_, form_, X.middleRows(start, rows)),
        c);
    out.mean.middleRows(start, rows) = p.mean;
    out.within.middleCols(start * c, rows * c) = p.within;
    out.spread.middleCols(start * c, rows * c) = p.spread;
  }
  return out;
}

void InducingClassModel::write(ModelArchive& archive) const {
  archive.put("posterior/inducing_inputs", Z_);
  archive.put("posterior/inducing_form", to_string(form_));
  put_inducing_factors(archive, *kernel_, lower_);
  archive.put("posterior/inducing_mean", MatrixXd(weights_.mean.reshaped(Z_.rows(), classes())));
  archive.put("posterior/inducing_covariance", weights_.within);
  archive.put("posterior/inducing_spread", weights_.spread);
  write_rule(archive);
}

}  // namespace quench::adatap
