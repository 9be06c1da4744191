#include "exact_gp_regression.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "gp_regression_model.h"
#include "quench/cholesky.h"
#include "quench/errors.h"
#include "quench/memory_budget.h"
#include "regression_objectives.h"

namespace quench::gp_regression {

double observation_noise(const Problem& problem, const char* engine) {
  const auto noise = problem.likelihood->gaussian_noise_variance();
  if (!noise)
    throw ConfigError({},
                      std::string(engine) + " needs a Gaussian likelihood (closed-form algebra)");
  return *noise + problem.kernel->diagonal_noise();
}

ParamSchema regression_schema() {
  ParamSchema s;
  s.boolean("predictive_variance",
            "report test variances of y (latent variance + noise) instead of f", false);
  return s;
}

void add_test_outputs(Results& r, const Dataset& data, const Predictions& predictions,
                      bool predictive_variance) {
  r.vectors["test_mean"] = predictions.column("mean");
  r.vectors["test_variance"] =
      predictions.column(predictive_variance ? "predictive_variance" : "variance");
  if (data.y_test.size() != data.X_test.rows()) return;
  const Eigen::ArrayXd v = predictions.column("predictive_variance").array();
  const Eigen::ArrayXd e = (predictions.column("mean") - data.y_test).array();
  r.scalars["test_mse"] = e.square().mean();
  r.scalars["test_mean_log_predictive"] =
      (-0.5 * (2 * M_PI * v).log() - 0.5 * e.square() / v).mean();
}

ParamSchema ExactGpRegression::schema() { return regression_schema(); }

ExactGpRegression::ExactGpRegression(const Params& params)
    : predictive_variance_(params.boolean("predictive_variance")) {}

void ExactGpRegression::check(const Problem& problem, Eigen::Index) const {
  require_dense_memory(problem.data->X_train.rows(), 2, "exact_gp_regression");
}

Results ExactGpRegression::run(const Problem& problem) const {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& data = *problem.data;
  const Kernel& kernel = *problem.kernel;
  const double noise = observation_noise(problem, "exact_gp_regression");
  const Eigen::Index n = data.X_train.rows();

  // K + sigma^2 I = L L^T; alpha = (K + sigma^2 I)^{-1} y.
  Eigen::MatrixXd K = kernel.cross(data.X_train, data.X_train);
  Eigen::MatrixXd Ky = K;
  Ky.diagonal().array() += noise;
  const Cholesky chol(std::move(Ky), JitterPolicy{}, "K + sigma^2 I");
  Eigen::VectorXd alpha = chol.solve(data.y_train);

  Results r;
  r.vectors["train_mean"] = K * alpha;
  K.resize(0, 0);
  // Var f_i = [K - K A^{-1} K]_ii with A = K + s2 I; since K = A - s2 I this is
  // s2 - s2^2 [A^{-1}]_ii, which needs only diag(A^{-1}) (n^3/3 flops instead of n^3).
  r.vectors["train_variance"] =
      (noise - noise * noise * chol.inverse_diagonal().array()).cwiseMax(0.0).matrix();
  r.scalars["log_marginal_likelihood"] = -0.5 * data.y_train.dot(alpha) -
                                         0.5 * chol.log_determinant() -
                                         0.5 * static_cast<double>(n) * std::log(2 * M_PI);
  r.scalars["train_mse"] = (r.vectors["train_mean"] - data.y_train).squaredNorm() / n;
  r.scalars["noise_variance"] = noise;
  r.scalars["jitter"] = chol.jitter();
  if (data.X_test.rows() > 0 || problem.make_model) {
    const auto model = std::make_shared<const GpRegressionModel>(
        problem.kernel, data.X_train, std::move(alpha), chol.lower(), noise);
    if (data.X_test.rows() > 0) {
      const Predictions p = model->predict(data.X_test);
      add_test_outputs(r, data, p, predictive_variance_);
    }
    if (problem.make_model) r.model = model;
  }
  r.timings["fit"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

namespace {

// Kernel matrix between all evaluation inputs (training then test) and the training inputs,
// computed once; each retrain factorizes the block of the points it keeps.
class ResampledGp final : public ResampledModel {
 public:
  ResampledGp(const Problem& problem, double noise) : noise_(noise), y_(problem.data->y_train) {
    const Dataset& d = *problem.data;
    Eigen::MatrixXd X_eval(d.X_train.rows() + d.X_test.rows(), d.X_train.cols());
    X_eval << d.X_train, d.X_test;
    K_eval_ = problem.kernel->cross(X_eval, d.X_train);
  }

  bool kernel_expansion() const override { return true; }

  Eigen::VectorXd predict(const Eigen::VectorXd& weights,
                          Eigen::VectorXd* coefficients) const override {
    const Eigen::Index n = y_.size();
    if (weights.size() != n)
      throw NumericalError("exact_gp_regression", "weight vector has the wrong length");
    std::vector<Eigen::Index> kept;
    kept.reserve(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i)
      if (weights(i) > 0) kept.push_back(i);
    const auto m = static_cast<Eigen::Index>(kept.size());
    if (m == 0) {  // the prior mean
      if (coefficients) *coefficients = Eigen::VectorXd::Zero(n);
      return Eigen::VectorXd::Zero(K_eval_.rows());
    }
    // (K_AA + diag(sigma^2 / s_A)) alpha_A = y_A.
    Eigen::MatrixXd A(m, m);
    Eigen::VectorXd y(m);
    for (Eigen::Index b = 0; b < m; ++b) {
      const Eigen::Index j = kept[static_cast<std::size_t>(b)];
      for (Eigen::Index a = b; a < m; ++a) A(a, b) = K_eval_(kept[static_cast<std::size_t>(a)], j);
      A(b, b) += noise_ / weights(j);
      y(b) = y_(j);
    }
    const Cholesky chol(std::move(A), JitterPolicy{}, "bootstrap K + sigma^2/s");
    const Eigen::VectorXd alpha = chol.solve(y);
    Eigen::VectorXd alpha_full = Eigen::VectorXd::Zero(n);
    for (Eigen::Index b = 0; b < m; ++b) alpha_full(kept[static_cast<std::size_t>(b)]) = alpha(b);
    Eigen::VectorXd predictions = K_eval_ * alpha_full;
    if (coefficients) *coefficients = std::move(alpha_full);
    return predictions;
  }

 private:
  double noise_;
  Eigen::VectorXd y_;
  Eigen::MatrixXd K_eval_;
};

}  // namespace

std::unique_ptr<ResampledModel> ExactGpRegression::prepare_resampling(
    const Problem& problem) const {
  return std::make_unique<ResampledGp>(problem, observation_noise(problem, "exact_gp_regression"));
}

std::unique_ptr<HyperparameterObjective> ExactGpRegression::hyperparameter_objective(
    const Problem& problem, const std::string& name) const {
  return make_regression_objective(problem, name);
}

std::unique_ptr<Model> ExactGpRegression::read_model(ModelArchive& archive,
                                                     const ModelParts& parts) const {
  return GpRegressionModel::read(archive, parts);
}

}  // namespace quench::gp_regression
