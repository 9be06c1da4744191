// A run's results as bytes (how a run done on another MPI process travels): decode(encode(r))
// is r to the bit — every double, NaN and infinities included, matrices column-major —, and
// bytes it did not make are refused.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "results_codec.h"

namespace quench {
namespace {

TEST(ResultsCodec, RoundTripKeepsEveryBit) {
  Results r;
  r.engine = "monte_carlo";
  r.plugin = "mc_bootstrap";
  r.sweep = {{"resampler.ratio", 0.1}};
  r.scalars = {{"a", 1.0 / 3.0},
               {"nan", std::numeric_limits<double>::quiet_NaN()},
               {"inf", -std::numeric_limits<double>::infinity()},
               {"tiny", 4.9e-324}};
  r.vectors["v"] = Eigen::VectorXd::LinSpaced(7, -1.0, std::sqrt(2.0));
  r.vectors["empty"] = Eigen::VectorXd();
  r.matrices["m"] = (Eigen::MatrixXd(2, 3) << 1, 2, 3, 4, 5, 6.5e300).finished();
  r.info = {{"loss", "zero_one"}};
  r.timings = {{"total", 0.25}};
  r.status = {RunStatus::not_converged, "reason", 17};
  const Results d = decode_results(encode_results(r));
  EXPECT_EQ(d.engine, r.engine);
  EXPECT_EQ(d.plugin, r.plugin);
  EXPECT_EQ(d.sweep, r.sweep);
  EXPECT_EQ(d.info, r.info);
  EXPECT_EQ(d.timings, r.timings);
  EXPECT_EQ(d.status.code, r.status.code);
  EXPECT_EQ(d.status.message, r.status.message);
  EXPECT_EQ(d.status.iterations, r.status.iterations);
  ASSERT_EQ(d.scalars.size(), r.scalars.size());
  EXPECT_EQ(d.scalars.at("a"), r.scalars.at("a"));
  EXPECT_TRUE(std::isnan(d.scalars.at("nan")));
  EXPECT_EQ(d.scalars.at("inf"), r.scalars.at("inf"));
  EXPECT_EQ(d.scalars.at("tiny"), r.scalars.at("tiny"));
  EXPECT_EQ(d.vectors.at("v"), r.vectors.at("v"));
  EXPECT_EQ(d.vectors.at("empty").size(), 0);
  EXPECT_EQ(d.matrices.at("m"), r.matrices.at("m"));
}

TEST(ResultsCodec, ForeignBytesAreRefused) {
  EXPECT_THROW(decode_results("not cbor at all"), Error);
  EXPECT_THROW(decode_results(""), Error);
}

}  // namespace
}  // namespace quench
