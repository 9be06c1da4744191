// read_csv: values of a real file, tolerated formatting, and every error with its position.
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "quench/dataset.h"
#include "quench/errors.h"
#include "test_util.h"

namespace quench {
namespace {

using testing::data_file;

class CsvTest : public testing::ScratchDir {
 protected:
  /// Reads `text` as a CSV file and expects a DataError at (row, column) whose message
  /// contains `message`. what() must name the file, the row and the column.
  void expect_error(const std::string& text, int row, const std::string& column,
                    const std::string& message) {
    const std::string path = write("bad.csv", text);
    try {
      read_csv(path);
      FAIL() << "no DataError for:\n" << text;
    } catch (const DataError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.row(), row) << what;
      EXPECT_EQ(e.column(), column) << what;
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find("row " + std::to_string(row)), std::string::npos) << what;
      if (!column.empty()) {
        EXPECT_NE(what.find("'" + column + "'"), std::string::npos) << what;
      }
      EXPECT_NE(what.find(message), std::string::npos) << what;
    }
  }
};

TEST(Csv, BostonDimensionsAndValues) {
  const CsvTable t = read_csv(data_file("boston.csv"));
  EXPECT_EQ(t.file, data_file("boston.csv"));
  ASSERT_EQ(t.values.rows(), 506);
  ASSERT_EQ(t.values.cols(), 14);
  ASSERT_EQ(t.columns.size(), 14u);
  EXPECT_EQ(t.columns.front(), "crim");
  EXPECT_EQ(t.columns.back(), "y");
  EXPECT_EQ(t.column_index("crim"), 0);
  EXPECT_EQ(t.column_index("lstat"), 12);
  EXPECT_EQ(t.column_index("y"), 13);
  EXPECT_EQ(t.column_index("medv"), -1);
  EXPECT_EQ(t.column_index(""), -1);
  // First row: 0.00632,18,2.31,0,0.538,6.575,65.2,4.09,1,296,15.3,396.9,4.98,24
  const double first[] = {0.00632, 18, 2.31, 0,    0.538, 6.575, 65.2,
                          4.09,    1,  296,  15.3, 396.9, 4.98,  24};
  for (int j = 0; j < 14; ++j) EXPECT_EQ(t.values(0, j), first[j]) << t.columns[j];
  // Last row: 0.04741,0,11.93,0,0.573,6.03,80.8,2.505,1,273,21,396.9,7.88,11.9
  EXPECT_EQ(t.values(505, 0), 0.04741);
  EXPECT_EQ(t.values(505, 7), 2.505);
  EXPECT_EQ(t.values(505, 13), 11.9);
}

TEST(Csv, SonarHas62Columns) {
  const CsvTable t = read_csv(data_file("sonar.csv"));
  EXPECT_EQ(t.values.rows(), 208);
  EXPECT_EQ(t.values.cols(), 62);
  EXPECT_EQ(t.column_index("train"), 60);
  EXPECT_EQ(t.values(0, 0), 0.02);
  EXPECT_EQ(t.values.col(60).sum(), 104.0);
}

TEST_F(CsvTest, ToleratesSpacesCrlfAndTrailingEmptyLines) {
  const std::string text = " a , b ,c\r\n1, 2.5 ,  -3e2 \r\n\t+4,.5,1.\r\n\r\n\n  \n";
  const CsvTable t = read_csv(write("ok.csv", text));
  ASSERT_EQ(t.columns, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(t.values.rows(), 2);
  EXPECT_EQ(t.values(0, 0), 1.0);
  EXPECT_EQ(t.values(0, 1), 2.5);
  EXPECT_EQ(t.values(0, 2), -300.0);
  EXPECT_EQ(t.values(1, 0), 4.0);
  EXPECT_EQ(t.values(1, 1), 0.5);
  EXPECT_EQ(t.values(1, 2), 1.0);
}

TEST_F(CsvTest, NoTrailingNewlineAndByteOrderMark) {
  const CsvTable t = read_csv(write("ok.csv", "\xEF\xBB\xBFx,y\n1,2\n3,4"));
  ASSERT_EQ(t.columns, (std::vector<std::string>{"x", "y"}));
  ASSERT_EQ(t.values.rows(), 2);
  EXPECT_EQ(t.values(1, 1), 4.0);
}

TEST_F(CsvTest, UnderflowReadsAsZeroAndExtremesAreExact) {
  const CsvTable t =
      read_csv(write("ok.csv", "a,b,c,d\n1e-400,-1e-400,1.7976931348623157e308,4e-320\n"));
  EXPECT_EQ(t.values(0, 0), 0.0);
  EXPECT_EQ(t.values(0, 1), 0.0);
  EXPECT_TRUE(std::signbit(t.values(0, 1)));
  EXPECT_EQ(t.values(0, 2), 1.7976931348623157e308);
  EXPECT_GT(t.values(0, 3), 0.0);
}

TEST_F(CsvTest, CannotOpen) {
  const std::string path = (dir_ / "missing.csv").string();
  try {
    read_csv(path);
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(std::strerror(ENOENT)), std::string::npos) << what;
  }
}

TEST_F(CsvTest, EmptyFile) {
  expect_error("", 1, "", "empty file");
  expect_error("\n\r\n  \n", 1, "", "empty file");
}

TEST_F(CsvTest, HeaderWithoutData) {
  expect_error("a,b\n", 1, "", "no data rows");
  expect_error("a,b\r\n\r\n\r\n", 1, "", "no data rows");
}

TEST_F(CsvTest, BadHeader) {
  expect_error("a,,b\n1,2,3\n", 1, "#2", "empty column name");
  expect_error(",a\n1,2\n", 1, "#1", "empty column name");
  expect_error("a,b,\n1,2,3\n", 1, "#3", "empty column name");
  expect_error("a,b, a\n1,2,3\n", 1, "#3", "duplicate column name 'a' (also column #1)");
}

TEST_F(CsvTest, NonNumericField) {
  expect_error("a,b,c\n1,2,3\n4,abc,6\n", 3, "b", "expected a number, got 'abc'");
  expect_error("a,b,c\n1,2,3\n4,5,1.5x\n", 3, "c", "expected a number, got '1.5x'");
  expect_error("a,b,c\n1, ,3\n", 2, "b", "expected a number, got an empty field");
  expect_error("a,b\n1,2\n3,\n", 3, "b", "empty field");
  expect_error("a,b\n1,+-2\n", 2, "b", "got '+-2'");
  expect_error("a,b\n1,0x10\n", 2, "b", "got '0x10'");
  expect_error("a,b\n1,\"2\"\n", 2, "b", "got '\"2\"'");
}

TEST_F(CsvTest, LongFieldIsCutInTheMessage) {
  const std::string junk(500, 'z');
  const std::string path = write("bad.csv", "a\n" + junk + "\n");
  try {
    read_csv(path);
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
    EXPECT_EQ(e.row(), 2);
  }
}

TEST_F(CsvTest, NonFiniteFields) {
  expect_error("a,b\n1,2\n3,nan\n", 3, "b", "not a finite number: 'nan'");
  expect_error("a,b\n1,2\n3,NaN\n", 3, "b", "not a finite number: 'NaN'");
  expect_error("a,b\ninf,2\n", 2, "a", "not a finite number: 'inf'");
  expect_error("a,b\n1,-Infinity\n", 2, "b", "not a finite number: '-Infinity'");
  expect_error("a,b\n1,2\n1,2\n1e400,2\n", 4, "a", "not a finite number: '1e400'");
  expect_error("a,b\n1,-2.5e308\n", 2, "b", "not a finite number: '-2.5e308'");
}

TEST_F(CsvTest, RaggedRows) {
  expect_error("a,b,c\n1,2,3\n4,5\n", 3, "c", "expected 3 fields, got 2");
  expect_error("a,b,c\n1,2,3,4,5\n", 2, "#4", "expected 3 fields, got 5");
  expect_error("a,b,c\n1,2,3,\n", 2, "#4", "expected 3 fields, got 4");
  expect_error("a,b,c\n1,2,3\n\n4,5,6\n", 3, "", "empty line; expected 3 fields");
}

TEST_F(CsvTest, RowNumbersCountCrlfLines) {
  expect_error("a,b\r\n1,2\r\n3,4\r\n5,x\r\n", 4, "b", "got 'x'");
}

TEST_F(CsvTest, ReadsLargeFileQuickly) {
  // 20000 x 18 like letter.csv (about 1 MB).
  std::string text;
  for (int j = 0; j < 18; ++j) {
    text += j ? ",c" : "c";
    text += std::to_string(j);
  }
  text += '\n';
  for (int i = 0; i < 20000; ++i) {
    for (int j = 0; j < 18; ++j) {
      if (j > 0) text += ',';
      text += std::to_string((i * 7 + j * 13) % 16);
      if (j == 5) text += ".25";
    }
    text += '\n';
  }
  const std::string path = write("big.csv", text);
  // Speed is measured by benchmarks, never asserted here.
  const CsvTable t = read_csv(path);
  ASSERT_EQ(t.values.rows(), 20000);
  ASSERT_EQ(t.values.cols(), 18);
  EXPECT_EQ(t.values(19999, 17), double((19999 * 7 + 17 * 13) % 16));
  EXPECT_EQ(t.values(3, 5), double((3 * 7 + 5 * 13) % 16) + 0.25);
}

}  // namespace
}  // namespace quench
