// Learnable hyperparameters of every kernel: analytic derivatives against finite differences,
// the fast contractions against the definition, the set/get round trip, the random Fourier
// features after a change, the matern closed forms, and the errors.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <variant>

#include <gtest/gtest.h>
#include <Eigen/Eigenvalues>

#include "kernels.h"
#include "quench/errors.h"

namespace quench::kernels::kernel_gradients_test {
namespace {

Eigen::MatrixXd random_matrix(int n, int d, unsigned seed, double spread = 1.0) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> z;
  Eigen::MatrixXd X(n, d);
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < d; ++l) X(i, l) = z(gen) * spread;
  return X;
}

using Values = std::map<std::string, ParamValue>;
using Factory = std::function<std::unique_ptr<Kernel>(const Params&)>;

struct Case {
  std::string name;
  ParamSchema schema;
  Factory make;
  Values values;
  std::vector<std::string> blocks;  // expected names, in flat order
};

const std::vector<double> kScales{0.8, 1.7, 2.5};

// Every kernel in every configuration form; amplitude 1.3, bias 0.2, noise 0.05 throughout.
std::vector<Case> cases() {
  const Values scalars{{"amplitude", 1.3}, {"bias", 0.2}, {"noise", 0.05}};
  const Values linear_scalars{{"bias", 0.2}, {"noise", 0.05}};
  auto with = [](Values v, const Values& more) {
    v.insert(more.begin(), more.end());
    return v;
  };
  const Values ard{{"length_scales", kScales}}, width{{"width", 1.9}},
      l2{{"l2", 3.0}, {"scaling", std::string("sqrt_variance")}};
  const std::vector<std::string> ls{"length_scales", "amplitude", "bias", "noise"},
      wd{"width", "amplitude", "bias", "noise"};
  auto with_block = [](std::vector<std::string> blocks, const char* name) {
    blocks.emplace_back(name);
    return blocks;
  };
  std::vector<Case> c{
      {"gaussian_ard", gaussian_schema(), make_gaussian, with(ard, scalars), ls},
      {"gaussian_width", gaussian_schema(), make_gaussian, with(width, scalars), wd},
      {"gaussian_l2_scaling", gaussian_schema(), make_gaussian, with(l2, scalars), ls},
      {"gaussian_weights", gaussian_schema(), make_gaussian,
       with({{"weights", std::vector<double>{0.4, 1.1, 0.3}}}, scalars), ls},
      {"linear_ard",
       linear_schema(),
       make_linear,
       with(ard, linear_scalars),
       {"length_scales", "bias", "noise"}},
      {"linear_width",
       linear_schema(),
       make_linear,
       with(width, linear_scalars),
       {"width", "bias", "noise"}},
      {"infinite_net_ard", infinite_net_schema(), make_infinite_net, with(ard, scalars), ls},
      {"infinite_net_width", infinite_net_schema(), make_infinite_net, with(width, scalars), wd},
      {"cauchy_ard", cauchy_schema(), make_cauchy, with(with(ard, scalars), {{"beta", 1.6}}), ls},
      {"cauchy_width", cauchy_schema(), make_cauchy, with(width, scalars), wd},
      {"matern_width", matern_schema(), make_matern, with(width, scalars), wd},
      {"periodic_ard", periodic_schema(), make_periodic,
       with(with(ard, scalars), {{"period", 1.3}}), with_block(ls, "period")},
      {"periodic_width", periodic_schema(), make_periodic,
       with(with(width, scalars), {{"period", 2.2}}), with_block(wd, "period")},
      {"rational_quadratic_ard", rational_quadratic_schema(), make_rational_quadratic,
       with(with(ard, scalars), {{"alpha", 0.7}}), with_block(ls, "alpha")},
      {"rational_quadratic_width", rational_quadratic_schema(), make_rational_quadratic,
       with(with(width, scalars), {{"alpha", 3.5}}), with_block(wd, "alpha")},
      {"constant", constant_schema(), make_constant, {{"value", 0.8}}, {"value"}},
      {"white", white_schema(), make_white, {{"noise", 0.05}}, {"noise"}}};
  for (double nu : {0.5, 1.5, 2.5})
    c.push_back({"matern_ard_" + std::to_string(nu), matern_schema(), make_matern,
                 with(with(ard, scalars), {{"nu", nu}}), ls});
  return c;
}

struct Built {
  std::unique_ptr<Kernel> kernel;
  Eigen::MatrixXd A, B;
};

Built build(const Case& c) {
  Built b{c.make(Params(c.schema, c.values)), random_matrix(7, 3, 11), random_matrix(5, 3, 12)};
  b.kernel->prepare(b.A);
  return b;
}

// The flat vector as (block, entry) pairs.
std::vector<std::pair<std::string, Eigen::Index>> entries(const Kernel& k) {
  std::vector<std::pair<std::string, Eigen::Index>> e;
  for (const Hyperparameter& h : k.hyperparameters())
    for (Eigen::Index i = 0; i < h.value.size(); ++i) e.emplace_back(h.name, i);
  return e;
}

bool has_block(const Case& c, const std::string& name) {
  return std::find(c.blocks.begin(), c.blocks.end(), name) != c.blocks.end();
}

// Bounds: scales and shapes (length_scales, width, period, alpha; scikit-learn's) [1e-5, 1e5],
// amplitude [1e-6, 1e6], the additive variances (bias, noise, constant value) [1e-10, 1e6].
TEST(KernelGradients, BlocksFollowTheConventions) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Built b = build(c);
    const auto blocks = b.kernel->hyperparameters();
    ASSERT_EQ(blocks.size(), c.blocks.size());
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const Hyperparameter& h = blocks[i];
      EXPECT_EQ(h.name, c.blocks[i]);
      EXPECT_TRUE(h.log_scale);
      EXPECT_EQ(h.is_list, h.name == "length_scales");
      EXPECT_EQ(h.value.size(), h.name == "length_scales" ? 3 : 1);
      const bool scale =
          h.name == "length_scales" || h.name == "width" || h.name == "period" || h.name == "alpha";
      const double lower = scale ? 1e-5 : h.name == "amplitude" ? 1e-6 : 1e-10;
      EXPECT_EQ(h.lower, lower);
      EXPECT_EQ(h.upper, scale ? 1e5 : 1e6);
      // A configured scalar is reported as given.
      if (h.value.size() == 1 && c.values.count(h.name)) {
        EXPECT_EQ(h.value(0), std::get<double>(c.values.at(h.name))) << h.name;
      }
    }
    // The noise, where there is one, is the configured 0.05; constant has none.
    ASSERT_EQ(has_block(c, "noise"), c.name != "constant");
    if (has_block(c, "noise")) {
      EXPECT_EQ(find_hyperparameter(blocks, "noise")->value(0), 0.05);
    }
  }
}

// Central differences with a relative step h = 1e-5 theta: the truncation error
// h^2 |d^3K/dtheta^3| / 6 ~ 1e-11 relative, the rounding error eps |K| / h ~ 1e-11 relative,
// both far below the 1e-6 tolerance (and around its optimum, eps^(1/3) ~ 6e-6).
TEST(KernelGradients, CrossDerivativeMatchesCentralDifferences) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    Built b = build(c);
    Kernel& k = *b.kernel;
    const auto flat = entries(k);
    for (std::size_t j = 0; j < flat.size(); ++j) {
      const auto& [name, i] = flat[j];
      SCOPED_TRACE(name + "[" + std::to_string(i) + "]");
      const Eigen::MatrixXd analytic = k.cross_derivative(b.A, b.B, Eigen::Index(j));
      const Eigen::VectorXd theta = find_hyperparameter(k.hyperparameters(), name)->value;
      const double h = 1e-5 * theta(i);
      Eigen::VectorXd shifted = theta;
      shifted(i) = theta(i) + h;
      k.set_hyperparameter(name, shifted);
      const Eigen::MatrixXd up = k.cross(b.A, b.B);
      shifted(i) = theta(i) - h;
      k.set_hyperparameter(name, shifted);
      const Eigen::MatrixXd down = k.cross(b.A, b.B);
      k.set_hyperparameter(name, theta);
      const Eigen::MatrixXd numeric = (up - down) / (2 * h);
      EXPECT_LE((numeric - analytic).cwiseAbs().maxCoeff(),
                1e-6 * analytic.cwiseAbs().maxCoeff() + 1e-13);
      if (name == "noise")
        EXPECT_EQ(analytic.cwiseAbs().maxCoeff(), 0.0);
      else
        EXPECT_GT(analytic.cwiseAbs().maxCoeff(), 1e-3);  // not trivially zero
    }
  }
}

// The fast contractions against the definition sum_ab W_ab dK_ab/dtheta_j: the same sums in
// another order, so they agree to rounding (1e-12 of the largest entry, norm-wise).
TEST(KernelGradients, FastContractionsMatchTheDefinition) {
  const Eigen::MatrixXd W = random_matrix(7, 5, 21);
  Eigen::MatrixXd S = random_matrix(7, 7, 22);
  S = (S + S.transpose()).eval();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Built b = build(c);
    const Kernel& k = *b.kernel;
    const Eigen::VectorXd fast = k.cross_derivative_contractions(b.A, b.B, W);
    const Eigen::VectorXd slow = k.Kernel::cross_derivative_contractions(b.A, b.B, W);
    ASSERT_EQ(fast.size(), slow.size());
    EXPECT_LE((fast - slow).cwiseAbs().maxCoeff(), 1e-12 * slow.cwiseAbs().maxCoeff());

    // Gram: the noise entry is trace W, the rest the same contraction over (A, A).
    const Eigen::VectorXd gram = k.gram_derivative_contractions(b.A, S);
    Eigen::VectorXd definition(gram.size());
    for (Eigen::Index j = 0; j < gram.size(); ++j)
      definition(j) = S.cwiseProduct(k.gram_derivative(b.A, j)).sum();
    EXPECT_LE((gram - definition).cwiseAbs().maxCoeff(), 1e-12 * definition.cwiseAbs().maxCoeff());
    const Eigen::Index noise = flat_offset(k.hyperparameters(), "noise");
    ASSERT_EQ(noise >= 0, has_block(c, "noise"));
    if (noise >= 0) {
      EXPECT_NEAR(gram(noise), S.trace(), 1e-12 * std::abs(S.trace()));
    }
  }
}

// |B| = 150: the fast contractions run over three blocks of columns (64, 64, 22), the shape
// parameters' (period, alpha) included.
TEST(KernelGradients, FastContractionsSpanColumnBlocks) {
  const Eigen::MatrixXd B = random_matrix(150, 3, 24), W = random_matrix(7, 150, 25);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Built b = build(c);
    const Kernel& k = *b.kernel;
    const Eigen::VectorXd fast = k.cross_derivative_contractions(b.A, B, W);
    const Eigen::VectorXd slow = k.Kernel::cross_derivative_contractions(b.A, B, W);
    ASSERT_EQ(fast.size(), slow.size());
    EXPECT_LE((fast - slow).cwiseAbs().maxCoeff(), 1e-12 * slow.cwiseAbs().maxCoeff());
  }
}

// The diagonal's contractions (inducing-point objectives) against the definition, one 1 x 1
// contraction per row: the same sums, so they agree to rounding.
TEST(KernelGradients, DiagonalContractionsMatchTheDefinition) {
  const Eigen::VectorXd w = random_matrix(7, 1, 23).col(0);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Built b = build(c);
    const Kernel& k = *b.kernel;
    const Eigen::VectorXd fast = k.diagonal_derivative_contractions(b.A, w);
    const Eigen::VectorXd slow = k.Kernel::diagonal_derivative_contractions(b.A, w);
    ASSERT_EQ(fast.size(), slow.size());
    EXPECT_LE((fast - slow).cwiseAbs().maxCoeff(), 1e-12 * slow.cwiseAbs().maxCoeff());
  }
}

// Inputs far from the origin (offset 1000, spread 1): the contraction's three terms are
// 1e6 times the result; centring keeps it to rounding of the differences.
TEST(KernelGradients, ContractionsSurviveAnInputOffset) {
  const Case c = cases().front();  // gaussian_ard
  auto k = c.make(Params(c.schema, c.values));
  const Eigen::MatrixXd A = random_matrix(7, 3, 31).array() + 1000.0,
                        B = random_matrix(5, 3, 32).array() + 1000.0;
  k->prepare(A);
  const Eigen::MatrixXd W = random_matrix(7, 5, 33);
  const Eigen::VectorXd fast = k->cross_derivative_contractions(A, B, W),
                        slow = k->Kernel::cross_derivative_contractions(A, B, W);
  EXPECT_LE((fast - slow).cwiseAbs().maxCoeff(), 1e-10 * slow.cwiseAbs().maxCoeff());
}

TEST(KernelGradients, SetHyperparameterRoundTrips) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    Built b = build(c);
    Kernel& k = *b.kernel;
    const Eigen::MatrixXd cross = k.cross(b.A, b.B), gram = k.gram(b.A);
    for (const Hyperparameter& h : k.hyperparameters()) {
      const Eigen::VectorXd value = (h.value.array() * 1.7 + 0.01).matrix();
      k.set_hyperparameter(h.name, value);
      EXPECT_EQ(find_hyperparameter(k.hyperparameters(), h.name)->value, value) << h.name;
    }
    // The kernel moves: across, and on the Gram matrix (white only there, through its noise).
    if (c.name != "white") {
      EXPECT_GT((k.cross(b.A, b.B) - cross).cwiseAbs().maxCoeff(), 1e-3);
    }
    EXPECT_GT((k.gram(b.A) - gram).cwiseAbs().maxCoeff(), 1e-3);
    // A later prepare() keeps the learned values.
    const auto learned = k.hyperparameters();
    k.prepare(b.A);
    for (const Hyperparameter& h : k.hyperparameters())
      EXPECT_EQ(h.value, find_hyperparameter(learned, h.name)->value) << h.name;
  }
}

TEST(KernelGradients, ConfiguredWeightsAreExposedAsLengthScales) {
  auto k =
      make_gaussian(Params(gaussian_schema(), {{"weights", std::vector<double>{0.25, 4.0, 0.0}}}));
  const Eigen::MatrixXd A = random_matrix(7, 3, 41), B = random_matrix(5, 3, 42);
  k->prepare(A);
  const Eigen::VectorXd l = k->hyperparameters().front().value;
  EXPECT_EQ(l(0), 2.0);
  EXPECT_EQ(l(1), 0.5);
  EXPECT_EQ(l(2), std::numeric_limits<double>::infinity());  // zero weight
  // The infinite scale has derivative 0 (no NaN), and setting the scales reproduces K.
  EXPECT_EQ(k->cross_derivative(A, B, 2).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_TRUE(k->cross_derivative_contractions(A, B, random_matrix(7, 5, 43)).allFinite());
  const Eigen::MatrixXd K = k->cross(A, B);
  k->set_hyperparameter("length_scales", l);
  EXPECT_EQ(k->cross(A, B), K);

  // l2 with scaling: w_l = 2 / (v_l l2), so l_l = sqrt(v_l l2 / 2).
  auto s =
      make_gaussian(Params(gaussian_schema(), {{"l2", 3.0}, {"scaling", std::string("variance")}}));
  s->prepare(A);
  const Eigen::VectorXd ls = s->hyperparameters().front().value;
  for (int d = 0; d < 3; ++d) {
    const double m = A.col(d).mean();
    const double v = (A.col(d).array() - m).square().sum() / 6.0;
    EXPECT_NEAR(ls(d), std::sqrt(v * 3.0 / 2.0), 1e-14 * ls(d));
  }
}

TEST(KernelGradients, RandomFourierFeaturesFollowLearnedValues) {
  const Eigen::MatrixXd X = random_matrix(6, 3, 51);
  auto gaussian = [&](const Values& extra) {
    Values v{{"amplitude", 1.3},
             {"bias", 0.2},
             {"random_features", std::int64_t{64}},
             {"feature_seed", std::int64_t{3}}};
    for (const auto& [key, value] : extra) v.insert_or_assign(key, value);
    auto k = make_gaussian(Params(gaussian_schema(), v));
    k->prepare(X);
    return k;
  };
  const Eigen::VectorXd learned = Eigen::Vector3d(0.5, 1.0, 3.0);
  const std::vector<double> learned_list{0.5, 1.0, 3.0};
  // Configured by length scales, and by l2 + scaling: both end at the learned scales.
  for (const Values& start : {Values{{"length_scales", kScales}},
                              Values{{"l2", 3.0}, {"scaling", std::string("sqrt_variance")}}}) {
    auto k = gaussian(start);
    const Eigen::MatrixXd before = k->feature_map()->features(X);
    k->set_hyperparameter("length_scales", learned);
    const Eigen::MatrixXd after = k->feature_map()->features(X);
    EXPECT_GT((after - before).cwiseAbs().maxCoeff(), 1e-3);
    EXPECT_TRUE(after == gaussian({{"length_scales", learned_list}})->feature_map()->features(X));
  }
  // The amplitude and the bias reach the map too.
  auto k = gaussian({{"length_scales", learned_list}});
  k->set_hyperparameter("amplitude", Eigen::VectorXd::Constant(1, 2.0));
  k->set_hyperparameter("bias", Eigen::VectorXd::Constant(1, 0.7));
  EXPECT_TRUE(k->feature_map()->features(X) ==
              gaussian({{"length_scales", learned_list}, {"amplitude", 2.0}, {"bias", 0.7}})
                  ->feature_map()
                  ->features(X));
}

// R&W eq 4.17 (and exp(-r) for nu = 1/2), written out per pair.
TEST(KernelGradients, MaternMatchesClosedForms) {
  const Eigen::MatrixXd A = random_matrix(7, 3, 61), B = random_matrix(5, 3, 62);
  for (double nu : {0.5, 1.5, 2.5}) {
    SCOPED_TRACE(nu);
    auto k = make_matern(
        Params(matern_schema(),
               {{"nu", nu}, {"length_scales", kScales}, {"amplitude", 1.3}, {"bias", 0.2}}));
    k->prepare(A);
    const Eigen::MatrixXd K = k->cross(A, B);
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 5; ++j) {
        double r2 = 0;
        for (int l = 0; l < 3; ++l) r2 += std::pow((A(i, l) - B(j, l)) / kScales[l], 2);
        const double r = std::sqrt(r2);
        const double f =
            nu == 0.5   ? std::exp(-r)
            : nu == 1.5 ? (1 + std::sqrt(3.0) * r) * std::exp(-std::sqrt(3.0) * r)
                        : (1 + std::sqrt(5.0) * r + 5 * r2 / 3) * std::exp(-std::sqrt(5.0) * r);
        EXPECT_NEAR(K(i, j), 1.3 * f + 0.2, 1e-13);
      }
    // Positive semi-definite Gram matrix of 40 points.
    const Eigen::MatrixXd X = random_matrix(40, 3, 63);
    const Eigen::MatrixXd G = k->cross(X, X);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(G);
    EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-10 * eig.eigenvalues().maxCoeff());
    // Exactly: the distance of a point to itself is 0, not rounding (which nu = 1/2 would
    // turn into sqrt(eps) through r = sqrt(D)).
    EXPECT_EQ(k->diagonal(X), G.diagonal());
  }
  EXPECT_THROW(make_matern(Params(matern_schema(), {{"nu", 1.0}})), ConfigError);
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no ConfigError";
}

TEST(KernelGradients, BadNamesSizesAndOrderAreRefused) {
  const Eigen::MatrixXd A = random_matrix(7, 3, 71);
  auto k = make_cauchy(Params(cauchy_schema(), {{"length_scales", kScales}}));
  EXPECT_THROW(k->hyperparameters(), ConfigError);  // before prepare()
  k->prepare(A);
  const std::string unknown =
      message_of([&] { k->set_hyperparameter("beta", Eigen::VectorXd::Ones(1)); });
  EXPECT_NE(unknown.find("length_scales, amplitude, bias, noise"), std::string::npos) << unknown;
  const std::string size =
      message_of([&] { k->set_hyperparameter("length_scales", Eigen::VectorXd::Ones(2)); });
  EXPECT_NE(size.find("has 3 entries, got 2"), std::string::npos) << size;
  EXPECT_THROW(k->set_hyperparameter("noise", Eigen::VectorXd::Ones(3)), ConfigError);
  EXPECT_THROW(k->set_hyperparameter("length_scales", -Eigen::VectorXd::Ones(3)), ConfigError);
  EXPECT_THROW(k->cross_derivative(A, A, 6), ConfigError);
  auto linear = make_linear(Params(linear_schema(), {{"width", 2.0}}));
  linear->prepare(A);
  const std::string no_amplitude =
      message_of([&] { linear->set_hyperparameter("amplitude", Eigen::VectorXd::Ones(1)); });
  EXPECT_NE(no_amplitude.find("width, bias, noise"), std::string::npos) << no_amplitude;
  EXPECT_THROW(linear->set_hyperparameter("width", Eigen::VectorXd::Ones(3)), ConfigError);
}

TEST(KernelGradients, ShapeParametersAndSingleBlocksRefuseBadValues) {
  const Eigen::MatrixXd A = random_matrix(7, 3, 72);
  auto periodic = make_periodic(Params(periodic_schema(), {{"width", 2.0}}));
  periodic->prepare(A);
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    const std::string message = message_of(
        [&] { periodic->set_hyperparameter("period", Eigen::VectorXd::Constant(1, bad)); });
    EXPECT_NE(message.find("'period' must be finite and > 0"), std::string::npos) << message;
  }
  EXPECT_THROW(periodic->set_hyperparameter("period", Eigen::VectorXd::Ones(2)), ConfigError);
  EXPECT_THROW(periodic->cross_derivative(A, A, 5), ConfigError);  // width .. period is 0 .. 4
  const std::string unknown =
      message_of([&] { periodic->set_hyperparameter("alpha", Eigen::VectorXd::Ones(1)); });
  EXPECT_NE(unknown.find("width, amplitude, bias, noise, period"), std::string::npos) << unknown;

  auto constant = make_constant(Params(constant_schema(), {}));
  const std::string no_noise =
      message_of([&] { constant->set_hyperparameter("noise", Eigen::VectorXd::Ones(1)); });
  EXPECT_NE(no_noise.find("(it has: value)"), std::string::npos) << no_noise;
  EXPECT_THROW(constant->set_hyperparameter("value", -Eigen::VectorXd::Ones(1)), ConfigError);
  EXPECT_THROW(constant->cross_derivative(A, A, 1), ConfigError);
  auto white = make_white(Params(white_schema(), {}));
  EXPECT_THROW(white->set_hyperparameter("noise", Eigen::VectorXd::Ones(2)), ConfigError);
  EXPECT_THROW(white->cross_derivative(A, A, -1), ConfigError);
}

}  // namespace
}  // namespace quench::kernels::kernel_gradients_test
