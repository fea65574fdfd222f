#include "protocol/records/record_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/records/batch_builder.h"
#include "protocol/records/crc32c.h"
#include "protocol/records/record.h"

namespace mirra::records {
namespace {

const Compression kCodecs[] = {Compression::none, Compression::gzip, Compression::snappy,
                               Compression::lz4, Compression::zstd};

struct Expected {
  std::optional<std::string> key, value;
  int64_t timestamp;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

std::string str(Bytes b) { return std::string(as_string(b)); }
std::optional<std::string> str(const NullableBytes& b) {
  return b ? std::optional<std::string>(str(*b)) : std::nullopt;
}
NullableBytes bytes(const std::optional<std::string>& s) {
  return s ? NullableBytes(as_bytes(*s)) : std::nullopt;
}

const std::vector<Expected> kRecords = {
    {"k1", "v1", 1000, {}},
    {std::nullopt, "value with null key", 1005, {{"h1", "x"}, {"h2", std::nullopt}}},
    {"tombstone", std::nullopt, 990, {{"", ""}}},
    {"", "", 1001, {}},
    {std::nullopt, std::nullopt, 1002, {{"trace-id", std::string(300, 't')}}},
};

std::vector<uint8_t> build(const BatchOptions& options) {
  BatchBuilder b(options);
  for (const Expected& e : kRecords) {
    std::vector<HeaderInput> headers;
    for (const auto& [k, v] : e.headers) headers.push_back({k, bytes(v)});
    RecordInput r;
    r.key = bytes(e.key);
    r.value = bytes(e.value);
    r.timestamp = e.timestamp;
    r.headers = headers;
    EXPECT_TRUE(b.append(r));
  }
  auto out = b.finish();
  EXPECT_TRUE(out) << out.status().to_string();
  return std::move(out).value();
}

TEST(RecordBatch, BuildParseRoundTripEveryCodec) {
  for (Compression c : kCodecs) {
    SCOPED_TRACE(std::string(compression_name(c)));
    BatchOptions o;
    o.base_offset = 42;
    o.producer_id = 7;
    o.producer_epoch = 3;
    o.base_sequence = 100;
    o.compression = c;
    const std::vector<uint8_t> wire = build(o);
    auto view = BatchView::parse(wire);
    ASSERT_TRUE(view) << view.status().to_string();
    ASSERT_TRUE(view->validate()) << view->validate().to_string();
    EXPECT_EQ(view->size(), wire.size());
    EXPECT_EQ(view->base_offset(), 42);
    EXPECT_EQ(view->magic(), 2);
    EXPECT_EQ(view->compression(), c);
    EXPECT_EQ(view->record_count(), 5);
    EXPECT_EQ(view->last_offset_delta(), 4);
    EXPECT_EQ(view->last_offset(), 46);
    EXPECT_EQ(view->base_timestamp(), 1000);
    EXPECT_EQ(view->max_timestamp(), 1005);
    EXPECT_EQ(view->producer_id(), 7);
    EXPECT_EQ(view->producer_epoch(), 3);
    EXPECT_EQ(view->base_sequence(), 100);
    EXPECT_EQ(view->partition_leader_epoch(), -1);
    EXPECT_FALSE(view->is_transactional());
    EXPECT_FALSE(view->is_control());
    EXPECT_EQ(view->timestamp_type(), TimestampType::create_time);

    std::vector<uint8_t> scratch;
    size_t i = 0;
    const Status st = for_each_record(*view, scratch, [&](const RecordView& r) {
      const Expected& e = kRecords.at(i);
      EXPECT_EQ(r.offset_delta, static_cast<int32_t>(i));
      EXPECT_EQ(view->base_timestamp() + r.timestamp_delta, e.timestamp);
      EXPECT_EQ(str(r.key), e.key);
      EXPECT_EQ(str(r.value), e.value);
      EXPECT_EQ(r.header_count, static_cast<int32_t>(e.headers.size()));
      HeaderIterator hs = r.headers();
      HeaderView h;
      size_t j = 0;
      while (hs.next(h)) {
        EXPECT_EQ(str(h.key), e.headers.at(j).first);
        EXPECT_EQ(str(h.value), e.headers.at(j).second);
        ++j;
      }
      EXPECT_EQ(j, e.headers.size());
      ++i;
      return Status();
    });
    EXPECT_TRUE(st) << st.to_string();
    EXPECT_EQ(i, kRecords.size());
  }
}

TEST(RecordBatch, OptionsReachTheHeader) {
  BatchOptions o;
  o.transactional = true;
  o.timestamp_type = TimestampType::log_append_time;
  o.log_append_time = 777;
  o.partition_leader_epoch = 9;
  const auto wire = build(o);
  auto v = BatchView::parse(wire);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->validate());
  EXPECT_TRUE(v->is_transactional());
  EXPECT_EQ(v->timestamp_type(), TimestampType::log_append_time);
  EXPECT_EQ(v->max_timestamp(), 777);
  EXPECT_EQ(v->partition_leader_epoch(), 9);
  EXPECT_EQ(v->attributes(), attr::kTransactional | attr::kLogAppendTime);
}

TEST(RecordBatch, ExplicitOffsetDeltasAndBuilderErrors) {
  BatchBuilder b({});
  RecordInput r;
  r.offset_delta = 3;
  ASSERT_TRUE(b.append(r));
  r.offset_delta = 3;
  EXPECT_EQ(b.append(r).code(), ErrorCode::INVALID_REQUEST);
  r.offset_delta = 10;
  ASSERT_TRUE(b.append(r));
  auto wire = b.finish();
  ASSERT_TRUE(wire);
  auto v = BatchView::parse(*wire);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->validate());  // 2 records, lastOffsetDelta 10: a compacted-looking batch
  EXPECT_EQ(v->last_offset_delta(), 10);
  EXPECT_FALSE(b.finish());
  EXPECT_EQ(BatchBuilder({}).finish().status().code(), ErrorCode::INVALID_REQUEST);
}

TEST(RecordBatch, ControlBatch) {
  for (ControlType type : {ControlType::COMMIT, ControlType::ABORT}) {
    auto wire = build_control_batch(type, 4000, 5, 17, 1234, 99999, 3);
    ASSERT_TRUE(wire);
    auto v = BatchView::parse(*wire);
    ASSERT_TRUE(v);
    ASSERT_TRUE(v->validate());
    EXPECT_TRUE(v->is_control());
    EXPECT_TRUE(v->is_transactional());
    EXPECT_EQ(v->attributes(), 0x30);
    EXPECT_EQ(v->producer_id(), 4000);
    EXPECT_EQ(v->producer_epoch(), 5);
    EXPECT_EQ(v->base_offset(), 1234);
    EXPECT_EQ(v->base_sequence(), -1);
    EXPECT_EQ(v->record_count(), 1);
    EXPECT_EQ(v->partition_leader_epoch(), 3);
    EXPECT_EQ(v->base_timestamp(), 99999);
    std::vector<uint8_t> scratch;
    int seen = 0;
    ASSERT_TRUE(for_each_record(*v, scratch, [&](const RecordView& r) {
      ++seen;
      const uint8_t t = type == ControlType::COMMIT ? 1 : 0;
      EXPECT_EQ(std::vector<uint8_t>(r.key->begin(), r.key->end()),
                (std::vector<uint8_t>{0, 0, 0, t}));
      EXPECT_EQ(std::vector<uint8_t>(r.value->begin(), r.value->end()),
                (std::vector<uint8_t>{0, 0, 0, 0, 0, 17}));
      auto cr = parse_control_record(r);
      EXPECT_TRUE(cr);
      EXPECT_EQ(cr->type, static_cast<int16_t>(type));
      EXPECT_EQ(cr->coordinator_epoch, 17);
      return Status();
    }));
    EXPECT_EQ(seen, 1);
  }
}

TEST(RecordBatch, ControlRecordErrors) {
  RecordView r;
  EXPECT_FALSE(parse_control_record(r));  // null key
  const uint8_t key[] = {0, 0, 0, 1};
  r.key = Bytes(key);
  EXPECT_FALSE(parse_control_record(r));  // commit without value
  const uint8_t other[] = {0, 0, 0, 2};   // not a transaction marker: no value needed
  r.key = Bytes(other);
  auto cr = parse_control_record(r);
  ASSERT_TRUE(cr);
  EXPECT_EQ(cr->type, 2);
}

TEST(RecordBatch, PatchOffsetAndEpochKeepCrcValid) {
  auto wire = build({});
  const auto before = wire;
  ASSERT_TRUE(patch_base_offset(wire, 1'000'000'007));
  ASSERT_TRUE(patch_leader_epoch(wire, 12));
  auto v = BatchView::parse(wire);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->validate());
  EXPECT_EQ(v->base_offset(), 1'000'000'007);
  EXPECT_EQ(v->partition_leader_epoch(), 12);
  for (size_t i = 16; i < wire.size(); ++i) ASSERT_EQ(wire[i], before[i]) << i;
  std::vector<uint8_t> tiny(20, 0);
  EXPECT_FALSE(patch_base_offset(tiny, 1));
}

// Every byte identical except producerId (43..50) and CRC (17..20).
void expect_rewrite(int64_t p, int64_t expected, Compression c) {
  BatchOptions o;
  o.producer_id = p;
  o.producer_epoch = 2;
  o.base_sequence = 5;
  o.compression = c;
  auto wire = build(o);
  const auto before = wire;
  ASSERT_TRUE(rewrite_producer_id(wire));
  auto v = BatchView::parse(wire);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->validate()) << v->validate().to_string();
  EXPECT_EQ(v->producer_id(), expected);
  for (size_t i = 0; i < wire.size(); ++i) {
    const bool may_differ = (i >= 17 && i <= 20) || (i >= 43 && i <= 50);
    if (!may_differ) {
      ASSERT_EQ(wire[i], before[i]) << "byte " << i;
    }
  }
  if (expected == p) {
    EXPECT_EQ(wire, before);
  }
}

TEST(RecordBatch, RewriteProducerId) {
  for (Compression c : kCodecs) {
    expect_rewrite(5, -7, c);
    expect_rewrite(0, -2, c);
    expect_rewrite(-1, -1, c);
  }
  expect_rewrite(-7, -7, Compression::none);  // already mirrored: untouched
  EXPECT_EQ(mirrored_producer_id(INT64_MAX - 1), INT64_MIN);
  auto marker = build_control_batch(ControlType::COMMIT, 10, 1, 1, 0, 0);
  ASSERT_TRUE(marker);
  ASSERT_TRUE(rewrite_producer_id(*marker));
  auto v = BatchView::parse(*marker);
  EXPECT_EQ(v->producer_id(), -12);
  EXPECT_TRUE(v->validate());
}

// The CRC is patched, not recomputed: a corrupt batch is never re-blessed with a fresh checksum.
TEST(RecordBatch, RewriteKeepsCorruptBatchCorrupt) {
  for (Compression c : kCodecs) {
    BatchOptions o;
    o.producer_id = 5;
    o.compression = c;
    auto wire = build(o);
    wire.back() ^= 1;
    ASSERT_TRUE(rewrite_producer_id(wire));
    auto v = BatchView::parse(wire);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->producer_id(), -7);
    EXPECT_EQ(v->validate().code(), ErrorCode::CORRUPT_MESSAGE);
    wire.back() ^= 1;  // the damage undone: the patched CRC is the right one
    EXPECT_TRUE(BatchView::parse(wire)->validate());
  }
}

}  // namespace
}  // namespace mirra::records
