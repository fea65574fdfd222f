// json_string (base/json.h): every string Mirra writes as JSON goes through it, and names and
// errors come from clients.
#include "base/json.h"

#include <gtest/gtest.h>

namespace mirra {
namespace {

TEST(JsonString, QuotesAndEscapes) {
  EXPECT_EQ(json_string(""), R"("")");
  EXPECT_EQ(json_string("orders"), R"("orders")");
  EXPECT_EQ(json_string(R"(a"b\c)"), R"("a\"b\\c")");
  EXPECT_EQ(json_string("line\nnext\ttab"), R"("line\u000anext\u0009tab")");
  EXPECT_EQ(json_string(std::string_view("\0x", 2)), R"("\u0000x")");
  EXPECT_EQ(json_string("\x1f"), R"("\u001f")");
}

TEST(JsonString, KeepsUtf8AndDelete) {
  EXPECT_EQ(json_string("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  EXPECT_EQ(json_string("\x7f"), "\"\x7f\"");
}

}  // namespace
}  // namespace mirra
