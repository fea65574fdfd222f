#include "base/properties.h"

#include <gtest/gtest.h>

namespace mirra::server {
namespace {

std::vector<Property> parse(std::string_view text) {
  auto r = parse_properties(text);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? r.value() : std::vector<Property>{};
}

TEST(Properties, SeparatorsCommentsAndBlankLines) {
  auto p = parse("# comment\n! also\n\n  a=1\nb: 2\nc 3\nd\t=\t4 \ne=\n f \n");
  ASSERT_EQ(p.size(), 6u);
  EXPECT_EQ(p[0].key, "a");
  EXPECT_EQ(p[0].value, "1");
  EXPECT_EQ(p[0].line, 4);
  EXPECT_EQ(p[1].key, "b");
  EXPECT_EQ(p[1].value, "2");
  EXPECT_EQ(p[2].key, "c");
  EXPECT_EQ(p[2].value, "3");
  EXPECT_EQ(p[3].key, "d");
  EXPECT_EQ(p[3].value, "4 ");  // trailing blanks are kept
  EXPECT_EQ(p[4].key, "e");
  EXPECT_EQ(p[4].value, "");
  EXPECT_EQ(p[5].key, "f");
  EXPECT_EQ(p[5].value, "");
}

TEST(Properties, OnlyTheFirstSeparatorCounts) {
  auto p = parse("url=http://x:1/a=b\nk = = v\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].value, "http://x:1/a=b");
  EXPECT_EQ(p[1].value, "= v");
}

TEST(Properties, ContinuationLines) {
  auto p = parse("listeners=PLAINTEXT://a:1,\\\n    PLAINTEXT2://b:2\nnext=1\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].value, "PLAINTEXT://a:1,PLAINTEXT2://b:2");
  EXPECT_EQ(p[1].key, "next");
  EXPECT_EQ(p[1].line, 3);
}

TEST(Properties, EvenBackslashesDoNotContinue) {
  auto p = parse("path=c:\\\\\nb=2\n");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].value, "c:\\");
}

TEST(Properties, CommentMarkerInsideAContinuationIsData) {
  auto p = parse("a=1\\\n# not a comment\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].value, "1# not a comment");
}

TEST(Properties, Escapes) {
  auto p = parse("k\\=x\\ y\\:z=t\\tn\\nr\\rf\\f\\q\\u0041\\u00e9\\u20ac\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].key, "k=x y:z");
  EXPECT_EQ(p[0].value, "t\tn\nr\rf\fqA\xC3\xA9\xE2\x82\xAC");
}

TEST(Properties, LineEndings) {
  auto p = parse("a=1\r\nb=2\rc=3\n\n\r\nd=4");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[3].key, "d");
  EXPECT_EQ(p[3].value, "4");
}

TEST(Properties, MalformedUnicodeEscapeNamesTheLine) {
  auto r = parse_properties("a=1\nb=\\u12\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("line 2"), std::string::npos);
  EXPECT_FALSE(parse_properties("a=\\uZZZZ").ok());
}

TEST(Properties, EmptyInput) {
  EXPECT_TRUE(parse("").empty());
  EXPECT_TRUE(parse("\n\n   \n# x\n").empty());
}

}  // namespace
}  // namespace mirra::server
