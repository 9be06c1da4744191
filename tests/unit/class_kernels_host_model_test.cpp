// A kernel per class through a host program's saved model (docs/multiclass.md, "A kernel per
// class"): the run's model saved and loaded through the registry rebuilds the C kernels from the
// record (combine per_class, learned blocks under c<c>) and predicts the same bits; a source that
// says the model's engine takes one kernel gets a ModelFileError at load, not a failure at
// predict.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "quench/errors.h"
#include "quench/fitted_model.h"
#include "quench/kernel_record.h"
#include "quench/pipeline.h"
#include "quench/registry.h"
#include "quench/registry_models.h"

namespace quench::class_kernels_host_model_test {
namespace {

namespace fs = std::filesystem;

const char* const kPipeline = R"(name: host_kernel_per_class
seed: 3
data:
  file: iris_split.csv
  target: y
  split: {rule: column, column: train}
  standardize_inputs: true
components:
  kernel:
    - {plugin: gaussian, width: 1.0, amplitude: 2.0}
    - {plugin: gaussian, width: 0.5, amplitude: 8.0}
    - {sum: [{plugin: gaussian, width: 2.0, amplitude: 4.0}, {plugin: linear}]}
  likelihood: {plugin: multinomial_probit}
learn: {objective: evidence, parameters: [kernel.c1.width]}
engines:
  - {name: joint, plugin: multiclass_ep}
outputs: {models: true}
)";

// The registry's components, but every engine said to take one kernel.
class OneKernelEngines final : public ComponentSource {
 public:
  explicit OneKernelEngines(const Registry& registry) : registry_(registry) {}
  std::shared_ptr<Component> create(
      Family family, const std::string& plugin, const std::string& version,
      const std::map<std::string, ParamValue>& params) const override {
    return registry_.create(family, plugin, version, params);
  }

 private:
  RegistryComponentSource registry_;
};

TEST(HostModel, AKernelPerClassSurvivesTheFileAndIsRefusedToOneKernelEngines) {
  const auto pipeline = Pipeline::from_string(kPipeline, "host", QUENCH_TEST_DATA);
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  RunOptions options;
  options.threads = 2;
  const std::vector<Results> runs = pipeline.run(registry, options);
  ASSERT_EQ(runs.size(), 1u);
  const Results& r = runs.front();
  ASSERT_EQ(r.status.code, RunStatus::ok) << r.status.message;
  ASSERT_TRUE(r.fitted_model);
  const FittedModel& model = *r.fitted_model;

  const fs::path file = fs::temp_directory_path() / "quench_host_kernel_per_class.h5";
  model.save(file.string());
  const FittedModel loaded = load_model(file.string(), registry);
  bool recorded = false;  // the kernel's record: per_class, its learned block under c1
  for (const ComponentRecord& c : loaded.card().components)
    if (c.family == Family::kernel)
      recorded = c.combine == kPerClass && c.parts.size() == 3 && c.learned.count("c1.width") == 1;
  EXPECT_TRUE(recorded);
  Eigen::MatrixXd X = Eigen::MatrixXd::Random(40, 4) * 3.0;
  X.array() += 4.0;  // raw inputs around iris's scale, in cm
  const Predictions a = model.predict(X), b = loaded.predict(X);
  EXPECT_EQ(a.columns, b.columns);
  EXPECT_EQ(a.values, b.values);

  try {
    load_model(file.string(), OneKernelEngines(registry));
    ADD_FAILURE() << "a kernel per class was loaded for an engine that takes one kernel";
  } catch (const ModelFileError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "its kernel is a kernel per class, but engine 'multiclass_ep' takes one kernel"),
              std::string::npos)
        << e.what();
  }
  fs::remove(file);
}

// With the real plugins: one-vs-rest splits a kernel per class, so its binary engine (its
// default, ep) needs take one kernel only, also below exact_loo, which takes the list; a swept
// inner that mixes one_vs_rest and exact_loo is refused below it (exact_loo hands tap the list).
TEST(HostModel, OneVsRestSplitsAKernelPerClassForTheEnginesBelowIt) {
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  const std::string head = R"(name: split
seed: 1
data: {file: iris_split.csv, target: y, split: {rule: column, column: train}}
components:
  kernel: [{plugin: gaussian, width: 1.0}, {plugin: gaussian, width: 2.0}, gaussian]
  likelihood: {plugin: probit}
  resampler: {plugin: poisson_bootstrap}
engines:
)";
  EXPECT_NO_THROW(Pipeline::from_string(head + "  - {plugin: exact_loo, inner: one_vs_rest}\n",
                                        "split", QUENCH_TEST_DATA)
                      .validate(registry));
  try {
    Pipeline::from_string(
        head + "  - {plugin: mc_bootstrap, inner: [one_vs_rest, exact_loo], samples: 3}\n", "split",
        QUENCH_TEST_DATA)
        .validate(registry);
    ADD_FAILURE() << "exact_loo's tap was handed a kernel per class";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("its inner.inner engine 'tap' takes one kernel"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace quench::class_kernels_host_model_test
