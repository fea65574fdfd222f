// Handler tests of Fetch and ListOffsets over many partitions (server/handlers/fetch.cc,
// list_offsets.cc): the partitions are read side by side (Fetch in waves of 64, ListOffsets all
// at once) and partitions with nothing to read take no read, yet every partition is answered
// in request order, a response keeps to its max_bytes (the first partition with data gets one
// batch whatever the limit, KIP-74), and errors stay each partition's own.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "protocol/messages/create_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/produce.h"
#include "protocol/records/batch_builder.h"
#include "protocol/records/record_set.h"
#include "server/in_process_broker.h"
#include "test_batches.h"

namespace mirra::server {
namespace {

using protocol::Bytes;

constexpr int32_t kPartitions = 150;  // more than two waves of reads

using test::batch_of;

class FetchManyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b = InProcessBroker::start({});
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
    protocol::CreateTopicsRequest req;
    req.topics.push_back({"many", kPartitions, 1, {}, {}, {}});
    auto resp = broker_->call<protocol::CreateTopicsResponse>(req, 7);
    ASSERT_TRUE(resp.ok());
    ASSERT_EQ(resp->topics.at(0).error_code, 0);
  }

  // One record per batch, `count` batches, to one partition.
  void produce(int32_t partition, const std::string& value, int count = 1) {
    for (int i = 0; i < count; ++i) {
      Bytes bytes = batch_of({value});
      protocol::ProduceRequest req;
      req.acks = 1;
      req.timeout_ms = 1000;
      auto& td = req.topic_data.emplace_back();
      td.name = "many";
      td.partition_data.push_back(
          {partition, protocol::RecordsView{bytes.data(), bytes.size(), nullptr}, {}});
      auto resp = broker_->call<protocol::ProduceResponse>(req, 9);
      ASSERT_TRUE(resp.ok()) << resp.status().to_string();
      ASSERT_EQ(resp->responses.at(0).partition_responses.at(0).error_code, 0);
    }
  }

  // Every partition from `offset`, sessionless.
  protocol::FetchResponse fetch_all(int64_t offset, int32_t max_bytes) {
    protocol::FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = max_bytes;
    req.session_id = 0;
    req.session_epoch = -1;
    auto& t = req.topics.emplace_back();
    t.topic = "many";
    for (int32_t p = 0; p < kPartitions; ++p) {
      t.partitions.push_back({p, -1, offset, -1, -1, 1 << 20, {}, {}});
    }
    auto resp = broker_->call<protocol::FetchResponse>(req, 12);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    return resp.ok() ? std::move(resp.value()) : protocol::FetchResponse{};
  }

  static std::vector<std::string> values_of(const protocol::FetchResponse::PartitionData& pd) {
    std::vector<std::string> out;
    if (!pd.records) return out;
    records::RecordSetIterator it(pd.records->span(), /*validate=*/true);
    records::BatchView batch;
    std::vector<uint8_t> scratch;
    while (it.next(batch) == records::RecordSetStep::batch) {
      Status s = records::for_each_record(batch, scratch, [&](const records::RecordView& r) {
        out.emplace_back(r.value ? std::string(records::as_string(*r.value)) : "");
        return Status::OK();
      });
      EXPECT_TRUE(s.ok()) << s.to_string();
    }
    return out;
  }

  static size_t bytes_of(const protocol::FetchResponse::PartitionData& pd) {
    return pd.records ? pd.records->span().size() : 0;
  }

  std::unique_ptr<InProcessBroker> broker_;
};

TEST_F(FetchManyTest, EveryPartitionIsAnsweredInOrderWithItsOwnRecords) {
  for (int32_t p = 0; p < kPartitions; p += 3) produce(p, "v" + std::to_string(p));
  const protocol::FetchResponse resp = fetch_all(0, 1 << 24);
  ASSERT_EQ(resp.responses.size(), 1u);
  const auto& parts = resp.responses[0].partitions;
  ASSERT_EQ(parts.size(), static_cast<size_t>(kPartitions));
  for (int32_t p = 0; p < kPartitions; ++p) {
    const auto& pd = parts[static_cast<size_t>(p)];
    EXPECT_EQ(pd.partition_index, p);
    EXPECT_EQ(pd.error_code, 0) << "partition " << p;
    const bool has = p % 3 == 0;
    EXPECT_EQ(pd.high_watermark, has ? 1 : 0) << "partition " << p;
    EXPECT_EQ(values_of(pd),
              has ? std::vector<std::string>{"v" + std::to_string(p)} : std::vector<std::string>{})
        << "partition " << p;
  }
}

TEST_F(FetchManyTest, AtTheEndNothingIsReadAndPastItIsOutOfRange) {
  produce(7, "x", 2);
  // At offset 1: partition 7 has its second record; the empty ones are out of range; none of
  // the answers borrows another's.
  const protocol::FetchResponse resp = fetch_all(1, 1 << 24);
  const auto& parts = resp.responses.at(0).partitions;
  ASSERT_EQ(parts.size(), static_cast<size_t>(kPartitions));
  for (int32_t p = 0; p < kPartitions; ++p) {
    const auto& pd = parts[static_cast<size_t>(p)];
    if (p == 7) {
      EXPECT_EQ(pd.error_code, 0);
      EXPECT_EQ(values_of(pd), std::vector<std::string>{"x"});
    } else {
      EXPECT_EQ(pd.error_code, error_number(ErrorCode::OFFSET_OUT_OF_RANGE)) << "partition " << p;
      EXPECT_EQ(bytes_of(pd), 0u);
    }
  }
  // At offset 2 partition 7 is at its end: nothing, no error, its offsets.
  const protocol::FetchResponse end = fetch_all(2, 1 << 24);
  const auto& p7 = end.responses.at(0).partitions.at(7);
  EXPECT_EQ(p7.error_code, 0);
  EXPECT_EQ(p7.high_watermark, 2);
  EXPECT_EQ(p7.log_start_offset, 0);
  EXPECT_EQ(bytes_of(p7), 0u);
}

TEST_F(FetchManyTest, ResponseKeepsToMaxBytesAcrossWaves) {
  const std::string value(1000, 'v');
  for (int32_t p = 0; p < kPartitions; ++p) produce(p, value);
  const size_t batch = bytes_of(fetch_all(0, 1 << 24).responses.at(0).partitions.at(0));
  ASSERT_GT(batch, 1000u);

  // Room for 20 batches of 150: 20 partitions get theirs, the others none, and never more.
  const int32_t max_bytes = static_cast<int32_t>(20 * batch + batch / 2);
  const protocol::FetchResponse resp = fetch_all(0, max_bytes);
  size_t total = 0, with_data = 0;
  for (const auto& pd : resp.responses.at(0).partitions) {
    EXPECT_EQ(pd.error_code, 0);
    EXPECT_EQ(pd.high_watermark, 1);
    total += bytes_of(pd);
    with_data += bytes_of(pd) > 0;
  }
  EXPECT_LE(total, static_cast<size_t>(max_bytes));
  EXPECT_EQ(with_data, 20u);
  EXPECT_GT(bytes_of(resp.responses.at(0).partitions.at(0)), 0u);

  // A limit below one batch: the first partition still gets its batch (KIP-74), no other.
  const protocol::FetchResponse tiny = fetch_all(0, 10);
  const auto& parts = tiny.responses.at(0).partitions;
  EXPECT_EQ(bytes_of(parts.at(0)), batch);
  for (size_t p = 1; p < parts.size(); ++p) EXPECT_EQ(bytes_of(parts[p]), 0u) << "partition " << p;
}

TEST_F(FetchManyTest, ListOffsetsAnswersEveryPartitionInOrder) {
  for (int32_t p = 0; p < kPartitions; ++p) {
    if (p % 4 != 0) produce(p, "r", p % 4);
  }
  protocol::ListOffsetsRequest req;
  req.replica_id = -1;
  auto& t = req.topics.emplace_back();
  t.name = "many";
  for (int32_t p = 0; p < kPartitions; ++p) t.partitions.push_back({p, -1, -1, {}});
  t.partitions.push_back({kPartitions + 5, -1, -1, {}});  // no such partition
  t.partitions.push_back({3, -1, -2, {}});                // earliest
  auto resp = broker_->call<protocol::ListOffsetsResponse>(req, 7);
  ASSERT_TRUE(resp.ok()) << resp.status().to_string();
  const auto& parts = resp->topics.at(0).partitions;
  ASSERT_EQ(parts.size(), static_cast<size_t>(kPartitions + 2));
  for (int32_t p = 0; p < kPartitions; ++p) {
    const auto& pr = parts[static_cast<size_t>(p)];
    EXPECT_EQ(pr.partition_index, p);
    EXPECT_EQ(pr.error_code, 0);
    EXPECT_EQ(pr.offset, p % 4) << "partition " << p;
  }
  EXPECT_EQ(parts[kPartitions].error_code, error_number(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION));
  EXPECT_EQ(parts[kPartitions + 1].partition_index, 3);
  EXPECT_EQ(parts[kPartitions + 1].offset, 0);
}

}  // namespace
}  // namespace mirra::server
