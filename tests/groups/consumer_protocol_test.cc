#include "groups/consumer_protocol.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mirra::groups {
namespace {

using Bytes = std::vector<uint8_t>;

// A subscription holding exactly the fields `version` has (later ones at their defaults).
ConsumerSubscription subscription_v(int16_t version) {
  ConsumerSubscription s;
  s.version = version;
  s.topics = {"orders", "payments", ""};
  s.user_data = Bytes{0xde, 0xad, 0xbe, 0xef};
  if (version >= 1) s.owned_partitions = {{"orders", {0, 2, 5}}, {"payments", {}}};
  if (version >= 2) s.generation_id = 41;
  if (version >= 3) s.rack_id = "eu-west-1a";
  return s;
}

ConsumerAssignment assignment_v(int16_t version) {
  ConsumerAssignment a;
  a.version = version;
  a.partitions = {{"orders", {1, 3}}, {"payments", {0}}};
  a.user_data = Bytes{1, 2, 3};
  return a;
}

// Every field at its default: the smallest encoding of `version`.
ConsumerSubscription empty_subscription(int16_t version) {
  ConsumerSubscription s;
  s.version = version;
  return s;
}

ConsumerAssignment empty_assignment(int16_t version) {
  ConsumerAssignment a;
  a.version = version;
  return a;
}

void expect_corrupt(const Status& st, const std::string& mentions) {
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE) << st.to_string();
  EXPECT_NE(st.message().find(mentions), std::string::npos) << st.to_string();
}

TEST(ConsumerProtocol, SubscriptionEveryVersionRoundTrips) {
  for (int16_t version = 0; version <= 3; ++version) {
    for (ConsumerSubscription s : {subscription_v(version), empty_subscription(version)}) {
      auto back = decode_subscription(encode_subscription(s));
      ASSERT_TRUE(back.ok()) << "v" << version << ": " << back.status().to_string();
      EXPECT_EQ(*back, s) << "v" << version;
    }
    ConsumerSubscription no_rack = subscription_v(version);
    no_rack.rack_id.reset();
    no_rack.user_data.reset();
    auto back = decode_subscription(encode_subscription(no_rack));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(*back, no_rack);
  }
}

TEST(ConsumerProtocol, AssignmentEveryVersionRoundTrips) {
  for (int16_t version = 0; version <= 3; ++version) {
    for (ConsumerAssignment a : {assignment_v(version), empty_assignment(version)}) {
      auto back = decode_assignment(encode_assignment(a));
      ASSERT_TRUE(back.ok()) << "v" << version << ": " << back.status().to_string();
      EXPECT_EQ(*back, a) << "v" << version;
    }
  }
}

TEST(ConsumerProtocol, FieldsBeyondTheVersionAreNotWritten) {
  ConsumerSubscription s = subscription_v(3);
  s.version = 0;
  auto back = decode_subscription(encode_subscription(s));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, subscription_v(0));
  s.version = 1;
  EXPECT_EQ(*decode_subscription(encode_subscription(s)), subscription_v(1));
  s.version = 2;
  EXPECT_EQ(*decode_subscription(encode_subscription(s)), subscription_v(2));
}

TEST(ConsumerProtocol, GoldenSubscriptionV0) {
  const Bytes expected = {
      0x00, 0x00,              // version 0
      0x00, 0x00, 0x00, 0x01,  // one topic
      0x00, 0x01, 't',         //   "t"
      0xff, 0xff, 0xff, 0xff,  // user data null
  };
  ConsumerSubscription s = empty_subscription(0);
  s.topics = {"t"};
  EXPECT_EQ(encode_subscription(s), expected);
  auto back = decode_subscription(expected);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, s);
}

TEST(ConsumerProtocol, GoldenSubscriptionV3) {
  const Bytes expected = {
      0x00, 0x03,                    // version 3
      0x00, 0x00, 0x00, 0x02,        // two topics
      0x00, 0x01, 'a',               //   "a"
      0x00, 0x02, 'b',  'c',         //   "bc"
      0x00, 0x00, 0x00, 0x01,        // user data: 1 byte
      0x7f, 0x00, 0x00, 0x00, 0x01,  // owned partitions: one topic
      0x00, 0x01, 'a',               //   "a"
      0x00, 0x00, 0x00, 0x02,        //   two partitions
      0x00, 0x00, 0x00, 0x00,        //     0
      0x00, 0x00, 0x01, 0x00,        //     256
      0x00, 0x00, 0x00, 0x09,        // generation id 9
      0x00, 0x02, 'r',  '1',         // rack id "r1"
  };
  ConsumerSubscription s{.version = 3,
                         .topics = {"a", "bc"},
                         .user_data = Bytes{0x7f},
                         .owned_partitions = {{"a", {0, 256}}},
                         .generation_id = 9,
                         .rack_id = "r1"};
  EXPECT_EQ(encode_subscription(s), expected);
  auto back = decode_subscription(expected);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, s);
}

TEST(ConsumerProtocol, GoldenAssignment) {
  const Bytes expected = {
      0x00, 0x01,              // version 1
      0x00, 0x00, 0x00, 0x01,  // one topic
      0x00, 0x01, 't',         //   "t"
      0x00, 0x00, 0x00, 0x01,  //   one partition
      0x00, 0x00, 0x00, 0x03,  //     3
      0x00, 0x00, 0x00, 0x00,  // user data: empty, not null
  };
  ConsumerAssignment a{.version = 1, .partitions = {{"t", {3}}}, .user_data = Bytes{}};
  EXPECT_EQ(encode_assignment(a), expected);
  auto back = decode_assignment(expected);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, a);
}

TEST(ConsumerProtocol, TrailingBytesAndNewerVersionsTolerated) {
  // A v1 subscription with extra bytes (as a v2 reader would see a v3 one).
  Bytes bytes = encode_subscription(subscription_v(1));
  bytes.insert(bytes.end(), {0, 0, 0, 7, 0xff, 0xff});
  auto s = decode_subscription(bytes);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(*s, subscription_v(1));

  // A future v9 is read as v3 (its fields are v3's plus more); the version read is kept.
  ConsumerSubscription future = subscription_v(3);
  future.version = 9;
  bytes = encode_subscription(future);
  EXPECT_EQ(bytes.size(), encode_subscription(subscription_v(3)).size());
  bytes.insert(bytes.end(), {1, 2, 3});
  s = decode_subscription(bytes);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(*s, future);

  Bytes assignment = encode_assignment(assignment_v(4));
  assignment.push_back(0x42);
  auto a = decode_assignment(assignment);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(*a, assignment_v(4));
}

TEST(ConsumerProtocol, EveryTruncationRefused) {
  for (int16_t version = 0; version <= 3; ++version) {
    const Bytes s = encode_subscription(subscription_v(version));
    for (size_t len = 0; len < s.size(); ++len)
      expect_corrupt(decode_subscription(std::span(s).first(len)).status(),
                     "ConsumerProtocolSubscription");
    const Bytes a = encode_assignment(assignment_v(version));
    for (size_t len = 0; len < a.size(); ++len)
      expect_corrupt(decode_assignment(std::span(a).first(len)).status(),
                     "ConsumerProtocolAssignment");
  }
}

TEST(ConsumerProtocol, MalformedRefused) {
  const Bytes negative = {0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  expect_corrupt(decode_subscription(negative).status(), "negative version -1");
  expect_corrupt(decode_assignment(Bytes{0x80, 0x00}).status(), "negative version -32768");
  // A null topic list, and a null topic name.
  expect_corrupt(decode_subscription(Bytes{0, 0, 0xff, 0xff, 0xff, 0xff}).status(),
                 "null topic list");
  expect_corrupt(decode_subscription(Bytes{0, 0, 0, 0, 0, 1, 0xff, 0xff}).status(),
                 "ConsumerProtocolSubscription v0: null where a string is required");
  // A null partition list inside an assignment.
  expect_corrupt(decode_assignment(Bytes{0, 0, 0, 0, 0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff}).status(),
                 "null partition list");
  // Counts far beyond the bytes present fail before anything is allocated for them.
  expect_corrupt(decode_subscription(Bytes{0, 0, 0x7f, 0xff, 0xff, 0xff, 0, 0}).status(),
                 "array length exceeds");
  expect_corrupt(decode_assignment(Bytes{0, 0, 0, 0, 0, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff}).status(),
                 "array length exceeds");
}

}  // namespace
}  // namespace mirra::groups
