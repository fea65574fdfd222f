// The key and value encodings of __mirror_state (docs/formats/mirror_state.md).
#include "mirror/mirror_state_records.h"

#include <gtest/gtest.h>

namespace mirra::mirror {
namespace {

MirrorStateValue sample() {
  MirrorStateValue v;
  v.mirror = "dr";
  v.source_cluster_id = "9xbNDNgUQXSa-wlaZZ9Rjw";
  v.state = static_cast<int8_t>(MirrorState::stopped);
  v.previous_state = static_cast<int8_t>(MirrorState::stopping);
  v.last_mirrored_offset = 1234;
  v.retries = 3;
  v.state_epoch = 7;
  v.last_error_code = 0;
  return v;
}

TEST(MirrorStateRecords, RoundTrip) {
  const MirrorStateKey key{Uuid::random(), 5};
  auto k = decode_state_key(encode_state_key(key));
  ASSERT_TRUE(k.ok()) << k.status().to_string();
  EXPECT_EQ(k.value(), key);
  for (std::optional<std::string> error :
       {std::optional<std::string>(), std::optional<std::string>("source unreachable")}) {
    MirrorStateValue v = sample();
    v.last_error = error;
    auto back = decode_state_value(encode_state_value(v));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back.value(), v);
  }
}

TEST(MirrorStateRecords, KeyLayoutIsVersionTopicIdPartition) {
  const MirrorStateKey key{Uuid::random(), 0x01020304};
  const protocol::Bytes bytes = encode_state_key(key);
  ASSERT_EQ(bytes.size(), 2u + 16u + 4u);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], 0);
  EXPECT_TRUE(std::equal(key.topic_id.bytes.begin(), key.topic_id.bytes.end(), bytes.begin() + 2));
  EXPECT_EQ(bytes[18], 1);
  EXPECT_EQ(bytes[21], 4);
}

TEST(MirrorStateRecords, TruncationsTrailingBytesAndNewerVersionsRefused) {
  const protocol::Bytes value = encode_state_value(sample());
  for (size_t n = 0; n < value.size(); ++n) {
    auto r = decode_state_value(std::span<const uint8_t>(value.data(), n));
    EXPECT_EQ(r.status().code(), ErrorCode::CORRUPT_MESSAGE) << n;
  }
  protocol::Bytes longer = value;
  longer.push_back(0);
  EXPECT_EQ(decode_state_value(longer).status().code(), ErrorCode::CORRUPT_MESSAGE);
  protocol::Bytes newer = value;
  newer[1] = 1;  // version 1
  EXPECT_EQ(decode_state_value(newer).status().code(), ErrorCode::CORRUPT_MESSAGE);
  protocol::Bytes key = encode_state_key({Uuid::random(), 1});
  key.pop_back();
  EXPECT_EQ(decode_state_key(key).status().code(), ErrorCode::CORRUPT_MESSAGE);
}

}  // namespace
}  // namespace mirra::mirror
