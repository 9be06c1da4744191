// Parameter schemas: defaults, types and the wording of range errors.
#include <gtest/gtest.h>

#include "quench/errors.h"
#include "quench/parameters.h"

namespace quench::parameters_test {
namespace {

ParamSchema schema() {
  ParamSchema s;
  s.real("ratio", "S/N", 1.0, 0.0, 10.0)
      .integer("samples", "T", 100, 1)
      .string("mode", "m", "a", {"a", "b"})
      .real_list("weights", "w", std::nullopt, 0.0)
      .optional()
      .real("noise", "required");
  return s;
}

TEST(Params, FillsDefaultsAndConvertsIntegersToReals) {
  const Params p(schema(), {{"noise", std::int64_t{2}}});
  EXPECT_DOUBLE_EQ(p.real("ratio"), 1.0);
  EXPECT_EQ(p.integer("samples"), 100);
  EXPECT_EQ(p.string("mode"), "a");
  EXPECT_FALSE(p.has("weights"));
  EXPECT_DOUBLE_EQ(p.real("noise"), 2.0);
}

TEST(Params, ReportsTheBrokenConstraint) {
  const auto s = schema();
  EXPECT_EQ(check_value(*s.find("ratio"), 11.0), "must be <= 10, got 11");
  EXPECT_EQ(check_value(*s.find("samples"), std::int64_t{0}), "must be >= 1, got 0");
  EXPECT_EQ(check_value(*s.find("samples"), 2.5), "expected integer, got '2.5'");
  EXPECT_EQ(check_value(*s.find("mode"), std::string("c")), "must be one of a, b; got 'c'");
  EXPECT_EQ(check_value(*s.find("weights"), std::vector<double>{1, -1}),
            "item 2 must be >= 0, got -1");
  EXPECT_THROW(Params(s, {}), ConfigError);  // noise is required
  EXPECT_THROW(Params(s, {{"noise", 1.0}, {"nois", 1.0}}), ConfigError);
}

}  // namespace
}  // namespace quench::parameters_test
