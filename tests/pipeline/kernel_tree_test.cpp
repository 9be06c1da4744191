// Composite kernels in a pipeline (components.kernel: {sum: [...]}, or a list: a kernel per
// class): the tree as parsed and resolved, and every problem of one at its file:line:col, all
// at once.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "quench/kernel_record.h"
#include "test_util.h"

namespace quench {
namespace {

using testing::errors;
using testing::resolve;

TEST(kernel_tree, NestedSumsAndProductsResolvePartByPart) {
  const ResolvedPipeline r = resolve(R"(data: {file: d.csv}
components:
  kernel:
    sum:
      - {plugin: gaussian, l2: 4}
      - product:
          - {plugin: matern, nu: 2.5, columns: [year]}
          - matern
    columns: [year, month]
  likelihood: {plugin: gaussian}
engines: [exact_gp_regression]
)");
  EXPECT_EQ(r.components.count(Family::kernel), 0u);
  ASSERT_TRUE(r.kernel_tree);
  const ResolvedKernel& k = *r.kernel_tree;
  EXPECT_EQ(k.combine, "sum");
  EXPECT_EQ(k.columns, (std::vector<std::string>{"year", "month"}));
  ASSERT_EQ(k.parts.size(), 2u);
  EXPECT_EQ(k.parts[0].plugin.entry->info->name, "gaussian");
  EXPECT_EQ(k.parts[0].plugin.fixed.at("l2"), ParamValue(4.0));
  const ResolvedKernel& product = k.parts[1];
  EXPECT_EQ(product.combine, "product");
  ASSERT_EQ(product.parts.size(), 2u);
  EXPECT_EQ(product.parts[0].plugin.fixed.at("nu"), ParamValue(2.5));
  EXPECT_EQ(product.parts[0].columns, std::vector<std::string>{"year"});
  EXPECT_EQ(product.parts[1].plugin.entry->info->name, "matern");

  const ComponentRecord record = kernel_tree_record(k, std::nullopt);
  EXPECT_EQ(record.combine, "sum");
  EXPECT_EQ(record.parts[1].parts[0].plugin, "matern");
  EXPECT_EQ(record.parts[1].parts[0].version, "1.0");
}

TEST(kernel_tree, APluginOnColumnsIsATree) {
  const ResolvedPipeline r = resolve(R"(data: {file: d.csv}
components:
  kernel: {plugin: matern, columns: [x2], nu: 0.5}
  likelihood: gaussian
engines: [exact_gp_regression]
)");
  ASSERT_TRUE(r.kernel_tree);
  EXPECT_EQ(r.kernel_tree->combine, "");
  EXPECT_EQ(r.kernel_tree->plugin.fixed.at("nu"), ParamValue(0.5));
  EXPECT_EQ(r.kernel_tree->columns, std::vector<std::string>{"x2"});
}

TEST(kernel_tree, EveryProblemAtItsPosition) {
  // Parse problems kept (as validate does) and reported with the parts' resolution problems.
  EXPECT_EQ(errors([] {
              resolve_pipeline(parse_pipeline(R"(data: {file: d.csv}
components:
  kernel:
    sum:
      - {plugin: gausian}
      - {l2: 3}
      - {sum: []}
      - {product: [matern], sum: [matern]}
      - {product: [matern], nu: 2}
      - {plugin: matern, nu: [1.5, 2.5]}
      - {plugin: matern, columns: [a, a, ""]}
      - {plugin: matern, columns: year}
  likelihood: {plugin: gaussian}
engines: [exact_gp_regression]
)",
                                              "test.yaml", "/base", true),
                               testing::fixtures());
            }),
            (std::vector<std::string>{
                "5:18: unknown kernel plugin 'gausian'; did you mean 'gaussian'?",
                "6:9: missing 'plugin' in components.kernel.1",
                "7:15: 'sum' in components.kernel.2 expects a non-empty list of kernels, got an "
                "empty list",
                "8:9: components.kernel.3 has both 'sum' and 'product'; nest one inside the other",
                "9:29: unknown key 'nu' in the product components.kernel.4 (a product takes its "
                "parts and 'columns')",
                "10:26: parameter 'nu' of kernel.5 (matern) is a list of values, but parts of a "
                "composite kernel are not swept (learning and saved models see one kernel): "
                "give one value",
                "11:39: column 'a' appears twice in components.kernel.6.columns",
                "11:42: 'columns' in components.kernel.6 expects column names, got quoted string "
                "\"\"",
                "12:35: 'columns' in components.kernel.7 expects a non-empty list of input "
                "column names, got 'year'",
            }));
}

TEST(kernel_tree, NestingHasABound) {
  std::string tree = "{plugin: gaussian, l2: 1}";
  for (int i = 0; i < 20; ++i) tree = "{sum: [" + tree + "]}";  // load_yaml allows depth 64
  const auto found = errors([&] {
    resolve("data: {file: d.csv}\ncomponents:\n  kernel: " + tree +
            "\n  likelihood: gaussian\nengines: [exact_gp_regression]\n");
  });
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("kernels nest deeper than 16 sums and products"), std::string::npos)
      << found[0];
}

TEST(kernel_tree, EnginesSeeTheCompositeKernel) {
  EXPECT_NO_THROW(resolve(R"(data: {file: d.csv}
components:
  kernel: {product: [{plugin: gaussian, l2: 2}, matern]}
  likelihood: {plugin: gaussian}
engines: [exact_gp_regression]
)"));
}

// components.kernel as a list: a kernel per class, its parts under kernel.c<i>, recorded with
// combine per_class.
TEST(kernel_tree, AListIsAKernelPerClass) {
  const ResolvedPipeline r = resolve(R"(data: {file: d.csv}
components:
  kernel:
    - {plugin: gaussian, l2: 2}
    - {sum: [{plugin: gaussian, l2: 1}, matern]}
    - matern
  likelihood: multinomial_probit
  resampler: poisson_bootstrap
engines:
  - multiclass_ep
  - {plugin: mc_bootstrap, inner: multiclass_ep, samples: 3}
)");
  ASSERT_TRUE(r.kernel_tree);
  EXPECT_EQ(r.kernel_tree->combine, kPerClass);
  ASSERT_EQ(r.kernel_tree->parts.size(), 3u);
  EXPECT_EQ(r.kernel_tree->parts[1].combine, "sum");
  const ComponentRecord record = kernel_tree_record(*r.kernel_tree, std::nullopt);
  EXPECT_EQ(record.combine, kPerClass);
  EXPECT_EQ(describe_kernel(record), "per class: gaussian | gaussian + matern | matern");
  EXPECT_EQ(kernel_part_name(kPerClass, 2), "c2");
}

// Every engine (and inner engine) must take a kernel per class, all reported with the engines'
// other problems, except below one that splits it (one_vs_rest: no kernel error there); a list
// must be the whole kernel and hold two kernels at least.
TEST(kernel_tree, AKernelPerClassIsRefusedWhereItCannotRun) {
  EXPECT_EQ(errors([] {
              resolve(R"(data: {file: d.csv}
components:
  kernel:
    - {plugin: gaussian, l2: 2}
    - matern
  likelihood: multinomial_probit
  resampler: poisson_bootstrap
engines:
  - multiclass_ep
  - one_vs_rest
  - {plugin: mc_bootstrap, inner: ep, samples: 3}
)");
            }),
            (std::vector<std::string>{
                "10:5: engine 'one_vs_rest' (one_vs_rest) cannot fit the classes target of "
                "likelihood 'multinomial_probit'; it fits binary targets (engines that do: "
                "multiclass_ep)",
                "11:28: engine 'mc_bootstrap': its inner engine 'ep' takes one kernel, but "
                "components.kernel is a list, a kernel per class (line 4); engines that do: "
                "mc_bootstrap, multiclass_ep, one_vs_rest, or give one kernel",
                "11:28: engine 'mc_bootstrap': its inner engine 'ep' cannot fit the classes "
                "target of likelihood 'multinomial_probit'; it fits real and binary targets "
                "(engines that do: multiclass_ep)",
            }));
  EXPECT_EQ(errors([] {
              resolve_pipeline(parse_pipeline(R"(data: {file: d.csv}
components:
  kernel:
    sum:
      - [gaussian, matern]
  likelihood: multinomial_probit
engines: [multiclass_ep]
)",
                                              "test.yaml", "/base", true),
                               testing::fixtures());
            }),
            (std::vector<std::string>{"5:9: components.kernel: a list of kernels (a kernel per "
                                      "class) is the whole kernel, not a part of a sum or "
                                      "product"}));
  EXPECT_EQ(errors([] {
              resolve(
                  "data: {file: d.csv}\ncomponents:\n  kernel: [gaussian]\n  likelihood: "
                  "multinomial_probit\nengines: [multiclass_ep]\n");
            }),
            (std::vector<std::string>{"3:11: components.kernel: a list of kernels is a kernel "
                                      "per class and needs one for each of at least two classes, "
                                      "got 1"}));
}

}  // namespace
}  // namespace quench
