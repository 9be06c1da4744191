#include <string>

#include <gtest/gtest.h>

#include "quench/printable.h"

namespace {

TEST(Printable, EscapesControlBytesAndBackslash) {
  const std::string hostile = std::string("a\x1b[2Jb\n\r\t\\") + '\0' + "\x7f";
  EXPECT_EQ(quench::printable(hostile), "a\\x1b[2Jb\\n\\r\\t\\\\\\x00\\x7f");
}

TEST(Printable, KeepsUtf8AndCutsLongText) {
  EXPECT_EQ(quench::printable("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(quench::printable("abcdef", 4), "abcd...");
  EXPECT_EQ(quench::printable("abcd", 4), "abcd");
}

}  // namespace
