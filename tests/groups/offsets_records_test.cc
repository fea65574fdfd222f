#include "groups/offsets_records.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "protocol/wire.h"

namespace mirra::groups {
namespace {

using protocol::Writer;

// ---- a test-side encoder for every version -------------------------------------------------
// Written from Kafka's schemas independently of the encoder under test, so that each version
// the broker only reads (it writes v3) gets round-trip coverage. The golden tests below pin the
// layouts to hand-written bytes, so this cannot drift with the code under test.

Bytes offset_value_at(int16_t version, const OffsetValue& v) {
  const bool flex = version >= 4;
  Bytes out;
  Writer w(out);
  w.write_int16(version);
  w.write_int64(v.offset);
  if (version >= 3) w.write_int32(v.leader_epoch);
  w.write_string(flex, v.metadata);
  w.write_int64(v.commit_timestamp);
  if (version == 1) w.write_int64(v.expire_timestamp);
  if (flex) w.write_uvarint(0);
  return out;
}

Bytes group_value_at(int16_t version, const GroupValue& g) {
  const bool flex = version >= 4;
  Bytes out;
  Writer w(out);
  w.write_int16(version);
  w.write_string(flex, g.protocol_type);
  w.write_int32(g.generation);
  w.write_nullable_string(flex, g.protocol);
  w.write_nullable_string(flex, g.leader);
  if (version >= 2) w.write_int64(g.current_state_timestamp);
  w.write_array_length(flex, static_cast<int32_t>(g.members.size()));
  for (const GroupMemberValue& m : g.members) {
    w.write_string(flex, m.member_id);
    if (version >= 3) w.write_nullable_string(flex, m.group_instance_id);
    w.write_string(flex, m.client_id);
    w.write_string(flex, m.client_host);
    if (version >= 1) w.write_int32(m.rebalance_timeout_ms);
    w.write_int32(m.session_timeout_ms);
    w.write_bytes(flex, m.subscription);
    w.write_bytes(flex, m.assignment);
    if (flex) w.write_uvarint(0);
  }
  if (flex) w.write_uvarint(0);
  return out;
}

Bytes offset_key_at(int16_t version, const OffsetKey& k) {
  Bytes out;
  Writer w(out);
  w.write_int16(version);
  w.write_string(false, k.group);
  w.write_string(false, k.topic);
  w.write_int32(k.partition);
  return out;
}

// What a value holds after a trip through `version`: fields the version lacks take their
// schema defaults.
OffsetValue offset_as_of(int16_t version, OffsetValue v) {
  if (version < 3) v.leader_epoch = -1;
  if (version != 1) v.expire_timestamp = -1;
  return v;
}

GroupValue group_as_of(int16_t version, GroupValue g) {
  if (version < 2) g.current_state_timestamp = -1;
  for (GroupMemberValue& m : g.members) {
    if (version < 1) m.rebalance_timeout_ms = -1;
    if (version < 3) m.group_instance_id.reset();
  }
  return g;
}

OffsetValue sample_offset() {
  return OffsetValue{.offset = 1234567890123,
                     .leader_epoch = 17,
                     .metadata = "checkpoint ☃",
                     .commit_timestamp = 1700000000123,
                     .expire_timestamp = 1700086400123};
}

GroupValue sample_group() {
  GroupValue g;
  g.protocol_type = "consumer";
  g.generation = 12;
  g.protocol = "cooperative-sticky";
  g.leader = "consumer-1-abc";
  g.current_state_timestamp = 1700000000999;
  g.members.push_back(GroupMemberValue{"consumer-1-abc", "instance-a", "client-1", "/10.0.0.1",
                                       300000, 45000, Bytes{0, 3, 1, 2, 3}, Bytes{0, 3}});
  g.members.push_back(GroupMemberValue{"consumer-2-def", std::nullopt, "client-2", "/10.0.0.2",
                                       60000, 10000, Bytes{}, Bytes(300, 0x5a)});
  return g;
}

std::vector<GroupValue> sample_groups() {
  GroupValue empty;  // an Empty group: no protocol, no leader, no members
  empty.protocol_type = "consumer";
  empty.generation = 3;
  empty.current_state_timestamp = 5;
  return {sample_group(), empty};
}

// ---- round trips -------------------------------------------------------------------------

TEST(OffsetsRecords, KeysRoundTrip) {
  for (const OffsetKey& k : {OffsetKey{"g", "t", 0}, OffsetKey{"group-é", "orders", 2147483647},
                             OffsetKey{"", "", -1}}) {
    auto back = decode_key(encode_key(k));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    ASSERT_TRUE(std::holds_alternative<OffsetKey>(*back));
    EXPECT_EQ(std::get<OffsetKey>(*back), k);
  }
  for (const GroupKey& k : {GroupKey{"g"}, GroupKey{""}, GroupKey{std::string(1000, 'x')}}) {
    auto back = decode_key(encode_key(k));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    ASSERT_TRUE(std::holds_alternative<GroupKey>(*back));
    EXPECT_EQ(std::get<GroupKey>(*back), k);
  }
}

TEST(OffsetsRecords, OffsetKeyVersion0IsReadToo) {
  const OffsetKey k{"legacy", "t", 3};
  auto back = decode_key(offset_key_at(0, k));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(std::get<OffsetKey>(*back), k);
}

TEST(OffsetsRecords, OffsetValueEveryVersion) {
  for (int16_t version = 0; version <= 4; ++version) {
    const OffsetValue expected = offset_as_of(version, sample_offset());
    auto back = decode_offset_value(offset_value_at(version, sample_offset()));
    ASSERT_TRUE(back.ok()) << "v" << version << ": " << back.status().to_string();
    EXPECT_EQ(*back, expected) << "v" << version;
    // What the broker writes back of it is v3: everything but v1's expire timestamp survives.
    auto again = decode_offset_value(encode_value(*back));
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_EQ(*again, offset_as_of(kOffsetCommitValueVersion, expected)) << "v" << version;
  }
}

TEST(OffsetsRecords, GroupValueEveryVersion) {
  for (const GroupValue& sample : sample_groups()) {
    for (int16_t version = 0; version <= 4; ++version) {
      const GroupValue expected = group_as_of(version, sample);
      auto back = decode_group_value(group_value_at(version, sample));
      ASSERT_TRUE(back.ok()) << "v" << version << ": " << back.status().to_string();
      EXPECT_EQ(*back, expected) << "v" << version;
      auto again = decode_group_value(encode_value(*back));
      ASSERT_TRUE(again.ok()) << again.status().to_string();
      EXPECT_EQ(*again, expected) << "v" << version;
    }
  }
}

TEST(OffsetsRecords, EncoderWritesTheHeaderVersions) {
  EXPECT_EQ(encode_value(sample_offset()),
            offset_value_at(kOffsetCommitValueVersion, sample_offset()));
  EXPECT_EQ(encode_value(sample_group()),
            group_value_at(kGroupMetadataValueVersion, sample_group()));
  EXPECT_EQ(encode_key(OffsetKey{"g", "t", 1}),
            offset_key_at(kOffsetCommitKeyVersion, {"g", "t", 1}));
}

// ---- golden bytes, written out from the schemas ------------------------------------------

TEST(OffsetsRecords, GoldenOffsetKey) {
  const Bytes expected = {
      0x00, 0x01,              // key version 1
      0x00, 0x02, 'g',  '1',   // group: int16 length + bytes
      0x00, 0x01, 't',         // topic
      0x00, 0x00, 0x01, 0x02,  // partition 258
  };
  EXPECT_EQ(encode_key(OffsetKey{"g1", "t", 258}), expected);
}

TEST(OffsetsRecords, GoldenGroupKey) {
  const Bytes expected = {0x00, 0x02, 0x00, 0x03, 'a', 'b', 'c'};
  EXPECT_EQ(encode_key(GroupKey{"abc"}), expected);
}

TEST(OffsetsRecords, GoldenOffsetValueV3) {
  const Bytes expected = {
      0x00, 0x03,                                      // value version 3
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x2c,  // offset 300
      0x00, 0x00, 0x00, 0x07,                          // leader epoch 7
      0x00, 0x02, 'm',  'd',                           // metadata "md"
      0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00,  // commit timestamp 1700000000000
  };
  OffsetValue v{.offset = 300,
                .leader_epoch = 7,
                .metadata = "md",
                .commit_timestamp = 1700000000000,
                .expire_timestamp = -1};
  EXPECT_EQ(encode_value(v), expected);
  auto back = decode_offset_value(expected);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, v);
}

TEST(OffsetsRecords, GoldenOffsetValueV1HasExpireTimestamp) {
  const Bytes bytes = {
      0x00, 0x01,                                      // value version 1
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,  // offset 5
      0x00, 0x00,                                      // metadata ""
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a,  // commit timestamp 10
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,  // expire timestamp 20
  };
  auto v = decode_offset_value(bytes);
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_EQ(*v, (OffsetValue{5, -1, "", 10, 20}));
}

TEST(OffsetsRecords, GoldenOffsetValueV4SkipsTaggedFields) {
  const Bytes bytes = {
      0x00, 0x04,                                      // value version 4 (flexible)
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,  // offset 9
      0xff, 0xff, 0xff, 0xff,                          // leader epoch -1
      0x03, 'h',  'i',                                 // metadata: compact string, length+1
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b,  // commit timestamp 11
      0x02,                                            // two tagged fields
      0x05, 0x02, 0xab, 0xcd,                          //   tag 5, 2 bytes
      0x9a, 0x01, 0x00,                                //   tag 154 (varint), 0 bytes
  };
  auto v = decode_offset_value(bytes);
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_EQ(*v, (OffsetValue{9, -1, "hi", 11, -1}));
}

TEST(OffsetsRecords, GoldenGroupValueV3) {
  const Bytes expected = {
      0x00, 0x03,                                                // value version 3
      0x00, 0x08, 'c',  'o',  'n',  's',  'u',  'm',  'e', 'r',  // protocol type
      0x00, 0x00, 0x00, 0x02,                                    // generation 2
      0x00, 0x05, 'r',  'a',  'n',  'g',  'e',                   // protocol
      0x00, 0x02, 'm',  '1',                                     // leader
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,            // current state timestamp 256
      0x00, 0x00, 0x00, 0x01,                                    // one member
      0x00, 0x02, 'm',  '1',                                     //   member id
      0xff, 0xff,                                                //   group instance id null
      0x00, 0x01, 'c',                                           //   client id
      0x00, 0x02, '/',  'h',                                     //   client host
      0x00, 0x04, 0x93, 0xe0,                                    //   rebalance timeout 300000
      0x00, 0x00, 0xaf, 0xc8,                                    //   session timeout 45000
      0x00, 0x00, 0x00, 0x01, 0xaa,                              //   subscription
      0x00, 0x00, 0x00, 0x00,                                    //   assignment (empty)
  };
  GroupValue g{
      "consumer", 2,
      "range",    "m1",
      256,        {GroupMemberValue{"m1", std::nullopt, "c", "/h", 300000, 45000, {0xaa}, {}}}};
  EXPECT_EQ(encode_value(g), expected);
  auto back = decode_group_value(expected);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, g);
}

TEST(OffsetsRecords, GoldenGroupValueV4) {
  const Bytes bytes = {
      0x00, 0x04,                                      // value version 4 (flexible)
      0x02, 'x',                                       // protocol type "x"
      0x00, 0x00, 0x00, 0x01,                          // generation 1
      0x00,                                            // protocol null
      0x00,                                            // leader null
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // current state timestamp -1
      0x02,                                            // compact array: one member
      0x02, 'm',                                       //   member id
      0x02, 'i',                                       //   group instance id "i"
      0x01,                                            //   client id ""
      0x01,                                            //   client host ""
      0x00, 0x00, 0x00, 0x64,                          //   rebalance timeout 100
      0x00, 0x00, 0x00, 0x32,                          //   session timeout 50
      0x02, 0x01,                                      //   subscription {1}
      0x01,                                            //   assignment {}
      0x01, 0x00, 0x01, 0xee,                          //   member tagged fields: tag 0, 1 byte
      0x00,                                            // no tagged fields
  };
  auto g = decode_group_value(bytes);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  EXPECT_EQ(*g, (GroupValue{"x",
                            1,
                            std::nullopt,
                            std::nullopt,
                            -1,
                            {GroupMemberValue{"m", "i", "", "", 100, 50, {1}, {}}}}));
}

// ---- refusals ----------------------------------------------------------------------------

void expect_corrupt(const Status& st, const std::string& mentions) {
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE) << st.to_string();
  EXPECT_NE(st.message().find(mentions), std::string::npos) << st.to_string();
}

TEST(OffsetsRecords, EveryTruncationOfAValueRefused) {
  for (int16_t version = 0; version <= 4; ++version) {
    const Bytes offset = offset_value_at(version, sample_offset());
    for (size_t len = 0; len < offset.size(); ++len)
      expect_corrupt(decode_offset_value(std::span(offset).first(len)).status(),
                     "OffsetCommitValue");
    const Bytes group = group_value_at(version, sample_group());
    for (size_t len = 0; len < group.size(); ++len)
      expect_corrupt(decode_group_value(std::span(group).first(len)).status(),
                     "GroupMetadataValue");
  }
}

TEST(OffsetsRecords, EveryTruncationOfAKeyRefused) {
  const Bytes offset = encode_key(OffsetKey{"group", "topic", 1});
  const Bytes group = encode_key(GroupKey{"group"});
  for (size_t len = 0; len < 2; ++len)
    expect_corrupt(decode_key(std::span(offset).first(len)).status(), "key");
  for (size_t len = 2; len < offset.size(); ++len)
    expect_corrupt(decode_key(std::span(offset).first(len)).status(), "OffsetCommitKey");
  for (size_t len = 2; len < group.size(); ++len)
    expect_corrupt(decode_key(std::span(group).first(len)).status(), "GroupMetadataKey");
}

TEST(OffsetsRecords, TrailingBytesRefused) {
  Bytes key = encode_key(OffsetKey{"g", "t", 0});
  key.push_back(0);
  expect_corrupt(decode_key(key).status(), "OffsetCommitKey v1: 1 trailing bytes");
  Bytes gkey = encode_key(GroupKey{"g"});
  gkey.push_back(0);
  expect_corrupt(decode_key(gkey).status(), "GroupMetadataKey v2: 1 trailing bytes");
  for (int16_t version = 0; version <= 4; ++version) {
    Bytes offset = offset_value_at(version, sample_offset());
    offset.insert(offset.end(), {1, 2});
    expect_corrupt(decode_offset_value(offset).status(),
                   "OffsetCommitValue v" + std::to_string(version) + ": 2 trailing bytes");
    Bytes group = group_value_at(version, sample_group());
    group.push_back(7);
    expect_corrupt(decode_group_value(group).status(),
                   "GroupMetadataValue v" + std::to_string(version) + ": 1 trailing bytes");
  }
}

Bytes with_version(Bytes b, int16_t version) {
  b[0] = static_cast<uint8_t>(static_cast<uint16_t>(version) >> 8);
  b[1] = static_cast<uint8_t>(version);
  return b;
}

TEST(OffsetsRecords, UnknownKeyVersionIsUnsupported) {
  // 3+ are the records of KIP-848 consumer groups and share groups in newer Kafka.
  for (int16_t version : {3, 4, 19, 0x7fff, -1}) {
    Status st = decode_key(with_version(encode_key(GroupKey{"g"}), version)).status();
    EXPECT_EQ(st.code(), ErrorCode::UNSUPPORTED_VERSION) << st.to_string();
    EXPECT_NE(st.message().find("version " + std::to_string(version)), std::string::npos)
        << st.to_string();
  }
}

TEST(OffsetsRecords, UnknownValueVersionRefused) {
  for (int16_t version : {5, 0x7fff, -1}) {
    const Bytes offset = with_version(encode_value(sample_offset()), version);
    expect_corrupt(decode_offset_value(offset).status(),
                   "OffsetCommitValue: version " + std::to_string(version));
    const Bytes group = with_version(encode_value(sample_group()), version);
    expect_corrupt(decode_group_value(group).status(),
                   "GroupMetadataValue: version " + std::to_string(version));
  }
}

TEST(OffsetsRecords, NullsWhereTheSchemaForbidsThemRefused) {
  // protocol type null (int16 -1)
  expect_corrupt(decode_group_value(Bytes{0x00, 0x00, 0xff, 0xff}).status(),
                 "GroupMetadataValue v0");
  // members null: v0, "" protocol type, generation 0, null protocol, null leader, count -1
  const Bytes null_members = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                              0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  expect_corrupt(decode_group_value(null_members).status(), "null member list");
  // offset metadata null in v4 (compact 0)
  Bytes v4 = offset_value_at(4, OffsetValue{1, 2, "", 3, -1});
  v4[2 + 8 + 4] = 0x00;
  expect_corrupt(decode_offset_value(v4).status(), "OffsetCommitValue v4");
}

TEST(OffsetsRecords, HostileCountsAndTagLengthsRefused) {
  // A member count of 2^31-1 with nothing behind it must fail before anything is reserved.
  const Bytes huge = {0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff};
  expect_corrupt(decode_group_value(huge).status(), "array length exceeds");
  // A v4 tagged field claiming more bytes than remain.
  Bytes v4 = offset_value_at(4, sample_offset());
  v4.back() = 0x01;                         // one tagged field...
  v4.insert(v4.end(), {0x00, 0x05, 0xaa});  // ...tag 0 of 5 bytes, only 1 present
  expect_corrupt(decode_offset_value(v4).status(), "tagged field longer");
}

// ---- partition_for_group -----------------------------------------------------------------

// Java's String.hashCode over UTF-16 code units: h = 31*h + unit, wrapping at 32 bits. Used as
// an oracle for well-formed text, whose code units the compiler produces from u"" literals.
int32_t java_hash(std::u16string_view s) {
  uint32_t h = 0;
  for (char16_t c : s) h = 31 * h + c;
  return static_cast<int32_t>(h);
}

// partition_for_group with the largest count shows the hash itself: (h & 0x7fffffff) % INT_MAX.
int32_t hash_bits(std::string_view group) { return partition_for_group(group, INT32_MAX); }
int32_t expected_bits(int32_t java) { return (java & 0x7fffffff) % INT32_MAX; }

TEST(PartitionForGroup, HandComputedJavaHashes) {
  EXPECT_EQ(java_hash(u""), 0);
  EXPECT_EQ(java_hash(u"a"), 97);       // 'a'
  EXPECT_EQ(java_hash(u"ab"), 3105);    // 97*31 + 98
  EXPECT_EQ(java_hash(u"abc"), 96354);  // 3105*31 + 99
  // Values printed by Java's "...".hashCode():
  EXPECT_EQ(java_hash(u"hello"), 99162322);
  EXPECT_EQ(java_hash(u"group"), 98629247);
  EXPECT_EQ(java_hash(u"my-consumer-group"), 1513705513);
  EXPECT_EQ(java_hash(u"polygenelubricants"), INT32_MIN);
  for (std::string_view g : {"", "a", "ab", "abc", "hello", "group", "my-consumer-group"})
    EXPECT_EQ(hash_bits(g), expected_bits(java_hash(std::u16string(g.begin(), g.end())))) << g;
}

TEST(PartitionForGroup, KafkaAbsAndModulo) {
  // Kafka's default 50 partitions: "group" 98629247 % 50 = 47, "hello" 99162322 % 50 = 22.
  EXPECT_EQ(partition_for_group("group", 50), 47);
  EXPECT_EQ(partition_for_group("hello", 50), 22);
  EXPECT_EQ(partition_for_group("a", 50), 47);
  EXPECT_EQ(partition_for_group("a", 1), 0);
  // Utils.abs(Integer.MIN_VALUE) is 0 (a mask, not Math.abs, which would stay negative).
  EXPECT_EQ(partition_for_group("polygenelubricants", 50), 0);
  EXPECT_EQ(partition_for_group("polygenelubricants", 7), 0);
  for (int32_t count : {1, 3, 50, 1000})
    for (std::string_view g : {"x", "orders-app", "consumer-group-with-a-long-name"}) {
      const int32_t p = partition_for_group(g, count);
      EXPECT_GE(p, 0);
      EXPECT_LT(p, count);
    }
}

TEST(PartitionForGroup, NonAsciiUsesUtf16CodeUnits) {
  // "groupé": é is one code unit U+00E9 (two UTF-8 bytes); Java: -1237460406.
  EXPECT_EQ(java_hash(u"group\u00e9"), -1237460406);
  EXPECT_EQ(hash_bits("group\xc3\xa9"), expected_bits(-1237460406));
  EXPECT_EQ(partition_for_group("group\xc3\xa9", 50), 42);
  // "€" U+20AC: three UTF-8 bytes, one code unit.
  EXPECT_EQ(hash_bits("\xe2\x82\xac"), 8364);
  EXPECT_EQ(hash_bits("\xef\xbf\xbf"), 0xffff);  // U+FFFF, the largest 3-byte code point
  EXPECT_EQ(hash_bits("\xe0\xa0\x80"), 0x800);   // U+0800, the smallest
  // Above U+FFFF a code point is a surrogate pair: U+1F600 = D83D DE00; Java: 1772899.
  EXPECT_EQ(java_hash(u"\U0001F600"), 1772899);
  EXPECT_EQ(hash_bits("\xf0\x9f\x98\x80"), 1772899);
  EXPECT_EQ(hash_bits("g\xf4\x8f\xbf\xbf"), java_hash(u"g\U0010FFFF"));
  EXPECT_EQ(hash_bits("a\xf0\x9f\x98\x80\xc3\xa9z"),
            expected_bits(java_hash(u"a\U0001F600\u00e9z")));
}

TEST(PartitionForGroup, InvalidUtf8AsJavaDecodesIt) {
  // Java's new String(bytes, UTF_8) puts one U+FFFD (65533) for each maximal invalid prefix of
  // a sequence. Each expected value was printed by Java 17 and 25 for the same bytes.
  constexpr int32_t one = 65533;                     // "\uFFFD"
  constexpr int32_t two = 65533 * 31 + 65533;        // "\uFFFD\uFFFD" = 2097056
  constexpr int32_t repl_then_a = 65533 * 31 + 'A';  // 2031588
  EXPECT_EQ(two, 2097056);
  EXPECT_EQ(repl_then_a, 2031588);
  EXPECT_EQ(hash_bits("\x80"), one);  // lone continuation byte
  EXPECT_EQ(hash_bits("\xff"), one);
  EXPECT_EQ(hash_bits("\xc0\x80"), two);         // overlong NUL: C0 is never valid
  EXPECT_EQ(hash_bits("a\xc3"), 97 * 31 + one);  // truncated at the end: 68540
  EXPECT_EQ(hash_bits("\xc3"
                      "A"),
            repl_then_a);
  EXPECT_EQ(hash_bits("\xe2\x82"), one);  // valid prefix of 2 bytes: one U+FFFD
  EXPECT_EQ(hash_bits("\xe2\x82"
                      "A"),
            repl_then_a);
  EXPECT_EQ(hash_bits("\xe2"
                      "A"),
            repl_then_a);
  EXPECT_EQ(hash_bits("\xe0\x80\x80"), 65074269);  // overlong: three U+FFFD
  EXPECT_EQ(hash_bits("\xe0\x80"), two);
  EXPECT_EQ(hash_bits("\xed\xa0\x80"), one);  // encoded surrogate: ONE U+FFFD in Java
  EXPECT_EQ(hash_bits("\xed\xa0"), one);
  EXPECT_EQ(hash_bits("\xed\xa0"
                      "A"),
            repl_then_a);
  EXPECT_EQ(hash_bits("\xf0\x9f\x98"), one);
  EXPECT_EQ(hash_bits("\xf0\x9f\x98"
                      "A"),
            repl_then_a);
  EXPECT_EQ(hash_bits("\xf0\x9f"
                      "AB"),
            62979294);
  EXPECT_EQ(hash_bits("\xf0"), one);
  EXPECT_EQ(hash_bits("\xf0\x80\x80\x80"), 2017367872);  // overlong 4-byte: four U+FFFD
  EXPECT_EQ(hash_bits("\xf4\x90\x80\x80"), 2017367872);  // above U+10FFFF
  EXPECT_EQ(hash_bits("\xf5\x80\x80\x80"), 2017367872);
  EXPECT_EQ(hash_bits("\xf7\xbf\xbf\xbf"), 2017367872);
  EXPECT_EQ(hash_bits("\xf8\x88\x80\x80\x80"), expected_bits(-1886039875));
  EXPECT_EQ(hash_bits("\xf4\x8f\xbf"
                      "A"),
            repl_then_a);
  EXPECT_EQ(hash_bits("\xf0\x90\x80\xc0"), two);
  EXPECT_EQ(hash_bits("\xf0\xc0"
                      "A"),
            65008801);
  EXPECT_EQ(hash_bits("A\xf0\x90"), 67548);
  EXPECT_EQ(hash_bits("a\xf0\x9f\x98\x80\xff"
                      "b"),
            1795369097);
}

}  // namespace
}  // namespace mirra::groups
