#include "txn/txn_log_records.h"

#include <gtest/gtest.h>

namespace mirra::txn {
namespace {

TxnLogValue sample() {
  TxnLogValue v;
  v.producer_id = 4242;
  v.producer_epoch = 7;
  v.timeout_ms = 60000;
  v.state = TxnState::ongoing;
  v.partitions = {{"orders", {0, 2}}, {"__consumer_offsets", {1}}};
  v.last_update_ms = 1700000000123;
  v.start_ms = 1700000000000;
  return v;
}

TEST(TxnLogRecords, KeyIsVersionThenClassicString) {
  const auto key = encode_txn_key("app-1");
  const std::vector<uint8_t> expected = {0, 0, 0, 5, 'a', 'p', 'p', '-', '1'};
  EXPECT_EQ(key, expected);
  auto back = decode_txn_key(key);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back.value(), "app-1");
}

TEST(TxnLogRecords, ValueRoundTripsForEveryState) {
  for (int s = 0; s <= 7; ++s) {
    TxnLogValue v = sample();
    v.state = static_cast<TxnState>(s);
    auto back = decode_txn_value(encode_txn_value(v));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back.value(), v) << state_name(v.state);
    TxnState named;
    ASSERT_TRUE(state_from_name(state_name(v.state), named));
    EXPECT_EQ(named, v.state);
  }
  TxnState unused;
  EXPECT_FALSE(state_from_name("Running", unused));
}

TEST(TxnLogRecords, ValueV0Layout) {
  TxnLogValue v;
  v.producer_id = 1;
  v.producer_epoch = 2;
  v.timeout_ms = 3;
  v.state = TxnState::complete_commit;
  v.last_update_ms = 5;
  v.start_ms = 6;
  const auto bytes = encode_txn_value(v);
  // version, pid, epoch, timeout, state, empty partition array, last update, start
  ASSERT_EQ(bytes.size(), 2u + 8 + 2 + 4 + 1 + 4 + 8 + 8);
  EXPECT_EQ(bytes[1], 0);
  EXPECT_EQ(bytes[9], 1);
  EXPECT_EQ(bytes[11], 2);
  EXPECT_EQ(bytes[15], 3);
  EXPECT_EQ(bytes[16], 4);
}

TEST(TxnLogRecords, EveryTruncationAndTrailingBytesRefused) {
  const auto bytes = encode_txn_value(sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = decode_txn_value(std::span<const uint8_t>(bytes.data(), n));
    EXPECT_FALSE(r.ok()) << n;
  }
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(decode_txn_value(longer).status().code(), ErrorCode::CORRUPT_MESSAGE);
  auto key = encode_txn_key("x");
  key.push_back(1);
  EXPECT_EQ(decode_txn_key(key).status().code(), ErrorCode::CORRUPT_MESSAGE);
}

TEST(TxnLogRecords, UnknownStateAndNewerVersionsRefused) {
  auto bytes = encode_txn_value(sample());
  bytes[16] = 9;  // the state byte
  EXPECT_EQ(decode_txn_value(bytes).status().code(), ErrorCode::CORRUPT_MESSAGE);
  bytes = encode_txn_value(sample());
  bytes[1] = 2;  // version 2
  EXPECT_EQ(decode_txn_value(bytes).status().code(), ErrorCode::UNSUPPORTED_VERSION);
}

TEST(TxnLogRecords, FlexibleV1WithTagsIsRead) {
  // v1: compact arrays and strings, tagged fields after each partition entry and the value.
  std::vector<uint8_t> b = {0, 1};
  auto be = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  be(77, 8);       // producer id
  be(3, 2);        // epoch
  be(1000, 4);     // timeout
  b.push_back(1);  // Ongoing
  b.push_back(2);  // one topic (compact: n + 1)
  b.push_back(2);  // "t"
  b.push_back('t');
  b.push_back(3);  // two partitions
  be(0, 4);
  be(5, 4);
  b.push_back(0);                                         // no tags in the entry
  be(11, 8);                                              // last update
  be(10, 8);                                              // start
  b.insert(b.end(), {1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 42});  // one tag (PreviousProducerId)
  auto v = decode_txn_value(b);
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_EQ(v->producer_id, 77);
  EXPECT_EQ(v->state, TxnState::ongoing);
  EXPECT_EQ(v->partitions.at("t"), (std::set<int32_t>{0, 5}));
  EXPECT_EQ(v->start_ms, 10);
}

}  // namespace
}  // namespace mirra::txn
