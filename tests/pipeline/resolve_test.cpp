// resolve_pipeline: parameters interpreted against the fixture plugins' schemas, sweeps,
// plugin lookup and every kind of diagnostic.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"

namespace quench {
namespace {

using testing::errors;
using testing::resolve;
using Values = std::vector<ParamValue>;

const char* kValid = R"(name: valid
seed: 1
data: {file: d.csv}
components:
  kernel: {plugin: gaussian, l2: 73, scaling: sqrt_variance}
  likelihood: {plugin: gaussian, noise: 1.0e-2}
  resampler: {plugin: poisson_bootstrap}
  optimizer: lbfgs
engines:
  - {name: monte_carlo, plugin: mc_bootstrap, samples: 1000, inner: exact_gp_regression,
     quantiles: [0.1, 0.5, 0.9], parallel: false, label: run 1}
  - plugin: exact_gp_regression
  - {plugin: laplace, verbose: True}
)";

TEST(pipeline_resolve, ValidPipelineHasNoDiagnostics) {
  for (const auto& failure : testing::fixtures().failures()) ADD_FAILURE() << failure.str();
  ResolvedPipeline r;
  ASSERT_NO_THROW(r = resolve(kValid));
  ASSERT_EQ(r.components.size(), 4u);
  const ResolvedPlugin& kernel = r.components.at(Family::kernel);
  ASSERT_NE(kernel.entry, nullptr);
  EXPECT_EQ(kernel.entry->info->name, "gaussian");
  EXPECT_EQ(kernel.entry->info->family, Family::kernel);
  // Integers given for reals become reals; defaults are not filled in.
  EXPECT_EQ(kernel.fixed.at("l2"), ParamValue(73.0));
  EXPECT_EQ(kernel.fixed.at("scaling"), ParamValue(std::string("sqrt_variance")));
  EXPECT_TRUE(kernel.sweeps.empty());
  EXPECT_EQ(r.components.at(Family::likelihood).fixed.at("noise"), ParamValue(0.01));
  EXPECT_TRUE(r.components.at(Family::resampler).fixed.empty());
  EXPECT_EQ(r.components.at(Family::optimizer).entry->info->name, "lbfgs");

  ASSERT_EQ(r.engines.size(), 3u);
  EXPECT_EQ(r.engines[0].first, "monte_carlo");
  const ResolvedPlugin& mc = r.engines[0].second;
  EXPECT_EQ(mc.entry->info->name, "mc_bootstrap");
  EXPECT_EQ(mc.fixed.at("samples"), ParamValue(std::int64_t{1000}));
  EXPECT_EQ(mc.fixed.at("inner"), ParamValue(std::string("exact_gp_regression")));
  EXPECT_EQ(mc.fixed.at("quantiles"), ParamValue(std::vector<double>{0.1, 0.5, 0.9}));
  EXPECT_EQ(mc.fixed.at("parallel"), ParamValue(false));
  EXPECT_EQ(mc.fixed.at("label"), ParamValue(std::string("run 1")));
  EXPECT_TRUE(mc.sweeps.empty());
  EXPECT_EQ(r.engines[1].first, "exact_gp_regression");
  EXPECT_EQ(r.engines[2].first, "laplace");
  EXPECT_EQ(r.engines[2].second.fixed.at("verbose"), ParamValue(true));

  // The resolved values build Params without complaint.
  EXPECT_NO_THROW(Params(mc.entry->info->schema, mc.fixed));
  EXPECT_NO_THROW(Params(kernel.entry->info->schema, kernel.fixed));
}

TEST(pipeline_resolve, SweepsRecordKeysAndValues) {
  const ResolvedPipeline r = resolve(R"(data: {file: d.csv}
components:
  kernel: {plugin: gaussian, l2: [1, 2.5], scaling: [none, variance]}
  likelihood: gaussian
  resampler: {plugin: poisson_bootstrap, ratio: [0.25, 0.5, 1, 1.5, 2, 3]}
  optimizer: lbfgs
engines:
  - name: mc
    plugin: mc_bootstrap
    samples: [10, 100]
    quantiles: [[0.1, 0.9], [0.25, 0.5, 0.75]]
    parallel: [true, false]
    inner: [exact_gp_regression, laplace]
  - {plugin: mc_bootstrap, samples: [7], quantiles: [0.5]}
)");
  const auto& kernel = r.components.at(Family::kernel);
  EXPECT_TRUE(kernel.fixed.empty());
  ASSERT_EQ(kernel.sweeps.size(), 2u);  // in file order
  EXPECT_EQ(kernel.sweeps[0].key, "kernel.l2");
  EXPECT_EQ(kernel.sweeps[0].param, "l2");
  EXPECT_EQ(kernel.sweeps[0].values, (Values{1.0, 2.5}));
  EXPECT_EQ(kernel.sweeps[1].key, "kernel.scaling");
  EXPECT_EQ(kernel.sweeps[1].values, (Values{std::string("none"), std::string("variance")}));

  const auto& resampler = r.components.at(Family::resampler);
  ASSERT_EQ(resampler.sweeps.size(), 1u);
  EXPECT_EQ(resampler.sweeps[0].key, "resampler.ratio");
  EXPECT_EQ(resampler.sweeps[0].values, (Values{0.25, 0.5, 1.0, 1.5, 2.0, 3.0}));

  ASSERT_EQ(r.engines.size(), 2u);
  const auto& mc = r.engines[0].second;
  EXPECT_TRUE(mc.fixed.empty());
  ASSERT_EQ(mc.sweeps.size(), 4u);
  EXPECT_EQ(mc.sweeps[0].key, "mc.samples");  // engine sweeps are keyed by engine name
  EXPECT_EQ(mc.sweeps[0].values, (Values{std::int64_t{10}, std::int64_t{100}}));
  EXPECT_EQ(mc.sweeps[1].key, "mc.quantiles");  // a list of lists sweeps a list parameter
  EXPECT_EQ(mc.sweeps[1].values,
            (Values{std::vector<double>{0.1, 0.9}, std::vector<double>{0.25, 0.5, 0.75}}));
  EXPECT_EQ(mc.sweeps[2].key, "mc.parallel");
  EXPECT_EQ(mc.sweeps[2].values, (Values{true, false}));
  EXPECT_EQ(mc.sweeps[3].key, "mc.inner");
  EXPECT_EQ(mc.sweeps[3].values,
            (Values{std::string("exact_gp_regression"), std::string("laplace")}));

  EXPECT_EQ(r.engines[1].first, "mc_bootstrap");
  const auto& second = r.engines[1].second;
  ASSERT_EQ(second.sweeps.size(), 1u);  // a one-value sweep is still a sweep
  EXPECT_EQ(second.sweeps[0].key, "mc_bootstrap.samples");
  EXPECT_EQ(second.sweeps[0].values, (Values{std::int64_t{7}}));
  EXPECT_EQ(second.fixed.at("quantiles"), ParamValue(std::vector<double>{0.5}));
}

TEST(pipeline_resolve, SweepErrors) {
  EXPECT_EQ(errors([] {
              resolve(R"(data: {file: d.csv}
components:
  kernel: {plugin: gaussian, l2: []}
  likelihood: gaussian
  resampler: {plugin: poisson_bootstrap, ratio: [1, -1, x, [2]]}
engines:
  - {plugin: mc_bootstrap, samples: 3, quantiles: [[0.1], 0.5, [0.2, 1.5]]}
)");
            }),
            (std::vector<std::string>{
                "3:34: parameter 'l2' of kernel plugin 'gaussian' has an empty sweep list",
                "5:53: parameter 'ratio' of resampler plugin 'poisson_bootstrap' must be >= 0, "
                "got -1",
                "5:57: parameter 'ratio' of resampler plugin 'poisson_bootstrap' expects real, "
                "got 'x'",
                "5:60: parameter 'ratio' of resampler plugin 'poisson_bootstrap' expects real, "
                "got a list",
                "7:59: parameter 'quantiles' of engine plugin 'mc_bootstrap' expects list of "
                "reals, got '0.5'",
                "7:64: parameter 'quantiles' of engine plugin 'mc_bootstrap' item 2 must be <= "
                "1, got 1.5",
            }));
}

TEST(pipeline_resolve, WrongTypes) {
  EXPECT_EQ(errors([] {
              resolve(R"(data: {file: d.csv}
components:
  kernel: {plugin: gaussian, l2: "1.5", scaling: 3}
  likelihood: {plugin: gaussian, noise: .inf}
  resampler: {plugin: poisson_bootstrap, ratio: {a: 1}}
  optimizer: {plugin: lbfgs, max_iterations: 1.5, tolerance: 1e-3x}
engines:
  - {name: a, plugin: mc_bootstrap, samples: many, parallel: yes, quantiles: 0.5}
  - {name: b, plugin: mc_bootstrap, samples: 99999999999999999999, quantiles: [0.1, high]}
  - {name: c, plugin: mc_bootstrap, samples: , label: {x: y}}
  - {name: d, plugin: mc_bootstrap, samples: 1e3, inner: [[laplace]]}
)");
            }),
            (std::vector<std::string>{
                "3:34: parameter 'l2' of kernel plugin 'gaussian' expects real, got quoted string "
                "\"1.5\"",
                "3:50: parameter 'scaling' of kernel plugin 'gaussian' must be one of none, "
                "variance, sqrt_variance; got '3'",
                "4:41: parameter 'noise' of likelihood plugin 'gaussian' must be finite, got inf",
                "5:49: parameter 'ratio' of resampler plugin 'poisson_bootstrap' expects real, "
                "got a mapping",
                "6:46: parameter 'max_iterations' of optimizer plugin 'lbfgs' expects integer, "
                "got '1.5'",
                "6:62: parameter 'tolerance' of optimizer plugin 'lbfgs' expects real, got "
                "'1e-3x'",
                "8:46: parameter 'samples' of engine plugin 'mc_bootstrap' expects integer, got "
                "'many'",
                "8:62: parameter 'parallel' of engine plugin 'mc_bootstrap' expects boolean, got "
                "'yes'",
                "8:78: parameter 'quantiles' of engine plugin 'mc_bootstrap' expects list of "
                "reals, got '0.5'",
                "9:46: parameter 'samples' of engine plugin 'mc_bootstrap' is out of range: "
                "99999999999999999999",
                "9:85: parameter 'quantiles' of engine plugin 'mc_bootstrap' expects a list of "
                "reals, got item 'high'",
                "10:37: parameter 'samples' of engine plugin 'mc_bootstrap' expects integer, got "
                "nothing",
                "10:55: parameter 'label' of engine plugin 'mc_bootstrap' expects string, got a "
                "mapping",
                "11:46: parameter 'samples' of engine plugin 'mc_bootstrap' expects integer, got "
                "'1e3'",
                "11:59: parameter 'inner' of engine plugin 'mc_bootstrap' expects plugin name, got "
                "a list",
            }));
}

TEST(pipeline_resolve, RangesChoicesAndRequired) {
  EXPECT_EQ(errors([] {
              resolve(R"(data: {file: d.csv}
components:
  kernel: {plugin: gaussian, scaling: sqrt_varience}
  likelihood: {plugin: gaussian, noise: -0.5}
  resampler: {plugin: poisson_bootstrap, ratio: 11}
engines:
  - {name: a, plugin: mc_bootstrap, samples: 0, quantiles: [0.5, 2]}
  - name: b
    plugin: mc_bootstrap
)");
            }),
            (std::vector<std::string>{
                "3:20: missing required parameter 'l2' for kernel plugin 'gaussian'",
                "3:39: parameter 'scaling' of kernel plugin 'gaussian' must be one of none, "
                "variance, sqrt_variance; got 'sqrt_varience'; did you mean 'sqrt_variance'?",
                "4:41: parameter 'noise' of likelihood plugin 'gaussian' must be >= 0, got -0.5",
                "5:49: parameter 'ratio' of resampler plugin 'poisson_bootstrap' must be <= 10, "
                "got 11",
                "7:46: parameter 'samples' of engine plugin 'mc_bootstrap' must be >= 1, got 0",
                "7:60: parameter 'quantiles' of engine plugin 'mc_bootstrap' item 2 must be <= "
                "1, got 2",
                "9:13: missing required parameter 'samples' for engine plugin 'mc_bootstrap'",
            }));
}

TEST(pipeline_resolve, UnknownPluginsAndParameters) {
  EXPECT_EQ(
      errors([] {
        resolve(R"(data: {file: d.csv}
components:
  kernel: {plugin: gausian, l2: 1}
  likelihood: {plugin: gaussian, nosie: 1, zzz: 2}
  resampler: {plugin: poisson_bootstrap, ration: 1}
  optimizer: {plugin: newton}
engines:
  - {plugin: mc_bootsrap, samples: 3}
  - {name: mc, plugin: mc_bootstrap, sampels: 1000, inner: exact_gp_regresion}
  - {name: mc2, plugin: mc_bootstrap, samples: 2, inner: [laplace, nothing_like_it]}
)");
      }),
      (std::vector<std::string>{
          "3:20: unknown kernel plugin 'gausian'; did you mean 'gaussian'?",
          "4:34: unknown parameter 'nosie' for likelihood plugin 'gaussian'; did you mean "
          "'noise'?",
          "4:44: unknown parameter 'zzz' for likelihood plugin 'gaussian'",
          "5:42: unknown parameter 'ration' for resampler plugin 'poisson_bootstrap'; did "
          "you mean 'ratio'?",
          "6:23: unknown optimizer plugin 'newton'",
          "8:14: unknown engine plugin 'mc_bootsrap'; did you mean 'mc_bootstrap'?",
          "9:24: missing required parameter 'samples' for engine plugin 'mc_bootstrap'",
          "9:38: unknown parameter 'sampels' for engine plugin 'mc_bootstrap'; did you "
          "mean 'samples'?",
          "9:60: unknown engine plugin 'exact_gp_regresion' (parameter 'inner' of engine plugin "
          "'mc_bootstrap'); did you mean 'exact_gp_regression'?",
          "10:68: unknown engine plugin 'nothing_like_it' (parameter 'inner' of engine "
          "plugin 'mc_bootstrap')",
      }));
}

TEST(pipeline_resolve, EmptyRegistrySaysNothingIsLoaded) {
  Registry empty;
  EXPECT_EQ(testing::lines(testing::diagnostics([&] {
              resolve_pipeline(testing::parse("data: {file: d.csv}\ncomponents: {kernel: k}\n"
                                              "engines: [e]\n"),
                               empty);
            })),
            (std::vector<std::string>{
                "2:22: unknown kernel plugin 'k' (no kernel plugins are loaded)",
                "3:11: unknown engine plugin 'e' (no engine plugins are loaded)",
            }));
}

TEST(pipeline_resolve, EnginesNeedComponents) {
  EXPECT_EQ(errors([] {
              resolve(R"(data: {file: d.csv}
components:
  kernel: {plugin: gaussian, l2: 1}
engines:
  - {name: mc, plugin: mc_bootstrap, samples: 3}
  - {name: mc_laplace, plugin: mc_bootstrap, samples: 3, inner: laplace}
  - exact_gp_regression
  - laplace
)");
            }),
            (std::vector<std::string>{
                "5:24: engine 'mc' (mc_bootstrap) needs a resampler; add components.resampler",
                "5:24: engine 'mc' (mc_bootstrap) needs a likelihood (for inner engine "
                "'exact_gp_regression'); add components.likelihood",
                "6:32: engine 'mc_laplace' (mc_bootstrap) needs a resampler; add "
                "components.resampler",
                "6:32: engine 'mc_laplace' (mc_bootstrap) needs a likelihood (for inner engine "
                "'laplace'); add components.likelihood",
                "6:32: engine 'mc_laplace' (mc_bootstrap) needs an optimizer (for inner engine "
                "'laplace'); add components.optimizer",
                "7:5: engine 'exact_gp_regression' (exact_gp_regression) needs a likelihood; add "
                "components.likelihood",
                "8:5: engine 'laplace' (laplace) needs a likelihood; add components.likelihood",
                "8:5: engine 'laplace' (laplace) needs an optimizer; add components.optimizer",
            }));
}

TEST(pipeline_resolve, DiagnosticsCarryTheFileName) {
  const auto spec = parse_pipeline("data: {file: d.csv}\nengines: [nope]\n", "dir/p.yaml", "dir");
  try {
    resolve_pipeline(spec, testing::fixtures());
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].where.file, "dir/p.yaml");
    EXPECT_STREQ(e.what(), "dir/p.yaml:2:11: unknown engine plugin 'nope'");
  }
}

}  // namespace
}  // namespace quench

namespace quench {
namespace {

// `inducing:` and the engines: with it, every engine (and inner engine) must take inducing
// points; without it, none may require them.
TEST(pipeline_resolve, InducingPointsAndTheEnginesThatTakeThem) {
  const ResolvedPipeline ok = testing::resolve(R"(data: {file: d.csv}
inducing: {count: 50, method: kmeans, form: vfe}
components:
  kernel: {plugin: gaussian, l2: 1}
  likelihood: gaussian
  resampler: poisson_bootstrap
engines:
  - sparse_gp_regression
  - {name: mc, plugin: mc_bootstrap, samples: 3, inner: sparse_gp_regression}
)");
  EXPECT_EQ(ok.engines.size(), 2u);
  EXPECT_EQ(testing::errors([] {
              testing::resolve(R"(data: {file: d.csv}
inducing: {count: 50}
components:
  kernel: {plugin: gaussian, l2: 1}
  likelihood: gaussian
  resampler: poisson_bootstrap
engines:
  - exact_gp_regression
  - {name: mc, plugin: mc_bootstrap, samples: 3}
)");
            }),
            (std::vector<std::string>{
                "8:5: engine 'exact_gp_regression' (exact_gp_regression) runs on the exact prior "
                "only, but the pipeline sets 'inducing' (line 2); use an engine that takes "
                "inducing points (quench plugins) or drop 'inducing'",
                "9:24: engine 'mc': its inner engine 'exact_gp_regression' runs on the exact "
                "prior only, but the pipeline sets 'inducing' (line 2); use an engine that takes "
                "inducing points (quench plugins) or drop 'inducing'",
            }));
  EXPECT_EQ(testing::errors([] {
              testing::resolve(R"(data: {file: d.csv}
components:
  kernel: {plugin: gaussian, l2: 1}
  likelihood: gaussian
engines: [sparse_gp_regression]
)");
            }),
            (std::vector<std::string>{
                "5:11: engine 'sparse_gp_regression' (sparse_gp_regression) needs inducing "
                "inputs; add e.g. 'inducing: {count: 500, method: greedy_variance}' to the "
                "pipeline"}));
}

}  // namespace
}  // namespace quench
