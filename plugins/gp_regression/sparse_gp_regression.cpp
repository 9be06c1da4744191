#include "sparse_gp_regression.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>

#include "exact_gp_regression.h"
#include "quench/errors.h"
#include "quench/low_rank_evidence.h"
#include "quench/low_rank_prior.h"
#include "sparse_gp_regression_model.h"
#include "sparse_regression_objective.h"

namespace quench::gp_regression {
namespace {

const InducingInputs& inducing_of(const Problem& problem) {
  if (!problem.inducing)
    throw ConfigError({},
                      "sparse_gp_regression needs inducing inputs (the pipeline's "
                      "'inducing:' block)");
  return *problem.inducing;
}

}  // namespace

ParamSchema SparseGpRegression::schema() { return regression_schema(); }

SparseGpRegression::SparseGpRegression(const Params& params)
    : predictive_variance_(params.boolean("predictive_variance")) {}

// The GP with prior K~ on the training inputs and noise sigma^2: with C = K~ + sigma^2 I and
// alpha = C^-1 y, the posterior mean at the training inputs is K~ alpha = y - sigma^2 alpha and
// its variance diag(K~ - K~ C^-1 K~) = sigma^2 - sigma^4 [C^-1]_ii (C - K~ = sigma^2 I); at new
// inputs the model's u(x) (sparse_gp_regression_model.h).
Results SparseGpRegression::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& data = *problem.data;
  const InducingInputs& inducing = inducing_of(problem);
  const double noise = observation_noise(problem, "sparse_gp_regression");
  const Eigen::Index n = data.X_train.rows();
  const LowRankPrior prior(*problem.kernel, data.X_train, inducing);
  const auto prior_built = std::chrono::steady_clock::now();
  const LowRankGaussianPosterior post =
      low_rank_gaussian_posterior(prior, data.y_train, Eigen::VectorXd::Constant(n, noise));
  const double trace_weight = inducing.form == LowRankForm::vfe ? 0.5 / noise : 0.0;
  const double residual_trace = prior.residual_variance().sum();

  Results r;
  r.vectors["train_mean"] = data.y_train - noise * post.alpha;
  r.vectors["train_variance"] =
      (noise - noise * noise * post.inverse_diagonal.array()).cwiseMax(0.0).matrix();
  r.scalars[inducing.form == LowRankForm::vfe ? "log_marginal_likelihood_bound"
                                              : "log_marginal_likelihood"] =
      post.log_density - trace_weight * residual_trace;
  r.scalars["train_mse"] = (r.vectors["train_mean"] - data.y_train).squaredNorm() / n;
  r.scalars["noise_variance"] = noise;
  r.scalars["inducing_count"] = static_cast<double>(prior.rank());
  r.scalars["inducing_jitter"] = prior.jitter();
  r.scalars["residual_variance_mean"] = residual_trace / static_cast<double>(n);
  if (data.X_test.rows() > 0 || problem.make_model) {
    const auto model = std::make_shared<const SparseGpRegressionModel>(
        problem.kernel, LowRankPredictor::of(prior, post), noise);
    if (data.X_test.rows() > 0) {
      const Predictions p = model->predict(data.X_test);
      add_test_outputs(r, data, p, predictive_variance_);
    }
    if (problem.make_model) r.model = model;
  }
  using seconds = std::chrono::duration<double>;
  r.timings["prior"] = seconds(prior_built - start).count();
  r.timings["fit"] = seconds(std::chrono::steady_clock::now() - start).count();
  return r;
}

namespace {

// One refit on resampled data with occupations s (docs/large_n.md, "Monte-Carlo reference"):
// the drawn set D, Phi = diag(Lambda_D + sigma^2 / s_D), B = I + U_D^T Phi^-1 U_D and
// alpha_D = Phi^-1 y_D - Phi^-1 U_D B^-1 U_D^T Phi^-1 y_D; the refit predicts K~ alpha at the
// training inputs (U (U_D^T alpha_D) + Lambda_D alpha_D on D) and u(x)^T U_D^T alpha_D at the
// test inputs. O(|D| M^2) per refit.
class ResampledSparseGp final : public ResampledModel {
 public:
  ResampledSparseGp(const Problem& problem, double noise)
      : noise_(noise), y_(problem.data->y_train) {
    const Dataset& d = *problem.data;
    const LowRankPrior prior(*problem.kernel, d.X_train, inducing_of(problem));
    U_ = prior.factor();
    Lambda_ = prior.diagonal_correction();
    U_test_ = prior.features(d.X_test);
    Z_ = prior.inducing_inputs();
    lower_ = prior.inducing_cholesky().lower();
  }

  // At a new input the refit is u(x)^T w = K(x, Z) L^-T w: a kernel expansion over Z with
  // coefficients b = L^-T w.
  bool kernel_expansion() const override { return true; }
  const Eigen::MatrixXd* expansion_inputs() const override { return &Z_; }

  Eigen::VectorXd predict(const Eigen::VectorXd& weights,
                          Eigen::VectorXd* coefficients) const override {
    const Eigen::Index n = y_.size(), m = U_.cols();
    if (weights.size() != n)
      throw NumericalError("sparse_gp_regression", "weight vector has the wrong length");
    std::vector<Eigen::Index> kept;
    for (Eigen::Index i = 0; i < n; ++i)
      if (weights(i) > 0) kept.push_back(i);
    const auto k = static_cast<Eigen::Index>(kept.size());
    Eigen::MatrixXd UD(k, m);  // rows of U scaled by Phi^-1/2
    Eigen::VectorXd inv_phi(k), yD(k);
    for (Eigen::Index b = 0; b < k; ++b) {
      const Eigen::Index i = kept[static_cast<std::size_t>(b)];
      inv_phi(b) = 1.0 / (Lambda_(i) + noise_ / weights(i));
      UD.row(b) = std::sqrt(inv_phi(b)) * U_.row(i);
      yD(b) = y_(i);
    }
    Eigen::MatrixXd B = Eigen::MatrixXd::Identity(m, m);
    B.selfadjointView<Eigen::Lower>().rankUpdate(UD.transpose());
    const Eigen::LLT<Eigen::MatrixXd> llt(B);
    if (llt.info() != Eigen::Success)
      throw NumericalError("sparse_gp_regression",
                           "refit: I + U_D^T Phi^-1 U_D is not positive "
                           "definite");
    // alpha_D = Phi^-1/2 r, r = (I - V B^-1 V^T) Phi^-1/2 y_D with V = Phi^-1/2 U_D (Woodbury),
    // and U_D^T alpha_D = V^T r.
    const Eigen::VectorXd ys = inv_phi.cwiseSqrt().cwiseProduct(yD);
    const Eigen::VectorXd r = ys - UD * llt.solve(UD.transpose() * ys);
    const Eigen::VectorXd alpha = inv_phi.cwiseSqrt().cwiseProduct(r);
    const Eigen::VectorXd w = UD.transpose() * r;
    Eigen::VectorXd out(n + U_test_.rows());
    out.head(n).noalias() = U_ * w;
    for (Eigen::Index b = 0; b < k; ++b) {
      const Eigen::Index i = kept[static_cast<std::size_t>(b)];
      out(i) += Lambda_(i) * alpha(b);
    }
    // (Without test inputs no product: BLAS refuses a 0-row matrix's leading dimension 0.)
    if (U_test_.rows() > 0) out.tail(U_test_.rows()).noalias() = U_test_ * w;
    if (coefficients) *coefficients = lower_.triangularView<Eigen::Lower>().transpose().solve(w);
    return out;
  }

 private:
  double noise_;
  Eigen::VectorXd y_;
  Eigen::MatrixXd U_, U_test_, Z_, lower_;
  Eigen::VectorXd Lambda_;
};

}  // namespace

std::unique_ptr<ResampledModel> SparseGpRegression::prepare_resampling(
    const Problem& problem) const {
  return std::make_unique<ResampledSparseGp>(problem,
                                             observation_noise(problem, "sparse_gp_regression"));
}

std::unique_ptr<HyperparameterObjective> SparseGpRegression::hyperparameter_objective(
    const Problem& problem, const std::string& name) const {
  if (name != "evidence")
    throw ConfigError({},
                      "sparse_gp_regression offers the objective 'evidence', not '" + name + "'");
  return make_sparse_evidence(problem.data->X_train, problem.data->y_train, inducing_of(problem));
}

std::unique_ptr<Model> SparseGpRegression::read_model(ModelArchive& archive,
                                                      const ModelParts& parts) const {
  return SparseGpRegressionModel::read(archive, parts);
}

}  // namespace quench::gp_regression
