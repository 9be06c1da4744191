// Composite kernels in a pipeline (components.kernel: {sum: [...]}): the tree as parsed and
// resolved, and every problem of one at its file:line:col, all at once.
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace quench
