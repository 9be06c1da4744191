// did_you_mean: case-insensitive Damerau-Levenshtein within max(1, length / 3) edits.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pipeline_spec.h"

namespace quench {
namespace {

const std::vector<std::string> kParams = {"samples", "inner", "quantiles", "parallel"};

TEST(pipeline_did_you_mean, FindsCloseWords) {
  EXPECT_EQ(did_you_mean("sampels", kParams), "samples");   // transposition: one edit
  EXPECT_EQ(did_you_mean("sample", kParams), "samples");    // deletion
  EXPECT_EQ(did_you_mean("samplesx", kParams), "samples");  // insertion
  EXPECT_EQ(did_you_mean("quantyles", kParams), "quantiles");
  EXPECT_EQ(did_you_mean("gausian", {"gaussian", "matern"}), "gaussian");
}

TEST(pipeline_did_you_mean, IgnoresCase) {
  EXPECT_EQ(did_you_mean("SAMPLES", kParams), "samples");
  EXPECT_EQ(did_you_mean("Inner", kParams), "inner");
  EXPECT_EQ(did_you_mean("paralel", {"Parallel"}), "Parallel");  // returned as spelt
}

TEST(pipeline_did_you_mean, ThresholdGrowsWithLength) {
  // length 2..5: one edit; length 6..8: two edits.
  EXPECT_EQ(did_you_mean("nx", {"nu"}), "nu");
  EXPECT_EQ(did_you_mean("xy", {"nu"}), "");
  EXPECT_EQ(did_you_mean("innr", kParams), "inner");
  EXPECT_EQ(did_you_mean("inr", kParams), "");  // two edits, threshold 1
  EXPECT_EQ(did_you_mean("smples", kParams), "samples");
  EXPECT_EQ(did_you_mean("smpls", kParams), "");  // two edits, threshold 1
  EXPECT_EQ(did_you_mean("sampless", kParams), "samples");
  EXPECT_EQ(did_you_mean("smplesxx", kParams), "");  // three edits, threshold 2
}

TEST(pipeline_did_you_mean, NothingClose) {
  EXPECT_EQ(did_you_mean("completely_different", kParams), "");
  EXPECT_EQ(did_you_mean("samples", {}), "");
  EXPECT_EQ(did_you_mean("", kParams), "");
}

TEST(pipeline_did_you_mean, TiesGoToTheFirstCandidate) {
  EXPECT_EQ(did_you_mean("hat", {"cat", "bat"}), "cat");
  EXPECT_EQ(did_you_mean("hat", {"bat", "cat"}), "bat");
  EXPECT_EQ(did_you_mean("rati", {"rate", "ratio"}), "rate");
  // A closer candidate later in the list still wins.
  EXPECT_EQ(did_you_mean("ratoi", {"rate", "ratio"}), "ratio");
}

}  // namespace
}  // namespace quench
