// Objects used before their required setup are refused through the C++ API: every resampler
// plugin throws ConfigError from a method that needs the data set size before prepare(n), and
// a configuration implying an allocation larger than physical memory is refused before it.
#include <gtest/gtest.h>
#include <Eigen/Core>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "quench/errors.h"
#include "quench/kernel.h"
#include "quench/memory_budget.h"
#include "quench/registry.h"
#include "quench/resampler.h"

namespace quench::setup_order_test {
namespace {

std::shared_ptr<Component> create(const Registry& registry, Family family, const std::string& name,
                                  std::map<std::string, ParamValue> values = {}) {
  return registry.create(family, name,
                         Params(registry.find(family, name)->info->schema, std::move(values)));
}

/// The message of the ConfigError `f` throws ("" when it throws none).
std::string config_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(SetupOrder, ResamplersRefuseUseBeforePrepare) {
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  for (const char* name : {"poisson_bootstrap", "multinomial_bootstrap", "bernoulli_subsample",
                           "exponential_weights"}) {
    SCOPED_TRACE(name);
    auto r = std::dynamic_pointer_cast<Resampler>(create(registry, Family::resampler, name));
    ASSERT_TRUE(r);
    RngStream rng(1, 0);
    EXPECT_EQ(config_error_of([&] { r->expected_size(); }),
              "Resampler::expected_size called before Resampler::prepare(n) fixed the data set "
              "size");
    EXPECT_NE(config_error_of([&] { r->sample(rng); }), "");
    EXPECT_NE(config_error_of([&] { r->occupation_pmf(1); }), "");
    EXPECT_NE(config_error_of([&] { r->max_occupation(); }), "");
    EXPECT_EQ(config_error_of([&] { r->prepare(0); }),
              "Resampler::prepare: the data set size must be >= 1, got 0");
    r->prepare(10);
    EXPECT_GT(r->expected_size(), 0.0);
    EXPECT_EQ(r->sample(rng).size(), 10);
  }
}

TEST(SetupOrder, KernelRefusesUseBeforePrepare) {
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  auto kernel = std::dynamic_pointer_cast<Kernel>(create(registry, Family::kernel, "gaussian"));
  const Eigen::MatrixXd X = Eigen::MatrixXd::Ones(3, 2);
  EXPECT_EQ(config_error_of([&] { kernel->cross(X, X); }),
            "kernel used before prepare() fixed its input weights");
}

TEST(MemoryBudget, RefusesMoreThanPhysicalMemory) {
  EXPECT_GT(physical_memory_bytes(), 0.0);
  EXPECT_NO_THROW(require_memory(1e6, "a small table"));
  const std::string message =
      config_error_of([] { require_memory(4 * physical_memory_bytes(), "the table"); });
  EXPECT_NE(message.find("the table needs "), std::string::npos) << message;
  EXPECT_NE(message.find("more than this machine's physical memory"), std::string::npos) << message;
}

// 100000 random features on enough rows to exceed physical memory: refused before allocating.
TEST(MemoryBudget, RandomFeatureMatrixLargerThanMemoryIsRefused) {
  const Registry registry = Registry::discover({QUENCH_TEST_PLUGINS});
  auto kernel = std::dynamic_pointer_cast<Kernel>(
      create(registry, Family::kernel, "gaussian", {{"random_features", std::int64_t{100000}}}));
  const auto rows = static_cast<Eigen::Index>(std::ceil(physical_memory_bytes() / 8e5)) + 1;
  const Eigen::MatrixXd X = Eigen::MatrixXd::Zero(rows, 1);
  kernel->prepare(X);
  ASSERT_NE(kernel->feature_map(), nullptr);
  const std::string message = config_error_of([&] { kernel->feature_map()->features(X); });
  EXPECT_NE(message.find("random_features: the " + std::to_string(rows) +
                         " x 100000 feature "
                         "matrix needs "),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace quench::setup_order_test
