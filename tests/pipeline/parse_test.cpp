// parse_pipeline: the structure of pipeline files, defaults, path resolution and the
// positions of structural errors.
#include <string>

#include <gtest/gtest.h>

#include "test_util.h"

namespace quench {
namespace {

using testing::errors;
using testing::parse;

const char* kFull = R"(name: boston_mc_bootstrap
seed: 2003
plugin_paths: [../plugins, /opt/quench/plugins]
data:
  file: ../data/boston.csv
  test_file: ../data/x.csv
  target: medv
  inputs: [crim, zn]
  split: {rule: first_test, count: 50}
  standardize_inputs: false
  standardize_target: true
components:
  kernel: {plugin: gaussian, l2: 73.54, scaling: sqrt_variance}
  likelihood: {plugin: gaussian, noise: 0.01}
  resampler: {plugin: poisson_bootstrap, ratio: [0.25, 0.5, 1, 1.5, 2, 3]}
engines:
  - {name: monte_carlo, plugin: mc_bootstrap, samples: 1000, inner: exact_gp_regression}
  - plugin: exact_gp_regression
outputs: {dir: results/boston, plots: false, tables: true}
)";

TEST(pipeline_parse, FullPipeline) {
  const PipelineSpec spec = parse_pipeline(kFull, "pipelines/boston.yaml", "/p/pipelines");
  EXPECT_EQ(spec.file, "pipelines/boston.yaml");
  EXPECT_EQ(spec.base_dir, "/p/pipelines");
  EXPECT_EQ(spec.name, "boston_mc_bootstrap");
  EXPECT_EQ(spec.seed, 2003u);
  EXPECT_EQ(spec.plugin_paths, (std::vector<std::string>{"/p/plugins", "/opt/quench/plugins"}));

  EXPECT_EQ(spec.data.train_file, "/p/data/boston.csv");
  EXPECT_EQ(spec.data.test_file, "/p/data/x.csv");
  EXPECT_EQ(spec.data.target, "medv");
  EXPECT_EQ(spec.data.inputs, (std::vector<std::string>{"crim", "zn"}));
  EXPECT_EQ(spec.data.split, SplitRule::first_test);
  EXPECT_EQ(spec.data.count, 50);
  EXPECT_FALSE(spec.data.standardize_inputs);
  EXPECT_TRUE(spec.data.standardize_target);
  EXPECT_EQ(spec.data.seed, 2003u);

  ASSERT_EQ(spec.components.size(), 3u);
  const PluginSpec& kernel = spec.components.at(Family::kernel);
  EXPECT_EQ(kernel.plugin, "gaussian");
  EXPECT_EQ(kernel.at.line, 13);
  EXPECT_EQ(kernel.at.column, 20);  // the plugin name
  ASSERT_EQ(kernel.params.size(), 2u);
  EXPECT_EQ(kernel.params.at("l2").node.Scalar(), "73.54");
  EXPECT_EQ(kernel.params.at("l2").at.line, 13);
  EXPECT_EQ(kernel.params.at("l2").at.column, 30);  // the key
  EXPECT_EQ(kernel.params.at("l2").at.file, "pipelines/boston.yaml");
  EXPECT_TRUE(spec.components.at(Family::resampler).params.at("ratio").node.IsSequence());

  ASSERT_EQ(spec.engines.size(), 2u);
  EXPECT_EQ(spec.engines[0].name, "monte_carlo");
  EXPECT_EQ(spec.engines[0].spec.plugin, "mc_bootstrap");
  EXPECT_EQ(spec.engines[0].spec.params.size(), 2u);       // samples, inner
  EXPECT_EQ(spec.engines[1].name, "exact_gp_regression");  // defaults to the plugin
  EXPECT_EQ(spec.engines[1].spec.at.line, 18);
  EXPECT_TRUE(spec.engines[1].spec.params.empty());

  EXPECT_EQ(spec.outputs.dir, "/p/pipelines/results/boston");  // against the pipeline's folder
  EXPECT_FALSE(spec.outputs.plots);
  EXPECT_TRUE(spec.outputs.tables);
}

TEST(pipeline_parse, Defaults) {
  const PipelineSpec spec = parse_pipeline("data: {file: d.csv}\nengines: [exact_gp_regression]\n",
                                           "dir/my_run.yaml", "dir");
  EXPECT_EQ(spec.name, "my_run");  // the file stem
  EXPECT_EQ(spec.seed, 0u);
  EXPECT_TRUE(spec.plugin_paths.empty());
  EXPECT_EQ(spec.data.train_file, "dir/d.csv");
  EXPECT_EQ(spec.data.test_file, "");
  EXPECT_EQ(spec.data.target, "y");
  EXPECT_EQ(spec.data.split, SplitRule::none);
  EXPECT_FALSE(spec.data.standardize_inputs);
  EXPECT_FALSE(spec.data.standardize_target);
  EXPECT_TRUE(spec.components.empty());
  ASSERT_EQ(spec.engines.size(), 1u);
  EXPECT_EQ(spec.engines[0].name, "exact_gp_regression");
  EXPECT_EQ(spec.outputs.dir, "");
  EXPECT_TRUE(spec.outputs.plots);
  EXPECT_TRUE(spec.outputs.tables);
}

TEST(pipeline_parse, RelativePathsResolveAgainstBaseDir) {
  const char* yaml = R"(plugin_paths: [../plugins, ./local, /abs/plugins]
data: {file: ../data/a.csv, test_file: b.csv}
engines: [exact_gp_regression]
)";
  auto spec = parse_pipeline(yaml, "x.yaml", "/work/pipelines");
  EXPECT_EQ(spec.plugin_paths,
            (std::vector<std::string>{"/work/plugins", "/work/pipelines/local", "/abs/plugins"}));
  EXPECT_EQ(spec.data.train_file, "/work/data/a.csv");
  EXPECT_EQ(spec.data.test_file, "/work/pipelines/b.csv");

  spec = parse_pipeline(yaml, "x.yaml", ".");
  EXPECT_EQ(spec.plugin_paths, (std::vector<std::string>{"../plugins", "local", "/abs/plugins"}));
  EXPECT_EQ(spec.data.train_file, "../data/a.csv");
  EXPECT_EQ(spec.data.test_file, "b.csv");

  spec = parse_pipeline(yaml, "x.yaml", "examples/pipelines");
  EXPECT_EQ(spec.data.train_file, "examples/data/a.csv");
  EXPECT_EQ(spec.plugin_paths[0], "examples/plugins");
}

TEST(pipeline_parse, ShorthandsAndSplitForms) {
  auto spec = parse(R"(data:
  file: d.csv
  split: column
  inputs: x1
components:
  kernel: matern
engines:
  - exact_gp_regression
  - {plugin: exact_gp_regression, name: second, jitter: 0.1}
)");
  EXPECT_EQ(spec.data.split, SplitRule::column);
  EXPECT_EQ(spec.data.split_column, "train");
  EXPECT_EQ(spec.data.inputs, std::vector<std::string>{"x1"});
  EXPECT_EQ(spec.components.at(Family::kernel).plugin, "matern");
  ASSERT_EQ(spec.engines.size(), 2u);
  EXPECT_EQ(spec.engines[1].name, "second");

  spec = parse(
      "data: {file: d.csv, split: {rule: fraction, fraction: 0.8}}\nseed: 7\n"
      "engines: [exact_gp_regression]\n");
  EXPECT_EQ(spec.data.split, SplitRule::fraction);
  EXPECT_DOUBLE_EQ(spec.data.fraction, 0.8);
  EXPECT_EQ(spec.data.seed, 7u);

  spec = parse(
      "data: {file: d.csv, split: {rule: column, column: is_train}}\n"
      "engines: [exact_gp_regression]\n");
  EXPECT_EQ(spec.data.split_column, "is_train");
}

TEST(pipeline_parse, YamlSyntaxErrorIsOneDiagnosticAtItsPosition) {
  const char* yaml = "data:\n  file: d.csv\nengines: [a, b\nseed: 3\n";
  try {
    parse_pipeline(yaml, "bad.yaml", ".");
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "bad.yaml:4:5: end of sequence flow not found");
  }
  const auto ds = testing::diagnostics([&] { parse_pipeline(yaml, "bad.yaml", "."); });
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].where.file, "bad.yaml");
  EXPECT_EQ(ds[0].where.line, 4);  // 1-based, where yaml-cpp gives up
  EXPECT_EQ(ds[0].where.column, 5);
  EXPECT_EQ(ds[0].message, "end of sequence flow not found");

  EXPECT_EQ(errors([] { parse("a: b: c\n"); }), std::vector<std::string>{"1:5: illegal map value"});
}

TEST(pipeline_parse, EmptyOrNotAMapping) {
  EXPECT_EQ(errors([] { parse(""); }), std::vector<std::string>{"1:1: the pipeline is empty"});
  EXPECT_EQ(errors([] { parse("# nothing\n"); }),
            std::vector<std::string>{"1:1: the pipeline is empty"});
  EXPECT_EQ(errors([] { parse("- a\n- b\n"); }),
            std::vector<std::string>{"1:1: a pipeline must be a mapping, got a list"});
}

TEST(pipeline_parse, MissingSections) {
  EXPECT_EQ(errors([] { parse("name: x\n"); }),
            (std::vector<std::string>{"1:1: missing required key 'data'",
                                      "1:1: missing required key 'engines' (a list of engines)"}));
  EXPECT_EQ(errors([] { parse("data:\n  target: t\nengines: []\n"); }),
            (std::vector<std::string>{
                "1:1: missing required key 'file' in data",
                "3:10: 'engines' expects a non-empty list of engines, got an empty list"}));
  EXPECT_EQ(errors([] { parse("data: {file: d.csv}\nengines:\n"); }),
            (std::vector<std::string>{
                "2:1: 'engines' expects a non-empty list of engines, got nothing"}));
}

TEST(pipeline_parse, UnknownKeysSuggestCloseOnes) {
  const char* yaml = R"(nmae: x
sede: 3
data:
  file: d.csv
  targt: y
  split: {rule: first_test, cuont: 3}
components:
  kernal: {plugin: gaussian}
  engine: {plugin: x}
  colour: {plugin: x}
engines: [exact_gp_regression]
outputs: {plots: true, tabels: false, wibble: 1}
)";
  EXPECT_EQ(errors([&] { parse(yaml); }),
            (std::vector<std::string>{
                "1:1: unknown top-level key 'nmae'; did you mean 'name'?",
                "2:1: unknown top-level key 'sede'; did you mean 'seed'?",
                "5:3: unknown key 'targt' in data; did you mean 'target'?",
                "6:3: split rule 'first_test' needs 'count'",
                "6:29: unknown key 'cuont' in data.split; did you mean 'count'?",
                "8:3: unknown component family 'kernal'; did you mean 'kernel'?",
                "9:3: unknown component family 'engine' (engines go in the top-level 'engines' "
                "list)",
                "10:3: unknown component family 'colour'",
                "12:24: unknown key 'tabels' in outputs; did you mean 'tables'?",
                "12:39: unknown key 'wibble' in outputs",
            }));
}

TEST(pipeline_parse, WrongTypesOfFixedFields) {
  const char* yaml = R"(name: [a]
seed: -3
plugin_paths: {a: b}
data:
  file: d.csv
  inputs: [a, [b], a]
  standardize_inputs: yes
  standardize_target: "true"
  split: {rule: fraction, fraction: 1.5, count: 3}
engines: [exact_gp_regression]
outputs: {dir: [x], plots: 1}
)";
  EXPECT_EQ(errors([&] { parse(yaml); }),
            (std::vector<std::string>{
                "1:7: 'name' expects a string, got a list",
                "2:7: 'seed' expects a non-negative integer, got '-3'",
                "3:15: 'plugin_paths' expects a list of strings, got a mapping",
                "6:11: 'data.inputs' lists 'a' twice",
                "6:15: 'data.inputs' items must be strings, got a list",
                "7:23: 'data.standardize_inputs' expects true or false, got 'yes'",
                "8:23: 'data.standardize_target' expects true or false, got quoted string \"true\"",
                "9:37: 'data.split.fraction' must be between 0 and 1 (exclusive), got 1.5",
                "9:42: 'count' is not used by split rule 'fraction'",
                "11:16: 'outputs.dir' expects a string, got a list",
                "11:28: 'outputs.plots' expects true or false, got '1'",
            }));
}

TEST(pipeline_parse, BlocksAndEngineNames) {
  const char* yaml = R"(data: {file: d.csv}
components:
  kernel: {l2: 1}
  likelihood: {plugin: gaussian, name: lik}
  resampler: [a]
engines:
  - plugin: exact_gp_regression
  - {name: mc, plugin: mc_bootstrap}
  - {name: mc, plugin: exact_gp_regression}
  - exact_gp_regression
  - {name: other}
  - {plugin: [x]}
  - {plugin: laplace, plugin: laplace}
)";
  EXPECT_EQ(errors([&] { parse(yaml); }),
            (std::vector<std::string>{
                "3:11: missing 'plugin' in components.kernel",
                "4:34: 'name' applies only to engines (in components.likelihood)",
                "5:14: components.resampler expects a mapping with 'plugin', got a list",
                "9:12: duplicate engine name 'mc' (first used at line 8)",
                "10:5: duplicate engine name 'exact_gp_regression' (first used at line 7); give "
                "each engine a distinct 'name'",
                "11:5: missing 'plugin' in engine 5",
                "12:14: 'plugin' expects a plugin name, got a list",
                "13:23: duplicate key 'plugin'",
            }));
}

TEST(pipeline_parse, OutputsDirResolvesAgainstThePipelinesFolder) {
  const char* yaml = "data: {file: d.csv}\nengines: [e]\noutputs: {dir: out/./a/../b}\n";
  EXPECT_EQ(parse_pipeline(yaml, "x.yaml", "/work/pipelines").outputs.dir, "/work/pipelines/out/b");
  EXPECT_EQ(parse_pipeline(yaml, "x.yaml", "examples/pipelines").outputs.dir,
            "examples/pipelines/out/b");
  EXPECT_EQ(parse_pipeline(yaml, "x.yaml", ".").outputs.dir, "out/b");
}

TEST(pipeline_parse, OutputsDirLeavingThePipelinesFolderIsRefused) {
  for (const char* dir : {"/tmp/x", "..", "../results", "a/../../b", "./../x", "//x"}) {
    SCOPED_TRACE(dir);
    const std::string yaml =
        std::string("data: {file: d.csv}\nengines: [e]\noutputs:\n  dir: ") + dir + "\n";
    const auto found = errors([&] { parse(yaml); });
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].rfind("4:8: 'outputs.dir' ", 0), 0u) << found[0];
    EXPECT_NE(found[0].find(dir[0] == '/' ? "must be relative to the pipeline's folder"
                                          : "leaves the pipeline's folder"),
              std::string::npos)
        << found[0];
    EXPECT_NE(found[0].find("pass --out DIR"), std::string::npos) << found[0];
  }
}

TEST(pipeline_parse, NamesUsedInFileNamesAreRestricted) {
  const char* yaml = R"(name: "../../tmp/x"
data: {file: d.csv}
engines:
  - {name: "a/b", plugin: e}
  - {name: "it's", plugin: e}
  - {name: "two\nlines", plugin: e}
  - {name: .hidden, plugin: e}
  - {name: "caf\u00e9", plugin: e}
  - "../up"
  - {name: Good_name-1.5, plugin: e}
)";
  const std::string rule = "; names may only contain letters, digits, '_', '.' and '-'";
  EXPECT_EQ(errors([&] { parse(yaml); }),
            (std::vector<std::string>{
                "1:7: pipeline name '../../tmp/x' contains '/'" + rule,
                "4:12: engine name 'a/b' contains '/'" + rule,
                "5:12: engine name 'it's' contains '''" + rule,
                "6:12: engine name 'two\\nlines' contains '\\n'" + rule,
                "7:12: engine name '.hidden' must not start with '.'",
                "8:12: engine name 'caf\u00e9' contains a non-ASCII character" + rule,
                "9:5: engine name '../up' contains '/'" + rule + "; give the engine a 'name'",
            }));
  EXPECT_EQ(errors([&] { parse("name: .x\ndata: {file: d.csv}\nengines: [e]\n"); }),
            (std::vector<std::string>{"1:7: pipeline name '.x' must not start with '.'"}));
}

TEST(pipeline_parse, DefaultNameFromTheFileStemIsMadeSafe) {
  const char* yaml = "data: {file: d.csv}\nengines: [e]\n";
  EXPECT_EQ(parse_pipeline(yaml, "dir/my run (2).yaml", "dir").name, "my_run__2_");
  EXPECT_EQ(parse_pipeline(yaml, "dir/...yaml", "dir").name, "_.");
  EXPECT_EQ(parse_pipeline(yaml, "<string>", ".").name, "_string_");
}

}  // namespace
}  // namespace quench

namespace quench {
namespace {

TEST(pipeline_parse, InducingBlock) {
  const PipelineSpec spec = testing::parse(
      "data: {file: d.csv}\nengines: [e]\ninducing: {count: 300, method: random, form: sor, "
      "jitter: 1.0e-6, candidates: 900, kmeans_iterations: 5}\n");
  ASSERT_TRUE(spec.inducing);
  EXPECT_EQ(spec.inducing->count, 300);
  EXPECT_EQ(spec.inducing->method, InducingMethod::random);
  EXPECT_EQ(spec.inducing->form, LowRankForm::sor);
  EXPECT_EQ(spec.inducing->jitter, 1e-6);
  EXPECT_EQ(spec.inducing->candidates, 900);
  EXPECT_EQ(spec.inducing->kmeans_iterations, 5);
  EXPECT_EQ(spec.inducing_at.line, 3);
  // Every problem of the block at once, each at its own place.
  const auto found = testing::errors([] {
    testing::parse(
        "data: {file: d.csv}\nengines: [e]\ninducing:\n  count: 0\n  method: greedy\n  form: "
        "dtc\n  jiter: 1\n");
  });
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0], "4:10: 'inducing.count' must be >= 1, got 0");
  EXPECT_EQ(found[1].rfind("5:11: 'inducing.method' must be one of greedy_variance, kmeans, "
                           "random; got 'greedy'",
                           0),
            0u)
      << found[1];
  EXPECT_EQ(found[2].rfind("6:9: 'inducing.form' must be one of fitc, vfe, sor; got 'dtc'", 0), 0u)
      << found[2];
  EXPECT_EQ(found[3].rfind("7:3: unknown key 'jiter' in inducing", 0), 0u) << found[3];
  EXPECT_EQ(testing::errors([] {
              testing::parse("data: {file: d.csv}\nengines: [e]\ninducing: {method: kmeans}\n");
            }),
            std::vector<std::string>{"3:1: 'inducing' needs 'count', the number of inducing "
                                     "inputs M"});
}

}  // namespace
}  // namespace quench
