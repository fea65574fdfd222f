#include "base/uuid.h"

#include <gtest/gtest.h>

#include <set>
#include <unordered_set>

namespace mirra {
namespace {

Uuid sequential() {
  Uuid u;
  for (size_t i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(i);
  return u;
}

TEST(Uuid, ZeroTextForm) {
  EXPECT_EQ(Uuid::zero().to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
  EXPECT_TRUE(Uuid::zero().is_zero());
  auto parsed = Uuid::parse("AAAAAAAAAAAAAAAAAAAAAA");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, Uuid::zero());
  EXPECT_EQ(Uuid::zero().to_hex_string(), "00000000-0000-0000-0000-000000000000");
}

TEST(Uuid, KnownTextForms) {
  EXPECT_EQ(Uuid::metadata_topic_id().to_string(), "AAAAAAAAAAAAAAAAAAAAAQ");
  EXPECT_EQ(Uuid::metadata_topic_id().to_hex_string(), "00000000-0000-0000-0000-000000000001");
  EXPECT_EQ(sequential().to_string(), "AAECAwQFBgcICQoLDA0ODw");
  EXPECT_EQ(sequential().to_hex_string(), "00010203-0405-0607-0809-0a0b0c0d0e0f");
  EXPECT_EQ(Uuid::from_bits(~0ULL, ~0ULL).to_string(), "_____________________w");

  auto u = Uuid::parse_hex("123e4567-e89b-12d3-a456-426614174000");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->to_string(), "Ej5FZ-ibEtOkVkJmFBdAAA");
  EXPECT_EQ(u->most_significant_bits(), 0x123e4567e89b12d3ULL);
  EXPECT_EQ(u->least_significant_bits(), 0xa456426614174000ULL);
}

TEST(Uuid, BitsRoundTrip) {
  const Uuid u = Uuid::from_bits(0x0123456789abcdefULL, 0xfedcba9876543210ULL);
  EXPECT_EQ(u.bytes[0], 0x01);
  EXPECT_EQ(u.bytes[15], 0x10);
  EXPECT_EQ(u.most_significant_bits(), 0x0123456789abcdefULL);
  EXPECT_EQ(u.least_significant_bits(), 0xfedcba9876543210ULL);
}

TEST(Uuid, RandomRoundTrips) {
  for (int i = 0; i < 2000; ++i) {
    const Uuid u = Uuid::random();
    const std::string text = u.to_string();
    ASSERT_EQ(text.size(), 22u);
    EXPECT_NE(text[0], '-');
    auto back = Uuid::parse(text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(*back, u);

    const std::string hex = u.to_hex_string();
    ASSERT_EQ(hex.size(), 36u);
    auto back_hex = Uuid::parse_hex(hex);
    ASSERT_TRUE(back_hex.has_value()) << hex;
    EXPECT_EQ(*back_hex, u);
  }
}

TEST(Uuid, RandomIsVersion4AndDistinct) {
  std::set<Uuid> seen;
  for (int i = 0; i < 1000; ++i) {
    const Uuid u = Uuid::random();
    EXPECT_EQ(u.bytes[6] >> 4, 4);
    EXPECT_EQ(u.bytes[8] >> 6, 2);
    EXPECT_FALSE(u.is_zero());
    EXPECT_NE(u, Uuid::metadata_topic_id());
    EXPECT_EQ(u.to_hex_string()[14], '4');
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(Uuid, ParseRejectsBadText) {
  EXPECT_FALSE(Uuid::parse("").has_value());
  EXPECT_FALSE(Uuid::parse("AAAAAAAAAAAAAAAAAAAAA").has_value());    // 21
  EXPECT_FALSE(Uuid::parse("AAAAAAAAAAAAAAAAAAAAAAA").has_value());  // 23
  EXPECT_FALSE(Uuid::parse("AAAAAAAAAAAAAAAAAAAAAA==").has_value());
  EXPECT_FALSE(Uuid::parse("AAAAAAAAAAAAAAAAAAAA+A").has_value());  // standard, not url alphabet
  EXPECT_FALSE(Uuid::parse("AAAAAAAAAAAAAAAAAAAA/A").has_value());
  EXPECT_FALSE(Uuid::parse("AAAAAAAAAAAAAAAAAAAAA B").has_value());
  EXPECT_FALSE(Uuid::parse("AAAAAAAAAAAAAAAAAAAAAB").has_value());  // non-zero unused bits

  EXPECT_FALSE(Uuid::parse_hex("").has_value());
  EXPECT_FALSE(Uuid::parse_hex("123e4567e89b12d3a456426614174000").has_value());
  EXPECT_FALSE(Uuid::parse_hex("123e4567-e89b-12d3-a456-42661417400g").has_value());
  EXPECT_FALSE(Uuid::parse_hex("123e4567-e89b-12d3-a456_426614174000").has_value());
  EXPECT_TRUE(Uuid::parse_hex("123E4567-E89B-12D3-A456-426614174000").has_value());
}

TEST(Uuid, ComparisonAndHash) {
  const Uuid a = Uuid::from_bits(0, 1);
  const Uuid b = Uuid::from_bits(0, 2);
  const Uuid c = Uuid::from_bits(1, 0);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_EQ(a, Uuid::metadata_topic_id());
  EXPECT_NE(a, b);

  std::unordered_set<Uuid> set{a, b, c, a};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(std::hash<Uuid>{}(a), std::hash<Uuid>{}(Uuid::metadata_topic_id()));
  EXPECT_NE(std::hash<Uuid>{}(a), std::hash<Uuid>{}(b));
}

}  // namespace
}  // namespace mirra
