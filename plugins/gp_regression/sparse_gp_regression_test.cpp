// Sparse (inducing-point) GP regression against the same model computed densely: the exact GP
// formulas on K~ formed explicitly, the exact engine when every input is an inducing input,
// the evidence gradient against central differences, the saved-and-loaded model against the
// in-memory one, and each resampled refit against a dense solve on the drawn points.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include "toy_models.h"

#include "exact_gp_regression.h"
#include "quench/low_rank_prior.h"
#include "quench/model_archive.h"
#include "sparse_gp_regression.h"
#include "sparse_gp_regression_model.h"

namespace quench::gp_regression::sparse_gp_regression_test {
namespace {

constexpr double kNoise = 0.05;

struct Fixture {
  Dataset data;
  Problem problem;
  std::shared_ptr<testing::ArdSquaredExponential> kernel;
  Fixture(Eigen::Index m, LowRankForm form, InducingMethod method = InducingMethod::kmeans,
          int n = 150, int n_test = 20) {
    std::mt19937 gen(5);
    std::normal_distribution<double> z;
    data.X_train.resize(n, 2);
    data.y_train.resize(n);
    data.X_test.resize(n_test, 2);
    data.y_test.resize(n_test);
    for (int i = 0; i < n; ++i) {
      data.X_train.row(i) << z(gen), z(gen);
      data.y_train(i) = std::sin(2 * data.X_train(i, 0)) + 0.2 * z(gen);
    }
    for (int i = 0; i < n_test; ++i) {
      data.X_test.row(i) << z(gen), z(gen);
      data.y_test(i) = std::sin(2 * data.X_test(i, 0));
    }
    kernel = std::make_shared<testing::ArdSquaredExponential>(Eigen::Vector2d(0.7, 1.6), 1.3, 0.0);
    problem.data = &data;
    problem.kernel = kernel;
    problem.likelihood = std::make_shared<testing::NoiseOnlyGaussian>(kNoise);
    InducingSpec spec;
    spec.count = m;
    spec.method = method;
    spec.form = form;
    problem.inducing = std::make_shared<const InducingInputs>(
        select_inducing_inputs(*kernel, data.X_train, spec, 11));
  }
};

SparseGpRegression sparse_engine() {
  return SparseGpRegression(Params(SparseGpRegression::schema(), {}));
}

double relative(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).norm() / b.norm();
}

// The dense GP with prior K~ and cross-covariance Q_xn = u(x)^T U^T: the engine's algebra in
// another order (Woodbury vs an N x N solve), so round-off only (1e-9 relative).
TEST(SparseGpRegression, EqualsTheDenseGpOnTheSameLowRankPrior) {
  for (LowRankForm form : {LowRankForm::fitc, LowRankForm::vfe, LowRankForm::sor}) {
    SCOPED_TRACE(to_string(form));
    Fixture f(25, form);
    const Results r = sparse_engine().run(f.problem);
    const LowRankPrior prior(*f.kernel, f.data.X_train, *f.problem.inducing);
    const Eigen::MatrixXd Kt = prior.dense();
    Eigen::MatrixXd C = Kt;
    C.diagonal().array() += kNoise;
    const Eigen::LLT<Eigen::MatrixXd> llt(C);
    const Eigen::VectorXd alpha = llt.solve(f.data.y_train);
    EXPECT_LT(relative(r.vectors.at("train_mean"), Kt * alpha), 1e-9);
    const Eigen::VectorXd train_var = (Kt - Kt * llt.solve(Kt)).diagonal();
    EXPECT_LT(relative(r.vectors.at("train_variance"), train_var), 1e-9);
    const double logdet = 2 * Eigen::MatrixXd(llt.matrixL()).diagonal().array().log().sum();
    double lml = -0.5 * f.data.y_train.dot(alpha) - 0.5 * logdet -
                 0.5 * static_cast<double>(alpha.size()) * std::log(2 * M_PI);
    if (form == LowRankForm::vfe) {  // Titsias' trace term
      lml -= 0.5 / kNoise * prior.residual_variance().sum();
      EXPECT_NEAR(r.scalars.at("log_marginal_likelihood_bound"), lml, 1e-9 * std::abs(lml));
    } else {
      EXPECT_NEAR(r.scalars.at("log_marginal_likelihood"), lml, 1e-9 * std::abs(lml));
    }
    const Eigen::MatrixXd Qxn = prior.features(f.data.X_test) * prior.factor().transpose();
    EXPECT_LT(relative(r.vectors.at("test_mean"), Qxn * alpha), 1e-9);
    Eigen::VectorXd prior_var = f.kernel->diagonal(f.data.X_test);
    if (form == LowRankForm::sor) prior_var = prior.features(f.data.X_test).rowwise().squaredNorm();
    const Eigen::VectorXd test_var = prior_var - (Qxn * llt.solve(Qxn.transpose())).diagonal();
    EXPECT_LT(relative(r.vectors.at("test_variance"), test_var), 1e-9);
  }
}

// M = N, every training input an inducing input: Q = K up to the jitter on K_mm (1e-8 of the
// prior variance), whose effect on the fit is of that order times the condition of K + s2 I
// (~1/s2 = 20): 1e-5 leaves a wide margin while still catching any missing term.
TEST(SparseGpRegression, AllInputsAsInducingInputsGiveTheExactGp) {
  for (LowRankForm form : {LowRankForm::fitc, LowRankForm::vfe}) {
    SCOPED_TRACE(to_string(form));
    Fixture f(60, form, InducingMethod::random, 60, 10);
    const Results sparse = sparse_engine().run(f.problem);
    const Results exact = ExactGpRegression(Params(ExactGpRegression::schema(), {})).run(f.problem);
    for (const char* v : {"train_mean", "train_variance", "test_mean", "test_variance"})
      EXPECT_LT(relative(sparse.vectors.at(v), exact.vectors.at(v)), 1e-5) << v;
    const double lml = exact.scalars.at("log_marginal_likelihood");
    const char* key =
        form == LowRankForm::vfe ? "log_marginal_likelihood_bound" : "log_marginal_likelihood";
    EXPECT_NEAR(sparse.scalars.at(key), lml, 1e-5 * std::abs(lml));
  }
}

// Central differences with relative step 1e-4: truncation ~1e-8 relative, round-off ~1e-12 /
// 1e-4; the objective is rebuilt at each point with the same inducing inputs.
TEST(SparseGpRegression, EvidenceGradientMatchesCentralDifferences) {
  for (LowRankForm form : {LowRankForm::fitc, LowRankForm::vfe, LowRankForm::sor}) {
    SCOPED_TRACE(to_string(form));
    Fixture f(20, form);
    f.kernel->set_hyperparameter("noise", Eigen::VectorXd::Constant(1, 0.01));
    auto objective = sparse_engine().hyperparameter_objective(f.problem, "evidence");
    testing::NoiseOnlyGaussian likelihood(kNoise);
    const ObjectiveValue at = objective->evaluate(*f.kernel, likelihood);
    ASSERT_EQ(at.status.code, RunStatus::ok) << at.status.message;
    const auto blocks = f.kernel->hyperparameters();
    const Eigen::Index nk = flat_size(blocks);
    ASSERT_EQ(at.gradient.size(), nk + 1);
    Eigen::Index j = 0;
    for (const Hyperparameter& h : blocks)
      for (Eigen::Index c = 0; c < h.value.size(); ++c, ++j) {
        const double step = 1e-4 * h.value(c);
        double v[2];
        for (int s = 0; s < 2; ++s) {
          Eigen::VectorXd x = h.value;
          x(c) += s == 0 ? step : -step;
          f.kernel->set_hyperparameter(h.name, x);
          v[s] = objective->evaluate(*f.kernel, likelihood).value;
        }
        f.kernel->set_hyperparameter(h.name, h.value);
        const double fd = (v[0] - v[1]) / (2 * step);
        EXPECT_NEAR(at.gradient(j), fd, 1e-6 * std::max(1.0, std::abs(fd))) << h.name << c;
      }
    const double step = 1e-4 * kNoise;
    testing::NoiseOnlyGaussian up(kNoise + step), down(kNoise - step);
    const double fd =
        (objective->evaluate(*f.kernel, up).value - objective->evaluate(*f.kernel, down).value) /
        (2 * step);
    EXPECT_NEAR(at.gradient(nk), fd, 1e-6 * std::max(1.0, std::abs(fd)));
  }
}

// The model written to an archive and read back predicts the same bits as the engine's own
// test outputs (the same operations on the same numbers).
TEST(SparseGpRegression, SavedModelPredictsAsTheRun) {
  Fixture f(25, LowRankForm::fitc);
  f.problem.make_model = true;
  const Results r = sparse_engine().run(f.problem);
  ASSERT_TRUE(r.model);
  ModelArchive archive;
  r.model->write(archive);
  EXPECT_EQ(archive.matrix("posterior/inducing_inputs").rows(), 25);  // O(M^2), not O(N)
  EXPECT_FALSE(archive.has("posterior/alpha"));
  const auto loaded = SparseGpRegressionModel::read(
      archive, {f.problem.kernel, f.problem.likelihood, nullptr, &f.data.X_train});
  const Predictions p = loaded->predict(f.data.X_test);
  EXPECT_EQ(p.column("mean"), r.vectors.at("test_mean"));
  EXPECT_EQ(p.column("variance"), r.vectors.at("test_variance"));
  archive.put("posterior/form", std::string("dtc"));
  EXPECT_THROW(SparseGpRegressionModel::read(
                   archive, {f.problem.kernel, f.problem.likelihood, nullptr, &f.data.X_train}),
               ModelFileError);
}

// A refit with occupations s against the dense GP with prior K~ on the drawn points and noise
// sigma^2 / s_i (Woodbury against an |D| x |D| solve): round-off only.
TEST(SparseGpRegression, ResampledRefitEqualsTheDenseRefit) {
  Fixture f(25, LowRankForm::fitc);
  const auto model = sparse_engine().prepare_resampling(f.problem);
  const Eigen::Index n = f.data.X_train.rows();
  Eigen::VectorXd s = Eigen::VectorXd::Zero(n);
  std::mt19937 gen(9);
  std::poisson_distribution<int> poisson(1.0);
  for (Eigen::Index i = 0; i < n; ++i) s(i) = poisson(gen);
  const Eigen::VectorXd got = model->predict(s);
  const LowRankPrior prior(*f.kernel, f.data.X_train, *f.problem.inducing);
  const Eigen::MatrixXd Kt = prior.dense();
  std::vector<Eigen::Index> D;
  for (Eigen::Index i = 0; i < n; ++i)
    if (s(i) > 0) D.push_back(i);
  const auto k = static_cast<Eigen::Index>(D.size());
  Eigen::MatrixXd C(k, k);
  Eigen::VectorXd yD(k);
  for (Eigen::Index a = 0; a < k; ++a) {
    for (Eigen::Index b = 0; b < k; ++b) C(a, b) = Kt(D[a], D[b]);
    C(a, a) += kNoise / s(D[a]);
    yD(a) = f.data.y_train(D[a]);
  }
  const Eigen::VectorXd alphaD = C.llt().solve(yD);
  Eigen::VectorXd alpha = Eigen::VectorXd::Zero(n);
  for (Eigen::Index a = 0; a < k; ++a) alpha(D[a]) = alphaD(a);
  const Eigen::MatrixXd Qxn = prior.features(f.data.X_test) * prior.factor().transpose();
  EXPECT_LT(relative(got.head(n), Kt * alpha), 1e-9);
  EXPECT_LT(relative(got.tail(f.data.X_test.rows()), Qxn * alpha), 1e-9);
  // Kept as a kernel expansion over the inducing inputs (mc_bootstrap's model): K(x, Z) b gives
  // the refit at new inputs (one triangular solve apart: round-off).
  ASSERT_TRUE(model->kernel_expansion());
  ASSERT_NE(model->expansion_inputs(), nullptr);
  Eigen::VectorXd b;
  const Eigen::VectorXd again = model->predict(s, &b);
  ASSERT_EQ(b.size(), f.problem.inducing->Z.rows());
  EXPECT_LT(relative(f.kernel->cross(f.data.X_test, *model->expansion_inputs()) * b,
                     again.tail(f.data.X_test.rows())),
            1e-9);
}

TEST(SparseGpRegression, NeedsInducingInputs) {
  Fixture f(10, LowRankForm::fitc);
  f.problem.inducing.reset();
  EXPECT_THROW(sparse_engine().run(f.problem), ConfigError);
}

}  // namespace
}  // namespace quench::gp_regression::sparse_gp_regression_test
