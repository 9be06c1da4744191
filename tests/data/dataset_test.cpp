// load_dataset: column selection, every split rule, test files and standardization.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "quench/dataset.h"
#include "quench/errors.h"
#include "test_util.h"

namespace quench::dataset_test {
namespace {

using testing::data_file;
using DatasetFile = testing::ScratchDir;

DataSpec spec_for(const std::string& file) {
  DataSpec spec;
  spec.train_file = data_file(file);
  return spec;
}

/// Expects load_dataset(spec) to throw a DataError naming `file`, `row` and `column` (when not
/// empty) whose what() contains every string in `parts`.
void expect_error(const DataSpec& spec, const std::string& file, int row, const std::string& column,
                  const std::vector<std::string>& parts) {
  try {
    load_dataset(spec);
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), file) << what;
    EXPECT_EQ(e.row(), row) << what;
    EXPECT_EQ(e.column(), column) << what;
    EXPECT_NE(what.find(file), std::string::npos) << what;
    if (row > 0) {
      EXPECT_NE(what.find("row " + std::to_string(row)), std::string::npos) << what;
    }
    if (!column.empty()) {
      EXPECT_NE(what.find("'" + column + "'"), std::string::npos) << what;
    }
    for (const auto& part : parts) EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

/// Mean and sample standard deviation, written out.
void mean_sd(const std::vector<double>& x, double& mean, double& sd) {
  mean = 0;
  for (double v : x) mean += v;
  mean /= double(x.size());
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  sd = std::sqrt(ss / double(x.size() - 1));
}

TEST(Dataset, BostonAllRowsTrain) {
  const Dataset d = load_dataset(spec_for("boston.csv"));
  EXPECT_EQ(d.name, "boston");
  ASSERT_EQ(d.X_train.rows(), 506);
  ASSERT_EQ(d.X_train.cols(), 13);
  ASSERT_EQ(d.y_train.size(), 506);
  EXPECT_EQ(d.X_test.rows(), 0);
  EXPECT_EQ(d.X_test.cols(), 13);
  EXPECT_EQ(d.y_test.size(), 0);
  ASSERT_EQ(d.input_names.size(), 13u);
  EXPECT_EQ(d.input_names.front(), "crim");
  EXPECT_EQ(d.input_names.back(), "lstat");
  EXPECT_EQ(d.X_train(0, 0), 0.00632);
  EXPECT_EQ(d.X_train(0, 5), 6.575);
  EXPECT_EQ(d.X_train(0, 12), 4.98);
  EXPECT_EQ(d.y_train(0), 24.0);
  EXPECT_EQ(d.y_train(505), 11.9);
  // No standardization: mean 0, scale 1.
  ASSERT_EQ(d.input_mean.size(), 13);
  ASSERT_EQ(d.input_scale.size(), 13);
  EXPECT_EQ(d.input_mean.cwiseAbs().sum(), 0.0);
  EXPECT_EQ(d.input_scale.sum(), 13.0);
  EXPECT_EQ(d.target_mean, 0.0);
  EXPECT_EQ(d.target_scale, 1.0);
}

TEST(Dataset, ListedInputsKeepTheirOrder) {
  DataSpec spec = spec_for("boston.csv");
  spec.inputs = {"lstat", "rm"};
  const Dataset d = load_dataset(spec);
  ASSERT_EQ(d.X_train.cols(), 2);
  EXPECT_EQ(d.input_names, (std::vector<std::string>{"lstat", "rm"}));
  EXPECT_EQ(d.X_train(0, 0), 4.98);
  EXPECT_EQ(d.X_train(0, 1), 6.575);
}

TEST(Dataset, OtherTargetColumn) {
  DataSpec spec = spec_for("boston.csv");
  spec.target = "rm";
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.X_train.cols(), 13);
  EXPECT_EQ(d.y_train(0), 6.575);
  EXPECT_EQ(d.input_names.back(), "y");
}

TEST(Dataset, StandardizationUsesTrainingRowsOnly) {
  DataSpec spec = spec_for("boston.csv");
  spec.split = SplitRule::first_train;
  spec.count = 400;
  spec.standardize_inputs = true;
  spec.standardize_target = true;
  const Dataset d = load_dataset(spec);
  ASSERT_EQ(d.X_train.rows(), 400);
  ASSERT_EQ(d.X_test.rows(), 106);
  for (Eigen::Index j = 0; j < d.X_train.cols(); ++j) {
    const auto col = d.X_train.col(j);
    const double mean = col.mean();
    const double sd = std::sqrt((col.array() - mean).square().sum() / 399.0);
    EXPECT_NEAR(mean, 0.0, 1e-12) << d.input_names[j];
    EXPECT_NEAR(sd, 1.0, 1e-12) << d.input_names[j];
  }
  const double y_mean = d.y_train.mean();
  EXPECT_NEAR(y_mean, 0.0, 1e-12);
  EXPECT_NEAR(std::sqrt((d.y_train.array() - y_mean).square().sum() / 399.0), 1.0, 1e-12);

  // By hand: column rm (index 5) and the target, from the raw file's first 400 rows.
  const Eigen::MatrixXd raw = to_numbers(read_csv(data_file("boston.csv")));
  std::vector<double> rm, y;
  for (int i = 0; i < 400; ++i) {
    rm.push_back(raw(i, 5));
    y.push_back(raw(i, 13));
  }
  double rm_mean, rm_sd, y_mu, y_sd;
  mean_sd(rm, rm_mean, rm_sd);
  mean_sd(y, y_mu, y_sd);
  EXPECT_NEAR(d.input_mean(5), rm_mean, 1e-12);
  EXPECT_NEAR(d.input_scale(5), rm_sd, 1e-12);
  EXPECT_NEAR(d.target_mean, y_mu, 1e-12);
  EXPECT_NEAR(d.target_scale, y_sd, 1e-12);
  // Test row 0 is data row 400; test row 105 is the last row.
  EXPECT_NEAR(d.X_test(0, 5), (raw(400, 5) - rm_mean) / rm_sd, 1e-12);
  EXPECT_NEAR(d.y_test(105), (raw(505, 13) - y_mu) / y_sd, 1e-12);
  // The test set is not standardized by itself: its mean is not 0.
  EXPECT_GT(std::abs(d.X_test.col(5).mean()), 0.1);
}

TEST_F(DatasetFile, ConstantColumnKeepsScaleOne) {
  DataSpec spec;
  spec.train_file = write("const.csv", "a,c,y\n1,5,1\n2,5,2\n4,5,3\n");
  spec.standardize_inputs = true;
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.name, "const");
  EXPECT_EQ(d.input_scale(1), 1.0);
  EXPECT_EQ(d.input_mean(1), 5.0);
  EXPECT_EQ(d.X_train.col(1).cwiseAbs().sum(), 0.0);
  // Column a: mean 7/3, sample sd sqrt(((4/3)^2 + (1/3)^2 + (5/3)^2) / 2) = sqrt(7/3).
  EXPECT_NEAR(d.input_mean(0), 7.0 / 3.0, 1e-15);
  EXPECT_NEAR(d.input_scale(0), std::sqrt(7.0 / 3.0), 1e-15);
  EXPECT_NEAR(d.X_train(2, 0), (4.0 - 7.0 / 3.0) / std::sqrt(7.0 / 3.0), 1e-15);
  EXPECT_TRUE(d.X_train.allFinite());
}

TEST(Dataset, SonarTrainColumnSplit) {
  DataSpec spec = spec_for("sonar.csv");
  spec.split = SplitRule::column;
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.X_train.rows(), 104);
  EXPECT_EQ(d.X_test.rows(), 104);
  EXPECT_EQ(d.X_train.cols(), 60);
  EXPECT_EQ(d.input_names.size(), 60u);
  EXPECT_EQ(d.input_names.back(), "V60");
  // 55 rocks (-1) and 49 mines (+1) train; 42 and 62 test.
  EXPECT_EQ(d.y_train.sum(), 49.0 - 55.0);
  EXPECT_EQ(d.y_test.sum(), 62.0 - 42.0);
}

// The R write.csv export of Crabs (examples/data/make_crabs_r_export.sh: row-name column,
// quoted header, "F"/"M" target, CRLF, NA in four test rows) loads as the plain file does:
// the same standardized training inputs and labels bit for bit, the test rows without the four.
TEST(Dataset, RExportOfCrabsLoadsLikeThePlainFile) {
  DataSpec plain = spec_for("crabs_spread.csv");
  plain.split = SplitRule::column;
  plain.standardize_inputs = true;
  plain.target = "y";
  plain.inputs = {"sp", "FL", "RW", "CL", "CW", "BD"};
  DataSpec r_export = plain;
  r_export.train_file = data_file("crabs_r_export.csv");
  r_export.target = "sex";
  r_export.missing = MissingRule::drop_rows;
  const Dataset a = load_dataset(plain), b = load_dataset(r_export);
  EXPECT_EQ(b.X_train, a.X_train);
  EXPECT_EQ(b.y_train, a.y_train);
  EXPECT_EQ(b.dropped_rows, 4);
  ASSERT_EQ(b.X_test.rows(), a.X_test.rows() - 4);
  EXPECT_EQ(b.notes.at("data.label_mapping"), "F -> -1, M -> +1");
  // The dropped test crabs are file rows 12, 61, 114, 164: test positions 6, 35, 67, 97.
  Eigen::Index j = 0;
  for (Eigen::Index i = 0; i < a.X_test.rows(); ++i) {
    if (i == 6 || i == 35 || i == 67 || i == 97) continue;
    EXPECT_EQ(b.X_test.row(j), a.X_test.row(i)) << "test row " << i;
    EXPECT_EQ(b.y_test(j), a.y_test(i));
    ++j;
  }
}

TEST(Dataset, CrabsColumnSplit) {
  DataSpec spec = spec_for("crabs.csv");
  spec.split = SplitRule::column;
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.X_train.rows(), 80);
  EXPECT_EQ(d.X_test.rows(), 120);
  EXPECT_EQ(d.input_names, (std::vector<std::string>{"sp", "FL", "RW", "CL", "CW", "BD"}));
  EXPECT_EQ(d.X_train(0, 1), 8.1);
}

TEST(Dataset, WithoutColumnRuleTheSplitColumnIsAnInput) {
  const Dataset d = load_dataset(spec_for("crabs.csv"));
  EXPECT_EQ(d.X_train.rows(), 200);
  EXPECT_EQ(d.input_names.back(), "train");
}

TEST(Dataset, FirstTrainAndFirstTest) {
  DataSpec spec = spec_for("boston.csv");
  spec.split = SplitRule::first_train;
  spec.count = 505;
  Dataset d = load_dataset(spec);
  EXPECT_EQ(d.X_train.rows(), 505);
  EXPECT_EQ(d.X_test.rows(), 1);
  EXPECT_EQ(d.y_test(0), 11.9);

  spec.split = SplitRule::first_test;
  spec.count = 6;
  d = load_dataset(spec);
  EXPECT_EQ(d.X_test.rows(), 6);
  EXPECT_EQ(d.X_train.rows(), 500);
  EXPECT_EQ(d.y_test(0), 24.0);
  EXPECT_EQ(d.y_train(499), 11.9);
  EXPECT_EQ(d.y_train(0), 22.9);  // line 8: 0.08829,12.5,...,12.43,22.9
  EXPECT_EQ(d.X_train(0, 0), 0.08829);
}

TEST(Dataset, CountOutOfRange) {
  DataSpec spec = spec_for("boston.csv");
  for (auto rule : {SplitRule::first_train, SplitRule::first_test}) {
    spec.split = rule;
    for (std::int64_t count : {std::int64_t{0}, std::int64_t{-3}, std::int64_t{506}}) {
      spec.count = count;
      expect_error(spec, spec.train_file, 0, "",
                   {std::to_string(count), "outside [1, 505]", "506 rows"});
    }
  }
}

TEST_F(DatasetFile, FractionSplitIsSeededAndOrdered) {
  std::string text = "id,x,y\n";
  for (int i = 0; i < 100; ++i) {
    text += std::to_string(i) + "," + std::to_string(i * i) + "," + std::to_string(i % 3) + "\n";
  }
  DataSpec spec;
  spec.train_file = write("ids.csv", text);
  spec.split = SplitRule::fraction;
  spec.fraction = 0.7;
  spec.seed = 1;
  const Dataset a = load_dataset(spec);
  const Dataset b = load_dataset(spec);
  spec.seed = 2;
  const Dataset c = load_dataset(spec);

  ASSERT_EQ(a.X_train.rows(), 70);
  ASSERT_EQ(a.X_test.rows(), 30);
  EXPECT_EQ(a.X_train, b.X_train);
  EXPECT_EQ(a.X_test, b.X_test);
  EXPECT_NE(a.X_train, c.X_train);
  // Training and test rows are each in file order and together hold every row once.
  std::vector<int> seen(100, 0);
  for (const Eigen::MatrixXd* X : {&a.X_train, &a.X_test}) {
    for (Eigen::Index i = 0; i < X->rows(); ++i) {
      if (i > 0) {
        EXPECT_LT((*X)(i - 1, 0), (*X)(i, 0));
      }
      EXPECT_EQ((*X)(i, 1), (*X)(i, 0) * (*X)(i, 0));  // rows stay intact
      ++seen[static_cast<std::size_t>((*X)(i, 0))];
    }
  }
  for (int i = 0; i < 100; ++i) EXPECT_EQ(seen[i], 1) << i;
  // Pinned (checked against an independent Python mt19937_64 + Fisher-Yates): the same on
  // every platform, since neither std::shuffle nor std::uniform_int_distribution is used.
  std::vector<int> first_test;
  for (int i = 0; i < 5; ++i) first_test.push_back(static_cast<int>(a.X_test(i, 0)));
  EXPECT_EQ(first_test, (std::vector<int>{3, 4, 9, 11, 23}));
}

TEST(Dataset, FractionRoundsTrainingRows) {
  DataSpec spec = spec_for("boston.csv");
  spec.split = SplitRule::fraction;
  spec.fraction = 0.3;  // round(151.8) = 152
  spec.seed = 7;
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.X_train.rows(), 152);
  EXPECT_EQ(d.X_test.rows(), 354);
}

TEST(Dataset, FractionOutOfRange) {
  DataSpec spec = spec_for("boston.csv");
  spec.split = SplitRule::fraction;
  for (double f : {0.0, 1.0, -0.5, 1.5}) {
    spec.fraction = f;
    expect_error(spec, spec.train_file, 0, "", {"fraction", "outside (0, 1)"});
  }
  spec.fraction = 0.0005;  // rounds to 0 training rows
  expect_error(spec, spec.train_file, 0, "", {"= 0 is outside [1, 505]"});
  spec.fraction = 0.9995;  // rounds to every row
  expect_error(spec, spec.train_file, 0, "", {"= 506 is outside [1, 505]"});
}

TEST(Dataset, PimaTestFile) {
  DataSpec spec = spec_for("pima_train.csv");
  spec.test_file = data_file("pima_test.csv");
  spec.standardize_inputs = true;
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.name, "pima_train");
  EXPECT_EQ(d.X_train.rows(), 200);
  EXPECT_EQ(d.X_test.rows(), 332);
  EXPECT_EQ(d.X_train.cols(), 7);
  EXPECT_EQ(d.y_train.sum(), 68.0 - 132.0);
  EXPECT_EQ(d.y_test.sum(), 109.0 - 223.0);
  // Test row 0 is "6,148,72,35,33.6,0.627,50,1"; glu standardized with the training moments.
  EXPECT_NEAR(d.X_test(0, 1), (148.0 - d.input_mean(1)) / d.input_scale(1), 1e-12);
  EXPECT_NEAR(d.X_train.col(1).mean(), 0.0, 1e-12);
}

TEST_F(DatasetFile, TestFileColumnsMatchByName) {
  DataSpec spec;
  spec.train_file = write("tr.csv", "a,b,y\n1,2,3\n4,5,6\n");
  spec.test_file = write("te.csv", "y,extra,b,a\n30,0,20,10\n");
  const Dataset d = load_dataset(spec);
  ASSERT_EQ(d.X_test.rows(), 1);
  EXPECT_EQ(d.X_test(0, 0), 10.0);
  EXPECT_EQ(d.X_test(0, 1), 20.0);
  EXPECT_EQ(d.y_test(0), 30.0);

  spec.test_file = write("te2.csv", "a,y\n1,2\n");
  expect_error(spec, spec.test_file, 1, "b", {"no such input column", "available columns: a, y"});
  spec.test_file = write("te3.csv", "a,b\n1,2\n");
  expect_error(spec, spec.test_file, 1, "y", {"no such target column"});
  spec.test_file = write("te4.csv", "a,b,y\n1,2,3\n1,x,3\n");
  expect_error(spec, spec.test_file, 3, "b", {"expected a number, got 'x'"});
  spec.test_file = write("te5.csv", "a,b,y\n1,2,3\n");
  spec.train_file = write("tr2.csv", "a,b,y\n1,2,3\n4,inf,6\n");
  expect_error(spec, spec.train_file, 3, "b", {"not a finite number: 'inf'"});
}

TEST(Dataset, TestFileRejectsOtherSplitRules) {
  DataSpec spec = spec_for("pima_train.csv");
  spec.test_file = data_file("pima_test.csv");
  spec.split = SplitRule::first_train;
  spec.count = 10;
  expect_error(spec, spec.train_file, 0, "", {"'first_train'", "test file"});
}

TEST(Dataset, UnknownColumns) {
  DataSpec spec = spec_for("boston.csv");
  spec.target = "medv";
  expect_error(spec, spec.train_file, 1, "medv",
               {"no such target column", "available columns: crim, zn,", "lstat, y"});
  spec.target = "y";
  spec.inputs = {"rm", "rooms"};
  expect_error(spec, spec.train_file, 1, "rooms", {"no such input column", "crim"});
  spec.inputs = {"rm", "y"};
  expect_error(spec, spec.train_file, 1, "y", {"target cannot be an input"});
  spec.inputs = {"rm", "rm"};
  expect_error(spec, spec.train_file, 1, "rm", {"listed twice"});
  spec.inputs = {};
  spec.split = SplitRule::column;
  expect_error(spec, spec.train_file, 1, "train", {"no such split column", "crim"});
}

TEST(Dataset, SplitColumnCannotBeAnInput) {
  DataSpec spec = spec_for("sonar.csv");
  spec.split = SplitRule::column;
  spec.inputs = {"V1", "train"};
  expect_error(spec, spec.train_file, 1, "train", {"split column cannot be an input"});
}

TEST_F(DatasetFile, SplitColumnValuesMustBeZeroOrOne) {
  DataSpec spec;
  spec.split = SplitRule::column;
  spec.train_file = write("s.csv", "x,train,y\n1,1,0\n2,0,0\n3,0.5,0\n");
  expect_error(spec, spec.train_file, 4, "train", {"must be 0 or 1, got 0.5"});
  spec.train_file = write("s2.csv", "x,train,y\n1,1,0\n2,2,0\n");
  expect_error(spec, spec.train_file, 3, "train", {"got 2"});
  spec.train_file = write("s3.csv", "x,train,y\n1,0,0\n2,0,0\n");
  expect_error(spec, spec.train_file, 0, "train", {"no training rows"});
  spec.train_file = write("s4.csv", "x,train,y\n1,1,0\n2,1,0\n");
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.X_train.rows(), 2);
  EXPECT_EQ(d.X_test.rows(), 0);
  EXPECT_EQ(d.input_names, std::vector<std::string>{"x"});
}

TEST_F(DatasetFile, OnlyATargetColumn) {
  DataSpec spec;
  spec.train_file = write("y.csv", "y\n1\n2\n");
  expect_error(spec, spec.train_file, 1, "", {"no input columns"});
}

TEST(Dataset, MissingFile) {
  DataSpec spec;
  spec.train_file = "/nonexistent/quench/data.csv";
  expect_error(spec, spec.train_file, 0, "", {"cannot open file"});
}

TEST_F(DatasetFile, MissingValuesAreRefusedWithRowAndColumn) {
  DataSpec spec;
  spec.train_file = write("m.csv", "x,y\n1,2\n3,4\nNA,5\n");
  expect_error(spec, spec.train_file, 4, "x", {"missing value 'NA'", "missing: drop_rows"});
  spec.train_file = write("m2.csv", "x,y\n1,2\n3,\n");
  expect_error(spec, spec.train_file, 3, "y", {"missing value (empty field)"});
  spec.train_file = write("m3.csv", "x,y\n1,2\nnan,3\n");
  expect_error(spec, spec.train_file, 3, "x", {"missing value 'nan'"});
}

TEST_F(DatasetFile, DropRowsDropsOnlyRowsMissingAUsedColumn) {
  DataSpec spec;
  spec.missing = MissingRule::drop_rows;
  spec.inputs = {"x"};
  // z is not used: its NA keeps the row. Rows 3 (x) and 4 (y) are dropped.
  spec.train_file = write("d.csv", "x,y,z\n1,2,NA\nNA,3,1\n4,,1\n5,6,1\n7,8,NaN\n");
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.dropped_rows, 2);
  EXPECT_EQ(d.train_rows, (std::vector<int>{2, 5, 6}));
  EXPECT_EQ(d.X_train.col(0), (Eigen::VectorXd(3) << 1, 5, 7).finished());
  EXPECT_EQ(d.y_train, (Eigen::VectorXd(3) << 2, 6, 8).finished());
  EXPECT_EQ(d.notes.at("data.dropped_rows"), "2 rows with missing values dropped");
  // Non-numbers are still refused.
  spec.train_file = write("d2.csv", "x,y\n1,2\nabc,3\n");
  expect_error(spec, spec.train_file, 3, "x", {"expected a number, got 'abc'"});
}

TEST_F(DatasetFile, StringLabelsMapToPlusMinusOneInByteOrder) {
  DataSpec spec;
  spec.target = "diagnosis";
  spec.target_kind = TargetKind::binary;
  spec.train_file = write("l.csv", "x,diagnosis\n1,M\n2,B\n3,\"M\"\n");
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.y_train, (Eigen::VectorXd(3) << 1, -1, 1).finished());
  EXPECT_EQ(d.notes.at("data.label_mapping"), "B -> -1, M -> +1");
  spec.train_file = write("yn.csv", "x,diagnosis\n1,yes\n2,no\n");
  EXPECT_EQ(load_dataset(spec).notes.at("data.label_mapping"), "no -> -1, yes -> +1");
  // Quoted numbers are numbers: "1"/"-1" read as 1/-1, no mapping needed.
  spec.train_file = write("pm.csv", "x,diagnosis\n1,\"1\"\n2,\"-1\"\n");
  const Dataset q = load_dataset(spec);
  EXPECT_EQ(q.y_train, (Eigen::VectorXd(2) << 1, -1).finished());
  EXPECT_EQ(q.notes.count("data.label_mapping"), 0u);
}

TEST_F(DatasetFile, StringLabelsMustBeTwoClasses) {
  DataSpec spec;
  spec.train_file = write("l.csv", "x,y\n1,a\n2,b\n3,c\n");
  expect_error(spec, spec.train_file, 0, "y", {"exactly two classes, found 3: 'a', 'b', 'c'"});
  spec.train_file = write("l1.csv", "x,y\n1,a\n2,a\n");
  expect_error(spec, spec.train_file, 0, "y", {"found 1: 'a'"});
  spec.train_file = write("l2.csv", "x,y\n1,a\n2,\"b\x1b]0;\"\n");
  spec.train_file = write("lc.csv", "x,y\n1,a\n2,\"b\x1b]0;\"\n3,c\n");
  expect_error(spec, spec.train_file, 0, "y", {"'b\\x1b]0;'"});
}

// Counts, successes out of trials and the size column (exposure or trials): each value checked
// against the kind, naming the row and column; the size column is never an input; a test file
// must hold it too.
TEST_F(DatasetFile, CountsSuccessesAndSizesAreCheckedAgainstTheKind) {
  DataSpec spec;
  spec.target_reader = "likelihood 'poisson'";
  spec.target_kind = TargetKind::count;
  spec.train_file = write("c.csv", "x,days,y\n1,2,0\n2,1,3\n3,0.5,7\n");
  spec.size_column = "days";
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.input_names, std::vector<std::string>{"x"});
  EXPECT_EQ(d.size_train, (Eigen::VectorXd(3) << 2, 1, 0.5).finished());
  EXPECT_EQ(d.size_name, "days");
  const Observations o = observations(d, DataPart::train, TargetKind::count, "test");
  EXPECT_EQ(o[1].y, 3.0);
  EXPECT_EQ(o[2].size, 0.5);
  spec.train_file = write("neg.csv", "x,days,y\n1,2,0\n2,1,-1\n");
  expect_error(spec, spec.train_file, 3, "y",
               {"likelihood 'poisson' needs counts (non-negative integers), got -1"});
  spec.train_file = write("frac.csv", "x,days,y\n1,2,0.5\n");
  expect_error(spec, spec.train_file, 2, "y", {"needs counts", "got 0.5"});
  spec.train_file = write("exposure.csv", "x,days,y\n1,0,1\n");
  expect_error(spec, spec.train_file, 2, "days", {"needs a positive exposure, got 0"});
  spec.train_file = write("input.csv", "x,days,y\n1,1,1\n");
  spec.inputs = {"x", "days"};
  expect_error(spec, spec.train_file, 1, "days", {"the exposure column cannot be an input"});
  spec.inputs.clear();
  // A separate test file without the size column.
  spec.train_file = write("tr.csv", "x,days,y\n1,1,1\n2,1,0\n");
  spec.test_file = write("te.csv", "x,y\n1,1\n");
  expect_error(spec, spec.test_file, 1, "days", {"no such exposure column"});
  spec.test_file = write("te2.csv", "y,days,x\n4,3,1\n");
  const Dataset t = load_dataset(spec);
  EXPECT_EQ(t.size_test, (Eigen::VectorXd(1) << 3).finished());
  EXPECT_EQ(t.y_test(0), 4.0);
  spec.test_file.clear();

  spec.target_kind = TargetKind::successes;
  spec.target_reader = "likelihood 'binomial'";
  spec.size_column = "n";
  spec.train_file = write("s.csv", "x,n,y\n1,5,5\n2,3,0\n");
  EXPECT_EQ(load_dataset(spec).size_train, (Eigen::VectorXd(2) << 5, 3).finished());
  spec.train_file = write("above.csv", "x,n,y\n1,5,5\n2,3,4\n");
  expect_error(spec, spec.train_file, 3, "y",
               {"needs successes between 0 and the trials, got 4 successes of 3 trials "
                "(column 'n')"});
  spec.train_file = write("trials.csv", "x,n,y\n1,2.5,1\n");
  expect_error(spec, spec.train_file, 2, "n", {"needs a positive whole number of trials, got 2.5"});
  // No trials column: Bernoulli, at most one success.
  spec.size_column.clear();
  spec.train_file = write("b.csv", "x,y\n1,1\n2,2\n");
  expect_error(spec, spec.train_file, 3, "y", {"got 2 successes of 1 trial"});
  // Standardizing applies to real targets only.
  spec.train_file = write("st.csv", "x,y\n1,1\n2,0\n");
  spec.standardize_target = true;
  expect_error(spec, spec.train_file, 0, "y",
               {"standardize_target applies to real targets only; likelihood 'binomial' reads a "
                "successes target"});
}

TEST_F(DatasetFile, TargetMustFitTheLikelihood) {
  DataSpec spec;
  spec.target_kind = TargetKind::real;
  spec.train_file = write("n.csv", "x,y\n1,2.5\n2,M\n");
  expect_error(spec, spec.train_file, 3, "y", {"needs a numeric target, got 'M'"});
  spec.target_kind = TargetKind::binary;
  spec.train_file = write("c.csv", "x,y\n1,0\n2,1\n3,2\n");
  expect_error(spec, spec.train_file, 0, "y", {"exactly two classes", "found 3", "0, 1, 2"});
  spec.train_file = write("c2.csv", "x,y\n1,0\n2,1\n");
  EXPECT_EQ(load_dataset(spec).y_train.size(), 2);
}

TEST_F(DatasetFile, StandardizationOverflowIsRefused) {
  DataSpec spec;
  spec.train_file = write("o.csv", "x,big,y\n1,1e308,1\n2,-1e308,2\n3,1e308,3\n");
  const Dataset raw = load_dataset(spec);  // without standardization the values are kept
  EXPECT_EQ(raw.X_train(0, 1), 1e308);
  spec.standardize_inputs = true;
  expect_error(spec, spec.train_file, 0, "big",
               {"standardizing overflows", "not finite", "1e+308"});
  spec.standardize_inputs = false;
  spec.standardize_target = true;
  spec.train_file = write("o2.csv", "x,y\n1,1e308\n2,1e308\n");
  expect_error(spec, spec.train_file, 0, "y", {"standardizing overflows"});
  spec.train_file = write("inf.csv", "x,y\n1,2\ninf,3\n");
  expect_error(spec, spec.train_file, 3, "x", {"not a finite number: 'inf'"});
}

TEST_F(DatasetFile, RowNameColumnsAreIgnoredAndNoted) {
  DataSpec spec;
  spec.train_file = write("r.csv", "\"\",\"x\",\"y\"\n\"1\",1.5,2\n\"2\",2.5,3\n");
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.input_names, std::vector<std::string>{"x"});
  EXPECT_EQ(d.X_train(1, 0), 2.5);
  EXPECT_EQ(d.notes.at("data.row_names"),
            "the unnamed first column holds row names and is ignored");
}

TEST_F(DatasetFile, LabelErrorsNameTheFileAndRow) {
  DataSpec spec;
  spec.split = SplitRule::column;
  spec.train_file = write("t.csv", "x,train,y\n1,0,1\n2,1,-1\n3,1,5\n");
  const Dataset d = load_dataset(spec);
  const DataError e = target_error(d, DataPart::train, 1, "bad label");
  EXPECT_EQ(e.file(), spec.train_file);
  EXPECT_EQ(e.row(), 4);
  EXPECT_EQ(e.column(), "y");
  EXPECT_EQ(target_error(d, DataPart::test, 0, "x").row(), 2);
}

TEST_F(DatasetFile, CheckDatasetCollectsEveryProblem) {
  DataSpec spec;
  spec.train_file = write("c.csv", "xa,xb,y\n1,a,2\nNA,2,3\n");
  spec.inputs = {"xa", "xb"};
  const auto found = check_dataset(spec);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].column(), "xa");
  EXPECT_EQ(found[0].row(), 3);
  EXPECT_EQ(found[1].column(), "xb");
  EXPECT_EQ(found[1].row(), 2);
  spec.inputs = {"xa", "xc", "xd"};
  spec.target = "z";
  std::vector<std::string> names;
  const auto columns = check_dataset(spec, &names);
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[1].column(), "xc");
  EXPECT_EQ(names, (std::vector<std::string>{"xa", "xb", "y"}));
  spec.target = "y";
  spec.inputs = {};
  EXPECT_TRUE(check_dataset(spec).size() == 2u);
  spec.train_file = write("ok.csv", "x,y\n1,2\n");
  EXPECT_TRUE(check_dataset(spec).empty());
}

// What validation loads while checking is what a run loads (the files read once), and nothing
// when a problem was found.
TEST_F(DatasetFile, CheckDatasetGivesTheDataSetLoadDatasetLoads) {
  DataSpec spec;
  spec.train_file = write("s.csv", "x1,x2,train,y\n1,4,1,b\n2,5,0,a\n3,7,1,a\n0,1,1,b\n");
  spec.split = SplitRule::column;
  spec.standardize_inputs = true;
  spec.target_kind = TargetKind::classes;
  Dataset checked;
  ASSERT_TRUE(check_dataset(spec, nullptr, &checked).empty());
  const Dataset loaded = load_dataset(spec);
  EXPECT_EQ(checked.X_train, loaded.X_train);
  EXPECT_EQ(checked.X_test, loaded.X_test);
  EXPECT_EQ(checked.y_train, loaded.y_train);
  EXPECT_EQ(checked.y_test, loaded.y_test);
  EXPECT_EQ(checked.class_names, loaded.class_names);
  EXPECT_EQ(checked.input_names, loaded.input_names);
  EXPECT_EQ(checked.input_scale, loaded.input_scale);
  EXPECT_EQ(checked.train_rows, loaded.train_rows);
  EXPECT_EQ(checked.notes, loaded.notes);
  EXPECT_EQ(checked.classes, loaded.classes);
  EXPECT_EQ(checked.input_mean, loaded.input_mean);
  EXPECT_EQ(checked.test_rows, loaded.test_rows);
  // A problem found after the rows were read (both target transforms asked for): reported, and
  // no data set handed over although the loading ran to its end.
  spec.train_file = write("s2.csv", "x1,x2,train,y\n1,4,1,0.5\n2,5,0,1.5\n3,7,1,2\n0,1,1,3\n");
  spec.target_kind = TargetKind::real;
  spec.standardize_target = true;
  spec.center_target = true;
  Dataset none;
  EXPECT_EQ(check_dataset(spec, nullptr, &none).size(), 1u);
  EXPECT_EQ(none.X_train.size(), 0);
}

// TargetKind::classes: C >= 2 classes, read as class indices 0..C-1 in sorted order.
TEST_F(DatasetFile, StringClassesMapToIndicesInByteOrder) {
  DataSpec spec;
  spec.target = "animal";
  spec.target_kind = TargetKind::classes;
  spec.train_file = write("a.csv", "x,animal\n1,dog\n2,eel\n3,cat\n4,dog\n5,\"eel\"\n6,cat\n");
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.classes, 3);
  EXPECT_EQ(d.class_names, (std::vector<std::string>{"cat", "dog", "eel"}));
  EXPECT_EQ(d.y_train, (Eigen::VectorXd(6) << 1, 2, 0, 1, 2, 0).finished());
  EXPECT_EQ(d.notes.at("data.label_mapping"), "'cat' -> 0, 'dog' -> 1, 'eel' -> 2");
  EXPECT_EQ(class_indices(d, DataPart::train, "multiclass_ep"),
            (Eigen::VectorXi(6) << 1, 2, 0, 1, 2, 0).finished());
  EXPECT_EQ(class_indices(d, DataPart::test, "multiclass_ep").size(), 0);

  // A test file's labels share the mapping; its rows hold training classes only.
  spec.test_file = write("at.csv", "animal,x\neel,7\ncat,8\n");
  const Dataset t = load_dataset(spec);
  EXPECT_EQ(t.classes, 3);
  EXPECT_EQ(t.y_test, (Eigen::VectorXd(2) << 2, 0).finished());
  EXPECT_EQ(class_indices(t, DataPart::test, "one_vs_rest"),
            (Eigen::VectorXi(2) << 2, 0).finished());

  // Two string classes are indices 0/1 too (not -1/+1), and the mapping says so.
  spec.test_file.clear();
  spec.train_file = write("b.csv", "x,animal\n1,M\n2,B\n");
  const Dataset b = load_dataset(spec);
  EXPECT_EQ(b.classes, 2);
  EXPECT_EQ(b.y_train, (Eigen::VectorXd(2) << 1, 0).finished());
  EXPECT_EQ(b.notes.at("data.label_mapping"), "'B' -> 0, 'M' -> 1");
}

TEST_F(DatasetFile, IntegerClassesMapToIndicesByValue) {
  DataSpec spec;
  spec.target_kind = TargetKind::classes;
  spec.split = SplitRule::first_train;
  spec.count = 6;
  spec.train_file = write("i.csv", "x,y\n1,7\n2,1\n3,3\n4,\"5\"\n5,2\n6,-0\n7,5\n8,0\n9,7\n");
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.classes, 6);
  EXPECT_EQ(d.class_names, (std::vector<std::string>{"0", "1", "2", "3", "5", "7"}));
  EXPECT_EQ(d.y_train, (Eigen::VectorXd(6) << 5, 1, 3, 4, 2, 0).finished());
  EXPECT_EQ(d.y_test, (Eigen::VectorXd(3) << 4, 0, 5).finished());
  EXPECT_EQ(d.notes.at("data.label_mapping"),
            "'0' -> 0, '1' -> 1, '2' -> 2, '3' -> 3, '5' -> 4, '7' -> 5");
  EXPECT_EQ(class_indices(d, DataPart::test, "multiclass_ep"),
            (Eigen::VectorXi(3) << 4, 0, 5).finished());

  spec.split = SplitRule::none;
  spec.train_file = write("j.csv", "x,y\n1,1\n2,2\n3,3\n4,5\n5,7\n6,1\n");
  const Dataset j = load_dataset(spec);
  EXPECT_EQ(j.class_names, (std::vector<std::string>{"1", "2", "3", "5", "7"}));
  EXPECT_EQ(j.y_train, (Eigen::VectorXd(6) << 0, 1, 2, 3, 4, 0).finished());
  EXPECT_EQ(j.notes.at("data.label_mapping"), "'1' -> 0, '2' -> 1, '3' -> 2, '5' -> 3, '7' -> 4");
}

TEST_F(DatasetFile, ManyClassesAreShortenedInTheMapping) {
  DataSpec spec;
  spec.target_kind = TargetKind::classes;
  std::string text = "x,y\n";
  for (int c = 0; c < 12; ++c) text += std::to_string(c) + "," + std::to_string(c) + "\n";
  spec.train_file = write("m.csv", text);
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.classes, 12);
  EXPECT_EQ(d.class_names.back(), "11");
  const std::string& mapping = d.notes.at("data.label_mapping");
  EXPECT_EQ(mapping.substr(0, 20), "'0' -> 0, '1' -> 1, ") << mapping;
  EXPECT_EQ(mapping.substr(mapping.size() - 15), ", '9' -> 9, ...") << mapping;
}

TEST_F(DatasetFile, ClassLabelsMustBeIntegersOrStrings) {
  DataSpec spec;
  spec.target_kind = TargetKind::classes;
  spec.train_file = write("f.csv", "x,y\n1,1\n2,2\n3,1.5\n4,2.5\n");
  expect_error(spec, spec.train_file, 4, "y",
               {"class labels must be integers or strings, got 1.5"});
  spec.train_file = write("mix.csv", "x,y\n1,1\n2,2\n3,a\n4,b\n");
  expect_error(spec, spec.train_file, 4, "y",
               {"class labels must be all integers or all strings",
                "the string 'a' here and the number 1 at row 2"});
  // The first label read sets the kind, also across the training and test files.
  spec.train_file = write("s.csv", "x,y\n1,a\n2,b\n");
  spec.test_file = write("st.csv", "x,y\n1,a\n2,3\n");
  expect_error(spec, spec.test_file, 3, "y",
               {"the number 3 here and the string 'a' at row 2 of " + spec.train_file});
}

// 2^53 + 1 reads as 2^53: the two labels would be one class. Refused at the first such label,
// of either sign; 2^53 - 1 (the largest integer every neighbour of which is distinct) passes.
TEST_F(DatasetFile, IntegerClassLabelsBeyondTwoToThe53AreRefused) {
  DataSpec spec;
  spec.target_kind = TargetKind::classes;
  spec.train_file = write("big.csv", "x,y\n1,9007199254740992\n2,9007199254740993\n3,1\n");
  expect_error(spec, spec.train_file, 2, "y",
               {"integer class label '9007199254740992' is at least 2^53 in magnitude"});
  spec.train_file = write("neg.csv", "x,y\n1,1\n2,-100000000000000000002\n");
  expect_error(spec, spec.train_file, 3, "y", {"'-100000000000000000002' is at least 2^53"});
  spec.train_file = write("ok.csv", "x,y\n1,9007199254740991\n2,9007199254740990\n");
  EXPECT_EQ(load_dataset(spec).classes, 2);
}

TEST_F(DatasetFile, ClassTargetsNeedTwoTrainingClasses) {
  DataSpec spec;
  spec.target_kind = TargetKind::classes;
  spec.train_file = write("one.csv", "x,y\n1,a\n2,a\n");
  expect_error(spec, spec.train_file, 0, "y",
               {"needs at least two classes in the training rows, found 1: 'a'"});
  // Two classes in the file, one among the training rows (the other is test-only, too).
  spec.split = SplitRule::first_train;
  spec.count = 2;
  spec.train_file = write("split.csv", "x,y\n1,3\n2,3\n3,4\n");
  expect_error(spec, spec.train_file, 0, "y",
               {"needs at least two classes in the training rows, found 1: '3'"});
}

TEST_F(DatasetFile, ClassesOnlyInTestRowsAreRefusedAtTheirRow) {
  DataSpec spec;
  spec.target_kind = TargetKind::classes;
  spec.train_file = write("tr.csv", "x,y\n1,a\n2,b\n3,a\n");
  spec.test_file = write("te.csv", "x,y\n1,a\n2,x\n3,b\n4,y\n5,x\n");
  expect_error(spec, spec.test_file, 3, "y", {"class 'x' occurs only in test rows", "(so do 'y')"});
  // After a split: the test rows are rows of the training file.
  spec.test_file.clear();
  spec.split = SplitRule::column;
  spec.train_file = write("sp.csv", "x,train,y\n1,1,a\n2,0,b\n3,1,b\n4,0,c\n5,1,a\n");
  expect_error(spec, spec.train_file, 5, "y", {"class 'c' occurs only in test rows"});
  // Dropped rows do not count.
  spec.missing = MissingRule::drop_rows;
  spec.train_file = write("dr.csv", "x,train,y\n1,1,a\n2,0,b\n3,1,b\nNA,0,c\n5,1,a\n");
  const Dataset d = load_dataset(spec);
  EXPECT_EQ(d.classes, 2);
  EXPECT_EQ(d.y_test, (Eigen::VectorXd(1) << 1).finished());
}

TEST_F(DatasetFile, MoreThanMaxClassesIsRefused) {
  DataSpec spec;
  spec.target_kind = TargetKind::classes;
  std::string text = "x,y\n";
  for (int i = 0; i < 1002; ++i) text += "1," + std::to_string(i % 1001) + "\n";
  spec.train_file = write("many.csv", text);
  expect_error(spec, spec.train_file, 1002, "y",
               {"found 1001 distinct labels, more than 1000 classes (is the target a class "
                "label?)"});
  const auto found = check_dataset(spec);  // (no test-only or training-class report besides)
  ASSERT_EQ(found.size(), 1u);
  text = "x,y\n";
  for (int i = 0; i < 1000; ++i) text += "1,c" + std::to_string(i) + "\n";
  spec.train_file = write("max.csv", text);
  EXPECT_EQ(load_dataset(spec).classes, kMaxClasses);
}

TEST_F(DatasetFile, CheckDatasetCollectsEveryClassProblem) {
  DataSpec spec;
  spec.target_kind = TargetKind::classes;
  spec.split = SplitRule::first_train;
  spec.count = 2;
  spec.train_file = write("c.csv", "x,y\n1,1\n2,1\n3,2.5\n4,3\n");
  const auto found = check_dataset(spec);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].row(), 4);
  EXPECT_NE(std::string(found[0].what()).find("integers or strings, got 2.5"), std::string::npos);
  EXPECT_EQ(found[1].row(), 0);
  EXPECT_NE(std::string(found[1].what()).find("found 1: '1'"), std::string::npos);
  EXPECT_EQ(found[2].row(), 4);
  EXPECT_EQ(found[2].column(), "y");
  EXPECT_NE(std::string(found[2].what()).find("class '2.5' occurs only in test rows (so do '3')"),
            std::string::npos)
      << found[2].what();
}

TEST_F(DatasetFile, ClassIndicesNeedAClassesTarget) {
  DataSpec spec;
  spec.train_file = write("n.csv", "x,y\n1,0\n2,1\n");
  const Dataset numeric = load_dataset(spec);  // TargetKind::any: no class indices
  EXPECT_EQ(numeric.classes, 0);
  try {
    class_indices(numeric, DataPart::train, "multiclass_ep");
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_EQ(e.row(), 2);
    EXPECT_EQ(e.column(), "y");
    EXPECT_NE(std::string(e.what()).find("multiclass_ep needs class labels 0..C-1 (a classes "
                                         "target)"),
              std::string::npos)
        << e.what();
  }
  spec.target_kind = TargetKind::classes;
  spec.standardize_target = true;  // refused: the indices would no longer be indices
  spec.train_file = write("c.csv", "x,y\n1,a\n2,b\n3,c\n");
  try {
    load_dataset(spec);
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_EQ(e.column(), "y");
    EXPECT_NE(std::string(e.what()).find("standardize_target does not apply to class labels"),
              std::string::npos)
        << e.what();
  }
  // A binary engine on a C > 2 classes target names the multi-class engines.
  spec.standardize_target = false;
  const Dataset three = load_dataset(spec);
  try {
    class_labels(three, DataPart::train, "tap");
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_EQ(e.row(), 2);  // indices 0, 1, 2 are neither all 0/1 nor +-1: the first row
    EXPECT_NE(std::string(e.what()).find("tap is a binary classifier and the target has 3 "
                                         "classes: use multiclass_ep, or one_vs_rest with "
                                         "inner: tap"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(DatasetFile, TwoClassKindsKeepTheirMapping) {
  DataSpec spec;
  spec.train_file = write("l.csv", "x,y\n1,M\n2,B\n");
  for (const TargetKind kind : {TargetKind::any, TargetKind::binary}) {
    spec.target_kind = kind;
    const Dataset d = load_dataset(spec);
    EXPECT_EQ(d.classes, 0);
    EXPECT_EQ(d.y_train, (Eigen::VectorXd(2) << 1, -1).finished());
    EXPECT_EQ(d.class_names, (std::vector<std::string>{"B", "M"}));
    EXPECT_EQ(d.notes.at("data.label_mapping"), "B -> -1, M -> +1");
  }
  spec.target_kind = TargetKind::any;
  spec.train_file = write("c.csv", "x,y\n1,a\n2,b\n3,c\n");
  expect_error(spec, spec.train_file, 0, "y", {"exactly two classes, found 3"});
}

}  // namespace
}  // namespace quench::dataset_test
