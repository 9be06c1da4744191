// Sums, products and column subsets of kernels (quench/composite_kernel.h,
// quench/column_subset_kernel.h) against their parts computed separately, their derivatives
// against central differences, kernels built from records (quench/kernel_record.h), and a
// kernel per class (quench/class_kernels.h).
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "kernels.h"
#include "quench/class_kernels.h"
#include "quench/column_subset_kernel.h"
#include "quench/composite_kernel.h"
#include "quench/errors.h"
#include "quench/kernel_record.h"

namespace quench::composite_kernel_test {
namespace {

using Values = std::map<std::string, ParamValue>;

Eigen::MatrixXd random_inputs(int n, int d, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> z;
  Eigen::MatrixXd X(n, d);
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < d; ++l) X(i, l) = z(gen);
  return X;
}

std::shared_ptr<Kernel> gaussian(Values v) {
  return kernels::make_gaussian(Params(kernels::gaussian_schema(), std::move(v)));
}
std::shared_ptr<Kernel> matern(Values v) {
  return kernels::make_matern(Params(kernels::matern_schema(), std::move(v)));
}
std::shared_ptr<Kernel> linear(Values v) {
  return kernels::make_linear(Params(kernels::linear_schema(), std::move(v)));
}

double max_relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return ((a - b).array().abs() / (1e-300 + b.array().abs().max(1e-3))).maxCoeff();
}

// g(ARD, noise) + m(width) * l(ARD) on 3 inputs: a sum holding a product, every part learnable.
struct Nested {
  std::shared_ptr<Kernel> g = gaussian({{"length_scales", std::vector<double>{0.8, 1.7, 2.5}},
                                        {"amplitude", 1.3},
                                        {"bias", 0.2},
                                        {"noise", 0.05}});
  std::shared_ptr<Kernel> m = matern({{"width", 1.9}, {"amplitude", 0.7}, {"nu", 1.5}});
  std::shared_ptr<Kernel> l =
      linear({{"length_scales", std::vector<double>{1.1, 0.6, 2.0}}, {"bias", 0.4}});
  std::shared_ptr<KernelProduct> product =
      std::make_shared<KernelProduct>(std::vector<std::shared_ptr<Kernel>>{m, l});
  KernelSum sum{{g, product}};
  Eigen::MatrixXd A = random_inputs(7, 3, 11), B = random_inputs(5, 3, 12);
  Nested() { sum.prepare(A); }
};

TEST(CompositeKernel, SumIsTheSumOfItsParts) {
  Nested k;
  const Eigen::MatrixXd parts = k.g->cross(k.A, k.B) + k.product->cross(k.A, k.B);
  EXPECT_LE(max_relative(k.sum.cross(k.A, k.B), parts), 1e-14);
  EXPECT_LE(max_relative(k.sum.diagonal(k.A), k.g->diagonal(k.A) + k.product->diagonal(k.A)),
            1e-14);
  EXPECT_EQ(k.sum.diagonal_noise(), 0.05);
  EXPECT_LE(max_relative(k.sum.gram(k.A), k.g->gram(k.A) + k.product->gram(k.A)), 1e-14);
}

TEST(CompositeKernel, ProductIsTheElementwiseProductOfItsParts) {
  Nested k;
  const Eigen::MatrixXd parts = k.m->cross(k.A, k.B).cwiseProduct(k.l->cross(k.A, k.B));
  EXPECT_LE(max_relative(k.product->cross(k.A, k.B), parts), 1e-14);
  EXPECT_LE(
      max_relative(k.product->diagonal(k.A), k.m->diagonal(k.A).cwiseProduct(k.l->diagonal(k.A))),
      1e-14);
  EXPECT_EQ(k.product->diagonal_noise(), 0.0);
}

TEST(CompositeKernel, BlocksArePrefixedByTheirPart) {
  Nested k;
  std::vector<std::string> names;
  for (const Hyperparameter& h : k.sum.hyperparameters()) names.push_back(h.name);
  // The product's parts show no noise block: noise has no meaning there.
  const std::vector<std::string> expected{"0.length_scales", "0.amplitude",       "0.bias",
                                          "0.noise",         "1.0.width",         "1.0.amplitude",
                                          "1.0.bias",        "1.1.length_scales", "1.1.bias"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(k.sum.diagonal_noise_derivative(),
            (Eigen::VectorXd(10) << 0, 0, 0, 0, 0, 1, 0, 0, 0, 0).finished());

  k.sum.set_hyperparameter("1.0.width", Eigen::VectorXd::Constant(1, 0.9));
  EXPECT_EQ(find_hyperparameter(k.m->hyperparameters(), "width")->value(0), 0.9);
  k.sum.set_hyperparameter("0.noise", Eigen::VectorXd::Constant(1, 0.3));
  EXPECT_EQ(k.sum.diagonal_noise(), 0.3);
  for (const std::string bad : {"1.0.noise", "2.width", "width", "1.x.width", "-1.bias"})
    EXPECT_THROW(k.sum.set_hyperparameter(bad, Eigen::VectorXd::Constant(1, 1.0)), ConfigError)
        << bad;
}

TEST(CompositeKernel, ProductRefusesAPartWithNoise) {
  try {
    KernelProduct p({gaussian({{"noise", 0.1}}), matern({})});
    FAIL() << "a noisy part was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("part 0 of a product"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("white kernel"), std::string::npos) << e.what();
  }
  EXPECT_THROW(KernelSum(std::vector<std::shared_ptr<Kernel>>{}), ConfigError);
  EXPECT_THROW(KernelSum(std::vector<std::shared_ptr<Kernel>>{nullptr}), ConfigError);
}

// dK/dtheta_j against central differences of K on the natural scale of every entry, then the
// fast contractions against the definition, for `kernel` prepared on A.
void check_derivatives(Kernel& kernel, const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  const auto blocks = kernel.hyperparameters();
  Eigen::Index j = 0;
  for (const Hyperparameter& h : blocks) {
    for (Eigen::Index i = 0; i < h.value.size(); ++i, ++j) {
      SCOPED_TRACE(h.name + "[" + std::to_string(i) + "]");
      // Central differences; a forward one for an entry at 0 (bias, noise: K is linear there).
      const double x = h.value(i), step = 1e-6 * (x > 0 ? x : 1.0), back = x > 0 ? step : 0.0;
      auto at = [&](double v) {
        Eigen::VectorXd value = h.value;
        value(i) = v;
        kernel.set_hyperparameter(h.name, value);
        return std::pair{Eigen::MatrixXd(kernel.cross(A, B)), Eigen::VectorXd(kernel.diagonal(A))};
      };
      const auto [up, up_diagonal] = at(x + step);
      const auto [down, down_diagonal] = at(x - back);
      at(x);
      const Eigen::MatrixXd numeric = (up - down) / (step + back);
      const Eigen::MatrixXd analytic = kernel.cross_derivative(A, B, j);
      EXPECT_LE((analytic - numeric).cwiseAbs().maxCoeff(),
                1e-6 * std::max(1.0, numeric.cwiseAbs().maxCoeff()));
      const Eigen::VectorXd numeric_diagonal = (up_diagonal - down_diagonal) / (step + back);
      const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(A.rows(), 0.5, 1.5);
      EXPECT_NEAR(kernel.diagonal_derivative_contractions(A, w)(j), w.dot(numeric_diagonal),
                  1e-6 * std::max(1.0, numeric_diagonal.cwiseAbs().sum()));
    }
  }
  const Eigen::MatrixXd W = random_inputs(int(A.rows()), int(B.rows()), 13);
  const Eigen::VectorXd fast = kernel.cross_derivative_contractions(A, B, W);
  ASSERT_EQ(fast.size(), j);
  for (Eigen::Index k = 0; k < j; ++k)
    EXPECT_NEAR(fast(k), W.cwiseProduct(kernel.cross_derivative(A, B, k)).sum(),
                1e-12 * std::max(1.0, std::abs(fast(k))));
  // The Gram matrix's derivative adds I for the noise entries.
  const Eigen::MatrixXd S = W.topRows(B.rows()) + W.topRows(B.rows()).transpose();
  const Eigen::VectorXd gram = kernel.gram_derivative_contractions(B, S);
  for (Eigen::Index k = 0; k < j; ++k)
    EXPECT_NEAR(gram(k), S.cwiseProduct(kernel.gram_derivative(B, k)).sum(),
                1e-12 * std::max(1.0, std::abs(gram(k))));
}

TEST(CompositeKernel, NestedDerivativesMatchCentralDifferences) {
  Nested k;
  check_derivatives(k.sum, k.A, k.B);
}

TEST(CompositeKernel, ProductOfThreeDerivativesMatchCentralDifferences) {
  Nested k;
  KernelProduct three({k.g->diagonal_noise() ? gaussian({{"width", 0.6}}) : k.g, k.m, k.l});
  three.prepare(k.A);
  check_derivatives(three, k.A, k.B);
}

TEST(ColumnSubsetKernel, IsItsPartOnTheColumns) {
  const Eigen::MatrixXd A = random_inputs(6, 4, 21), B = random_inputs(3, 4, 22);
  const std::vector<Eigen::Index> columns{3, 1};
  auto part = gaussian({{"length_scales", std::vector<double>{0.7, 1.9}}, {"amplitude", 2.0}});
  ColumnSubsetKernel k(part, columns);
  k.prepare(A);
  const Eigen::MatrixXd As = A(Eigen::all, columns), Bs = B(Eigen::all, columns);
  EXPECT_EQ(k.cross(A, B), part->cross(As, Bs));
  EXPECT_EQ(k.hyperparameters().front().value.size(), 2);
  check_derivatives(k, A, B);
  EXPECT_THROW(k.cross(As, Bs), ConfigError);  // inputs of another width
  ColumnSubsetKernel beyond(gaussian({}), {4});
  EXPECT_THROW(beyond.prepare(A), ConfigError);
  EXPECT_THROW(ColumnSubsetKernel(gaussian({}), {1, 1}), ConfigError);
  EXPECT_THROW(ColumnSubsetKernel(gaussian({}), {}), ConfigError);
}

TEST(ColumnSubsetKernel, RandomFeaturesActOnTheColumnsOnly) {
  const Eigen::MatrixXd A = random_inputs(6, 3, 31);
  auto part = gaussian({{"width", 0.8}, {"random_features", std::int64_t{50}}});
  ColumnSubsetKernel k(part, {2, 0});
  k.prepare(A);
  ASSERT_NE(k.feature_map(), nullptr);
  const Eigen::MatrixXd As = A(Eigen::all, std::vector<Eigen::Index>{2, 0});
  EXPECT_LE(
      (k.feature_map()->features(A) - part->feature_map()->features(As)).cwiseAbs().maxCoeff(),
      1e-14);
  k.set_hyperparameter("width", Eigen::VectorXd::Constant(1, 2.5));  // the map follows
  EXPECT_LE(
      (k.feature_map()->features(A) - part->feature_map()->features(As)).cwiseAbs().maxCoeff(),
      1e-14);
}

// A sum's random Fourier features are its parts' side by side: the feature Gram matrix is the
// sum of the parts' (to rounding), and follows a learned value of a part.
TEST(KernelSum, RandomFeaturesOfASumAreThePartsSideBySide) {
  const Eigen::MatrixXd X = random_inputs(6, 3, 51);
  auto a = gaussian({{"width", 0.8}, {"amplitude", 2.0}, {"random_features", std::int64_t{40}}});
  auto b = gaussian({{"width", 3.0},
                     {"bias", 0.3},
                     {"random_features", std::int64_t{30}},
                     {"feature_seed", std::int64_t{7}}});
  KernelSum sum({a, b});
  sum.prepare(X);
  ASSERT_NE(sum.feature_map(), nullptr);
  EXPECT_EQ(sum.feature_map()->dimension(), 40 + 30 + 1);  // one constant feature for the biases
  auto gram = [&](const FeatureMap& m) {
    const Eigen::MatrixXd F = m.features(X);
    return Eigen::MatrixXd(F * F.transpose());
  };
  EXPECT_LE(
      max_relative(gram(*sum.feature_map()), gram(*a->feature_map()) + gram(*b->feature_map())),
      1e-13);
  sum.set_hyperparameter("0.amplitude", Eigen::VectorXd::Constant(1, 5.0));
  EXPECT_LE(
      max_relative(gram(*sum.feature_map()), gram(*a->feature_map()) + gram(*b->feature_map())),
      1e-13);
  KernelSum without({a, linear({})});
  without.prepare(X);
  EXPECT_EQ(without.feature_map(), nullptr);  // linear has no random features
}

// The kernels plugin's kernels by name, as the registry would give them.
class PluginSource final : public ComponentSource {
 public:
  std::shared_ptr<Component> create(
      Family, const std::string& plugin, const std::string&,
      const std::map<std::string, ParamValue>& params) const override {
    if (plugin == "gaussian") return gaussian(params);
    if (plugin == "matern") return matern(params);
    if (plugin == "linear") return linear(params);
    throw ConfigError({}, "no plugin '" + plugin + "'");
  }
};

ComponentRecord plugin_record(const std::string& plugin, Values params,
                              std::vector<std::string> columns = {}) {
  ComponentRecord r;
  r.plugin = plugin;
  r.params = std::move(params);
  r.columns = std::move(columns);
  return r;
}

ComponentRecord composite(const std::string& combine, std::vector<ComponentRecord> parts,
                          std::vector<std::string> columns = {}) {
  ComponentRecord r;
  r.combine = combine;
  r.parts = std::move(parts);
  r.columns = std::move(columns);
  return r;
}

TEST(KernelRecord, BuildsTheTreeItDescribes) {
  const ComponentRecord r = composite(
      "sum", {plugin_record("gaussian", {{"width", 0.5}}, {"b"}),
              composite("product",
                        {plugin_record("matern", {{"width", 2.0}}), plugin_record("linear", {})},
                        {"a", "c"})});
  EXPECT_EQ(describe_kernel(r), "gaussian[b] + (matern * linear)[a, c]");
  EXPECT_EQ(describe_kernel(composite("product", {composite("sum", {plugin_record("gaussian", {}),
                                                                    plugin_record("linear", {})}),
                                                  plugin_record("matern", {})})),
            "(gaussian + linear) * matern");
  const std::vector<std::string> names{"a", "b", "c"};
  auto built = build_kernel(r, PluginSource(), names);
  const Eigen::MatrixXd X = random_inputs(5, 3, 41);
  built->prepare(X);
  auto g = gaussian({{"width", 0.5}});
  auto m = matern({{"width", 2.0}});
  auto l = linear({});
  const Eigen::MatrixXd Xb = X.col(1), Xac = X(Eigen::all, std::vector<Eigen::Index>{0, 2});
  g->prepare(Xb);
  m->prepare(Xac);
  l->prepare(Xac);
  const Eigen::MatrixXd expected =
      g->cross(Xb, Xb) + m->cross(Xac, Xac).cwiseProduct(l->cross(Xac, Xac));
  EXPECT_LE(max_relative(built->cross(X, X), expected), 1e-14);

  try {
    build_kernel(plugin_record("gaussian", {}, {"year"}), PluginSource(), names);
    FAIL() << "an unknown column was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'year' is not an input (inputs: a, b, c)"),
              std::string::npos)
        << e.what();
  }
  ComponentRecord deep = plugin_record("gaussian", {});
  for (int i = 0; i <= kMaxKernelDepth; ++i) deep = composite("sum", {deep});
  EXPECT_THROW(build_kernel(deep, PluginSource(), names), ConfigError);
}

// A kernel per class (quench/class_kernels.h): part c's blocks as "c<c>.<name>", set through
// them, class c's kernel its part (a shared kernel for every class otherwise), the gradient part
// by part, and no covariance of its own; built from a record at the top only, without columns.
TEST(ClassKernels, IsItsPartsClassByClass) {
  auto g = gaussian({{"width", 0.5}});
  auto m = matern({{"width", 2.0}});
  ClassKernels k({g, m});
  const Eigen::MatrixXd X = random_inputs(6, 2, 43);
  k.prepare(X);
  EXPECT_EQ(k.classes(), 2);
  EXPECT_EQ(kernel_classes(k), 2);
  EXPECT_EQ(kernel_classes(*g), 0);
  EXPECT_EQ(&class_kernel(k, 1), m.get());
  EXPECT_EQ(&class_kernel(*g, 5), g.get());
  std::vector<std::string> names;
  for (const Hyperparameter& h : k.hyperparameters()) names.push_back(h.name);
  std::vector<std::string> expected;
  for (const auto& [c, part] : {std::pair{"c0.", g}, std::pair{"c1.", m}})
    for (const Hyperparameter& h : part->hyperparameters()) expected.push_back(c + h.name);
  EXPECT_EQ(names, expected);
  k.set_hyperparameter("c1.width", Eigen::VectorXd::Constant(1, 0.7));
  EXPECT_EQ(find_hyperparameter(m->hyperparameters(), "width")->value(0), 0.7);
  EXPECT_THROW(k.set_hyperparameter("1.width", Eigen::VectorXd::Constant(1, 1.0)), ConfigError);
  EXPECT_THROW(k.cross(X, X), std::logic_error);
  EXPECT_THROW(k.gram(X), std::logic_error);
  EXPECT_THROW(ClassKernels({g}), ConfigError);

  // The gradient of sum_c <W_c, K_c>: each part's contractions with its own W, one after the
  // other; with one kernel, the contraction with sum_c W_c.
  const Eigen::MatrixXd W0 = random_inputs(6, 6, 44), W1 = random_inputs(6, 6, 45);
  const Eigen::VectorXd a = g->gram_derivative_contractions(X, W0),
                        b = m->gram_derivative_contractions(X, W1);
  const Eigen::VectorXd both = class_gram_gradient(k, X, {W0, W1});
  ASSERT_EQ(both.size(), a.size() + b.size());
  EXPECT_EQ(both.head(a.size()), a);
  EXPECT_EQ(both.tail(b.size()), b);
  EXPECT_LE(max_relative(class_gram_gradient(*g, X, {W0, W1}),
                         g->gram_derivative_contractions(X, W0 + W1)),
            1e-14);

  const ComponentRecord r = composite(
      kPerClass, {plugin_record("gaussian", {{"width", 0.5}}, {"b"}),
                  composite("sum", {plugin_record("matern", {}), plugin_record("linear", {})})});
  EXPECT_EQ(describe_kernel(r), "per class: gaussian[b] | matern + linear");
  const std::vector<std::string> inputs{"a", "b"};
  const auto built = build_kernel(r, PluginSource(), inputs);
  EXPECT_EQ(kernel_classes(*built), 2);
  EXPECT_THROW(build_kernel(composite("sum", {r}), PluginSource(), inputs), ConfigError);
  EXPECT_THROW(build_kernel(composite(kPerClass, r.parts, {"a"}), PluginSource(), inputs),
               ConfigError);
}

}  // namespace
}  // namespace quench::composite_kernel_test
