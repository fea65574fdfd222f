#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace mirra {
namespace {

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(static_cast<bool>(s));
  EXPECT_EQ(s.code(), ErrorCode::NONE);
  EXPECT_EQ(s.to_string(), "OK");
  EXPECT_TRUE(Status::OK().ok());
}

TEST(Status, CarriesCodeAndMessage) {
  Status s(ErrorCode::CORRUPT_MESSAGE, "batch 3: crc mismatch");
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(static_cast<bool>(s));
  EXPECT_EQ(s.code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_EQ(s.message(), "batch 3: crc mismatch");
  EXPECT_EQ(s.to_string(), "CORRUPT_MESSAGE: batch 3: crc mismatch");
}

TEST(Status, EmptyMessageOmitsSeparator) {
  EXPECT_EQ(Status(ErrorCode::UNKNOWN_MIRROR, "").to_string(), "UNKNOWN_MIRROR");
}

Result<int> parse_positive(int v) {
  if (v <= 0) return Status(ErrorCode::INVALID_REQUEST, "not positive");
  return v;
}

TEST(Result, HoldsValue) {
  Result<int> r = parse_positive(7);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(r.value(), 7);
  EXPECT_EQ(*r, 7);
  EXPECT_TRUE(r.status().ok());
}

TEST(Result, HoldsStatus) {
  Result<int> r = parse_positive(-1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(r.status().message(), "not positive");
}

TEST(Result, MoveOnlyValueAndArrow) {
  Result<std::unique_ptr<std::string>> r(std::make_unique<std::string>("abc"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->size(), 3u);
  std::unique_ptr<std::string> taken = std::move(r).value();
  EXPECT_EQ(*taken, "abc");

  Result<std::string> s(std::string("hello"));
  EXPECT_EQ(s->size(), 5u);
}

}  // namespace
}  // namespace mirra
