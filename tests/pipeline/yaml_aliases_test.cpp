// YAML the parser must survive: aliases that name a node containing them (refused at the
// alias), nesting far beyond yaml-cpp's depth guard, aliases shared many times over (no
// exponential walk), and the aliases and merge keys a pipeline may legitimately use.
#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "load_yaml.h"
#include "test_util.h"

namespace quench {
namespace {

using testing::errors;
using testing::parse;

const std::string kRest = "data: {file: d.csv}\nengines: [exact_gp_regression]\n";

TEST(yaml_aliases, AnAliasInsideTheListItNamesIsRefusedAtTheAlias) {
  EXPECT_EQ(errors([] { parse("a: &x [1, *x]\n" + kRest); }),
            std::vector<std::string>{
                "1:11: alias '*x' refers to the list that contains it (anchored at line 1, "
                "column 4): a recursive structure cannot be a pipeline"});
}

TEST(yaml_aliases, AnAliasInsideTheMappingItNamesIsRefusedAtTheAlias) {
  EXPECT_EQ(errors([] { parse("data: &d {file: x.csv, extra: *d}\nengines: [a]\n"); }),
            std::vector<std::string>{
                "1:31: alias '*d' refers to the mapping that contains it (anchored at line 1, "
                "column 7): a recursive structure cannot be a pipeline"});
}

TEST(yaml_aliases, EveryRecursiveAliasIsReportedWithTheOtherTextProblems) {
  const std::string yaml =
      "data:\n"
      "  file: d.csv\n"
      "  extra: &e\n"
      "    deeper: [1, {back: *e}]\n"  // two levels below its anchor, block style
      "engines: &n [exact_gp_regression, *n]\n"
      "name: \"unclosed\n";
  EXPECT_EQ(errors([&] { parse(yaml); }),
            (std::vector<std::string>{
                "4:24: alias '*e' refers to the mapping that contains it (anchored at line 3, "
                "column 10): a recursive structure cannot be a pipeline",
                "5:35: alias '*n' refers to the list that contains it (anchored at line 5, "
                "column 10): a recursive structure cannot be a pipeline",
                "6:7: end of string not found (a quoted string is not closed)"}));
}

TEST(yaml_aliases, AnAliasInAKeyOfItsOwnMappingIsRefused) {
  EXPECT_EQ(errors([] { parse("x: &k {*k : 1}\n" + kRest); }),
            std::vector<std::string>{
                "1:8: alias '*k' refers to the mapping that contains it (anchored at line 1, "
                "column 4): a recursive structure cannot be a pipeline"});
}

// yaml-cpp 0.7 stops its recursive descent at depth 500 (YAML::DeepRecursion), whatever the
// kind of nesting; 100 000 levels are one diagnostic, not a stack overflow.
TEST(yaml_aliases, NestingFarBeyondTheParsersGuardIsOneDiagnostic) {
  const std::size_t depth = 100000;
  std::string block;
  for (std::size_t i = 0; i < depth; ++i) block += "- ";
  for (const std::string& nested : {std::string(depth, '['), std::string(depth, '{'), block, [&] {
                                      std::string keys;
                                      for (std::size_t i = 0; i < depth; ++i) keys += "? ";
                                      return keys;
                                    }()}) {
    const auto ds = testing::diagnostics([&] { parse(nested + "\n"); });
    ASSERT_EQ(ds.size(), 1u) << nested.substr(0, 10);
    EXPECT_EQ(ds[0].message,
              "YAML nested too deeply: the parser's nesting limit (depth 500) is reached here");
  }
}

// Each level names the one before it 8 times: 8^12 paths to the innermost list if aliases
// were followed as copies. Parsing and checking stay linear in the text.
TEST(yaml_aliases, SharedAliasesAreCheckedOncePerNode) {
  std::string params = "p0: &p0 [1, 2]";
  for (int level = 1; level <= 12; ++level) {
    const std::string prev = "*p" + std::to_string(level - 1);
    params += ", p" + std::to_string(level) + ": &p" + std::to_string(level) + " [" + prev;
    for (int k = 1; k < 8; ++k) params += ", " + prev;
    params += "]";
  }
  const auto start = std::chrono::steady_clock::now();
  const PipelineSpec spec =
      parse("data: {file: d.csv}\ncomponents:\n  kernel: {plugin: gaussian, " + params +
            "}\nengines: [exact_gp_regression]\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  const auto& p = spec.components.at(Family::kernel).params;
  ASSERT_EQ(p.size(), 13u);
  EXPECT_TRUE(p.at("p12").node[0].is(p.at("p11").node));  // shared, not copied
}

TEST(yaml_aliases, AReusedAnchorIsTheSameValueInEachPlace) {
  const PipelineSpec spec = parse(
      "data: {file: &f d.csv, test_file: *f}\n"
      "components:\n"
      "  kernel: {plugin: gaussian, length_scales: &ls [1, 2]}\n"
      "engines:\n"
      "  - {name: a, plugin: mc_bootstrap, quantiles: *ls}\n");
  EXPECT_EQ(spec.data.train_file, "/base/d.csv");
  EXPECT_EQ(spec.data.test_file, "/base/d.csv");
  const auto& quantiles = spec.engines.at(0).spec.params.at("quantiles");
  ASSERT_TRUE(quantiles.node.IsSequence());
  EXPECT_EQ(quantiles.node[1].Scalar(), "2");
  // The same engine twice is two engines of one name: an ordinary error, at the second use.
  EXPECT_EQ(errors([] {
              parse("data: {file: d.csv}\nengines:\n  - &gp {name: a, plugin: x}\n  - *gp\n");
            }),
            std::vector<std::string>{"3:16: duplicate engine name 'a' (first used at line 3)"});
}

TEST(yaml_aliases, MergeKeysAddTheEntriesAMappingDoesNotSet) {
  const PipelineSpec spec = parse(
      "data: {file: d.csv}\n"
      "engines:\n"
      "  - &mc {name: first, plugin: mc_bootstrap, samples: 10, inner: exact_gp_regression}\n"
      "  - {samples: 20, <<: *mc, name: second}\n");
  ASSERT_EQ(spec.engines.size(), 2u);
  const EngineSpec& second = spec.engines[1];
  EXPECT_EQ(second.name, "second");
  EXPECT_EQ(second.spec.plugin, "mc_bootstrap");
  EXPECT_EQ(second.spec.at.line, 3);  // where the merged value is written
  ASSERT_EQ(second.spec.params.size(), 2u);
  EXPECT_EQ(second.spec.params.at("samples").node.Scalar(), "20");  // its own key wins
  EXPECT_EQ(second.spec.params.at("samples").at.line, 4);
  EXPECT_EQ(second.spec.params.at("inner").node.Scalar(), "exact_gp_regression");
  EXPECT_EQ(second.spec.params.at("inner").at.line, 3);
}

TEST(yaml_aliases, MergeKeyListsTakeEarlierMappingsFirstWithTheirOwnMerges) {
  const PipelineSpec spec = parse(
      "data:\n"
      "  file: d.csv\n"
      "  split: {rule: fraction, fraction: 0.5}\n"
      "components:\n"
      "  kernel: &k {plugin: gaussian, l2: 1}\n"
      "  likelihood: &l {<<: *k, plugin: gaussian, noise: 0.1}\n"
      "  resampler: {<<: [*l, *k, *l], plugin: poisson_bootstrap}\n"
      "engines: [exact_gp_regression]\n");
  const auto& resampler = spec.components.at(Family::resampler);
  EXPECT_EQ(resampler.plugin, "poisson_bootstrap");
  ASSERT_EQ(resampler.params.size(), 2u);
  EXPECT_EQ(resampler.params.at("noise").at.line, 6);
  EXPECT_EQ(resampler.params.at("l2").at.line, 5);  // through the likelihood's own merge
  EXPECT_EQ(spec.data.split, SplitRule::fraction);
}

// Distinct mappings in one merge list: every one is merged, the earlier winning a key both set
// (a swap of YAML::Node values had merged the last one twice and lost the first, and rewrote
// the anchored mapping itself).
TEST(yaml_aliases, EveryMappingOfAMergeListIsMergedEarlierFirst) {
  const PipelineSpec spec = parse(
      "data: {file: d.csv}\n"
      "components:\n"
      "  kernel: &a {plugin: gaussian, l2: 1}\n"
      "  likelihood: &b {plugin: gaussian, noise: 0.1}\n"
      "  resampler: {<<: [*a, *b, {ratio: 2}], plugin: poisson_bootstrap}\n"
      "engines: [exact_gp_regression]\n");
  const auto& resampler = spec.components.at(Family::resampler);
  EXPECT_EQ(resampler.plugin, "poisson_bootstrap");
  ASSERT_EQ(resampler.params.size(), 3u);
  EXPECT_EQ(resampler.params.at("l2").at.line, 3);
  EXPECT_EQ(resampler.params.at("noise").at.line, 4);
  EXPECT_EQ(resampler.params.at("ratio").node.Scalar(), "2");
  // The anchored mappings are as written.
  EXPECT_EQ(spec.components.at(Family::kernel).params.count("noise"), 0u);
  EXPECT_EQ(spec.components.at(Family::kernel).params.at("l2").node.Scalar(), "1");
  EXPECT_EQ(spec.components.at(Family::likelihood).params.count("l2"), 0u);
}

// docs/pipelines.md: at most 100 mappings are merged into one; the 101st is refused where it
// is written (a one-line list of 101 to 200 had passed, half of it silently dropped).
TEST(yaml_aliases, AMergeListOfMoreThanAHundredMappingsIsRefused) {
  const auto list = [](int n) {
    std::string items;
    for (int i = 0; i < n; ++i) items += (i ? ", {x" : "{x") + std::to_string(i) + ": 1}";
    return "data: {file: d.csv}\nengines:\n  - {<<: [" + items + "], plugin: p}\n";
  };
  const PipelineSpec spec = parse(list(100));
  EXPECT_EQ(spec.engines.at(0).spec.params.size(), 100u);
  const std::vector<std::string> found = errors([&] { parse(list(101)); });
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("more than 100 mappings merged into one"), std::string::npos) << found[0];
  EXPECT_EQ(errors([&] { parse(list(200)); }).size(), 1u);
}

TEST(yaml_aliases, MergeKeysAreCheckedLikeTheKeysTheyAdd) {
  EXPECT_EQ(
      errors([] {
        parse(
            "data: {file: d.csv, <<: {targte: y}}\n"
            "components:\n"
            "  kernel: {plugin: gaussian, <<: 3, <<: {}}\n"
            "  likelihood: {<<: [{plugin: gaussian}, x]}\n"
            "engines: [exact_gp_regression]\n");
      }),
      (std::vector<std::string>{
          "1:26: unknown key 'targte' in data; did you mean 'target'?",
          "3:34: the merge key '<<' expects a mapping or a list of mappings, got '3'",
          "3:37: duplicate key '<<'",
          "4:41: the merge key '<<' expects a mapping or a list of mappings, got an item 'x'"}));
  // A quoted "<<" is an ordinary key.
  EXPECT_EQ(errors([] { parse("data: {file: d.csv, '<<': {target: y}}\nengines: [a]\n"); }),
            std::vector<std::string>{"1:21: unknown key '<<' in data"});
}

TEST(yaml_aliases, AMappingMergedFromSeveralPlacesIsReportedOnce) {
  EXPECT_EQ(errors([] {
              parse(
                  "data: {file: d.csv}\n"
                  "engines:\n"
                  "  - &e {plugin: p, name: 'bad name'}\n"
                  "  - {<<: *e}\n"
                  "  - {<<: [*e, *e]}\n");
            }),
            std::vector<std::string>{
                "3:26: engine name 'bad name' contains ' '; names may only contain letters, "
                "digits, '_', '.' and '-'"});
}

}  // namespace
}  // namespace quench
