// read_csv: values of a real file, tolerated formatting, and every error with its position.
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "quench/dataset.h"
#include "quench/errors.h"
#include "test_util.h"

namespace quench::csv_test {
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
      to_numbers(read_csv(path));
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

/// read_csv(path) throws a DataError naming the file, with `message`.
void expect_error_at_file(const std::string& path, const std::string& message) {
  try {
    read_csv(path);
    FAIL() << "no DataError for " << path;
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(Csv, BostonDimensionsAndValues) {
  const CsvTable t = read_csv(data_file("boston.csv"));
  const Eigen::MatrixXd values = to_numbers(t);
  EXPECT_EQ(t.file, data_file("boston.csv"));
  EXPECT_FALSE(t.row_names);
  ASSERT_EQ(values.rows(), 506);
  ASSERT_EQ(values.cols(), 14);
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
  for (int j = 0; j < 14; ++j) EXPECT_EQ(values(0, j), first[j]) << t.columns[j];
  // Last row: 0.04741,0,11.93,0,0.573,6.03,80.8,2.505,1,273,21,396.9,7.88,11.9
  EXPECT_EQ(values(505, 0), 0.04741);
  EXPECT_EQ(values(505, 7), 2.505);
  EXPECT_EQ(values(505, 13), 11.9);
}

TEST(Csv, SonarHas62Columns) {
  const CsvTable t = read_csv(data_file("sonar.csv"));
  const Eigen::MatrixXd values = to_numbers(t);
  EXPECT_EQ(values.rows(), 208);
  EXPECT_EQ(values.cols(), 62);
  EXPECT_EQ(t.column_index("train"), 60);
  EXPECT_EQ(values(0, 0), 0.02);
  EXPECT_EQ(values.col(60).sum(), 104.0);
}

TEST_F(CsvTest, ToleratesSpacesCrlfAndTrailingEmptyLines) {
  const std::string text = " a , b ,c\r\n1, 2.5 ,  -3e2 \r\n\t+4,.5,1.\r\n\r\n\n  \n";
  const CsvTable t = read_csv(write("ok.csv", text));
  const Eigen::MatrixXd values = to_numbers(t);
  ASSERT_EQ(t.columns, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(values.rows(), 2);
  EXPECT_EQ(values(0, 0), 1.0);
  EXPECT_EQ(values(0, 1), 2.5);
  EXPECT_EQ(values(0, 2), -300.0);
  EXPECT_EQ(values(1, 0), 4.0);
  EXPECT_EQ(values(1, 1), 0.5);
  EXPECT_EQ(values(1, 2), 1.0);
}

TEST_F(CsvTest, NoTrailingNewlineAndByteOrderMark) {
  const CsvTable t = read_csv(write("ok.csv", "\xEF\xBB\xBFx,y\n1,2\n3,4"));
  const Eigen::MatrixXd values = to_numbers(t);
  ASSERT_EQ(t.columns, (std::vector<std::string>{"x", "y"}));
  ASSERT_EQ(values.rows(), 2);
  EXPECT_EQ(values(1, 1), 4.0);
}

TEST_F(CsvTest, UnderflowReadsAsZeroAndExtremesAreExact) {
  const Eigen::MatrixXd values = to_numbers(
      read_csv(write("ok.csv", "a,b,c,d\n1e-400,-1e-400,1.7976931348623157e308,4e-320\n")));
  EXPECT_EQ(values(0, 0), 0.0);
  EXPECT_EQ(values(0, 1), 0.0);
  EXPECT_TRUE(std::signbit(values(0, 1)));
  EXPECT_EQ(values(0, 2), 1.7976931348623157e308);
  EXPECT_GT(values(0, 3), 0.0);
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
  expect_error("a,b,\n1,2,3\n", 1, "#3", "empty column name");
  expect_error("a,b, a\n1,2,3\n", 1, "#3", "duplicate column name 'a' (also column #1)");
  expect_error(",a,b,a\n,1,2,3\n", 1, "#4", "duplicate column name 'a' (also column #2)");
}

// 10^6 columns, checked for duplicates by hashing: a pairwise check (5 * 10^11 comparisons)
// would not finish within the test's timeout. The duplicate is the last column.
TEST_F(CsvTest, MillionColumnHeaderIsCheckedInLinearTime) {
  constexpr int kColumns = 1'000'000;
  std::string header, row;
  for (int k = 0; k < kColumns; ++k) {
    header += (k ? ",c" : "c") + std::to_string(k == kColumns - 1 ? 17 : k);
    row += k ? ",1" : "1";
  }
  expect_error(header + "\n" + row + "\n", 1, "#1000000",
               "duplicate column name 'c17' (also column #18)");
  header.replace(header.rfind("c17"), 3, "last");
  EXPECT_EQ(read_csv(write("wide.csv", header + "\n" + row + "\n")).columns.size(),
            static_cast<std::size_t>(kColumns));
}

// A FIFO without a writer (opening it for reading would wait for one) and a device are
// refused at once.
TEST_F(CsvTest, NamedPipeAndDeviceAreRefusedWithoutWaiting) {
  const std::string fifo = (dir_ / "pipe.csv").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_error_at_file(fifo, "not a regular file (a FIFO)");
  expect_error_at_file("/dev/zero", "not a regular file (a character device)");
  expect_error_at_file(dir_.string(), "not a regular file (a directory)");
}

TEST_F(CsvTest, NonNumericField) {
  expect_error("a,b,c\n1,2,3\n4,abc,6\n", 3, "b", "expected a number, got 'abc'");
  expect_error("a,b,c\n1,2,3\n4,5,1.5x\n", 3, "c", "expected a number, got '1.5x'");
  expect_error("a,b,c\n1, ,3\n", 2, "b", "missing value (empty field)");
  expect_error("a,b\n1,2\n3,\n", 3, "b", "missing value (empty field)");
  expect_error("a,b\n1,+-2\n", 2, "b", "got '+-2'");
  expect_error("a,b\n1,0x10\n", 2, "b", "got '0x10'");
}

TEST_F(CsvTest, LongFieldIsCutInTheMessage) {
  const std::string junk(500, 'z');
  const std::string path = write("bad.csv", "a\n" + junk + "\n");
  try {
    to_numbers(read_csv(path));
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
    EXPECT_EQ(e.row(), 2);
  }
}

TEST_F(CsvTest, NonFiniteFields) {
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
  const Eigen::MatrixXd values = to_numbers(read_csv(path));
  ASSERT_EQ(values.rows(), 20000);
  ASSERT_EQ(values.cols(), 18);
  EXPECT_EQ(values(19999, 17), double((19999 * 7 + 17 * 13) % 16));
  EXPECT_EQ(values(3, 5), double((3 * 7 + 5 * 13) % 16) + 0.25);
}

TEST_F(CsvTest, RWriteCsvRowNamesAreDropped) {
  // R: write.csv(data.frame(x = c(1.5, 2), y = c("M", "B")))
  const CsvTable t = read_csv(write("r.csv", "\"\",\"x\",\"y\"\n\"1\",1.5,\"M\"\n\"2\",2,\"B\"\n"));
  EXPECT_TRUE(t.row_names);
  ASSERT_EQ(t.columns, (std::vector<std::string>{"x", "y"}));
  ASSERT_EQ(t.size(), 2);
  EXPECT_EQ(t.cell(0, 0), "1.5");
  EXPECT_EQ(t.cell(0, 1), "M");
  EXPECT_EQ(t.cell(1, 1), "B");
  EXPECT_EQ(t.rows, (std::vector<int>{2, 3}));
}

TEST_F(CsvTest, RowNamesWithoutAHeaderFieldAreNamedInTheError) {
  // R: write.table(sep = ",") writes no header field for the row names.
  expect_error("\"x\",\"y\"\n\"a\",1,2\n\"b\",3,4\n", 2, "#3",
               "expected 2 fields, got 3 (every row has one field more than the header: if the "
               "first column holds row names, give it an empty header field)");
}

TEST_F(CsvTest, PandasIndexIsDropped) {
  // pandas: df.to_csv("p.csv"), and that file read back and written again.
  for (const std::string header : {",x,y\n", "Unnamed: 0,x,y\n"}) {
    const CsvTable t = read_csv(write("p.csv", header + "0,1,2\n1,3,4\n"));
    EXPECT_TRUE(t.row_names) << header;
    ASSERT_EQ(t.columns, (std::vector<std::string>{"x", "y"})) << header;
    const Eigen::MatrixXd values = to_numbers(t);
    EXPECT_EQ(values(0, 0), 1.0);
    EXPECT_EQ(values(1, 1), 4.0);
  }
}

TEST_F(CsvTest, QuotedFieldsWithCommasQuotesNewlinesCrlfAndBom) {
  const std::string text =
      "\xEF\xBB\xBF\"a\",\"b, c\"\r\n1,\"x, \"\"q\"\"\r\nline\"\r\n\"2\",y\r\n3,\"z\"\r\n";
  const CsvTable t = read_csv(write("q.csv", text));
  EXPECT_FALSE(t.row_names);
  ASSERT_EQ(t.columns, (std::vector<std::string>{"a", "b, c"}));
  ASSERT_EQ(t.size(), 3);
  EXPECT_EQ(t.cell(0, 1), "x, \"q\"\r\nline");
  EXPECT_EQ(t.cell(1, 0), "2");  // a quoted number is a number
  EXPECT_EQ(read_cell(t.cell(1, 0)).value, 2.0);
  // Rows are the file's lines: the embedded line break counts.
  EXPECT_EQ(t.rows, (std::vector<int>{2, 4, 5}));
  expect_error("a,b\n\"1\",\"2\"\n\"x\ny\",3\n", 3, "a", "expected a number, got 'x\\ny'");
}

TEST_F(CsvTest, MalformedQuoting) {
  expect_error("a,b\n1,\"2\n3,4\n", 2, "", "a quoted field is not closed");
  expect_error("a,b\n1,\"2\"x\n", 2, "", "malformed quoting");
}

TEST_F(CsvTest, UnnamedColumnOtherThanTheFirstIsNamedInTheError) {
  expect_error("a,,b\n1,2,3\n", 1, "#2", "only the first column may be unnamed");
  expect_error("\"\"\n1\n", 1, "#1", "empty column name");
}

TEST_F(CsvTest, MissingValuesAreRecognized) {
  for (const char* text : {"", "NA", "<NA>", "N/A", "NaN", "nan", "NAN", "-nan"})
    EXPECT_EQ(read_cell(text).kind,
              text == std::string("-nan") ? CellKind::not_finite : CellKind::missing)
        << text;
  expect_error("a,b\n1,2\nNA,3\n", 3, "a", "missing value 'NA'; set 'data: {missing: drop_rows}'");
  expect_error("a,b\n1,2\n3,NaN\n", 3, "b", "missing value 'NaN'");
}

TEST_F(CsvTest, ControlBytesAreEscapedInMessages) {
  const std::string path = write("c.csv", "a,b\n1,\"\x1b[2J\r\x07x\"\n");
  try {
    to_numbers(read_csv(path));
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("got '\\x1b[2J\\r\\x07x'"), std::string::npos) << what;
    for (const char c : what) EXPECT_FALSE(c >= 0 && c < 0x20) << what;
  }
  expect_error("a,\"b\x1b\"\nx,1\n", 2, "a", "expected a number");
  try {
    to_numbers(read_csv(write("h.csv", "a,\"b\x1b\"\n1,x\n")));
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_EQ(e.column(), "b\\x1b");
  }
}

}  // namespace
}  // namespace quench::csv_test
