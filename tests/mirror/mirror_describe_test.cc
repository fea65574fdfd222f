// The rules behind DescribeMirrors, ListMirrors and LastMirroredOffsets
// (mirror/mirror_describe.h, mirror/mirror_admin.h): what one partition shows from its durable
// state and the runner's live status, a topic's listed state, and which LMO a failback gets.
#include "mirror/mirror_describe.h"

#include <gtest/gtest.h>

#include "mirror/mirror_admin.h"

namespace mirra::mirror {
namespace {

constexpr DescribeClock kNow{/*steady_ms=*/100'000, /*wall_ms=*/1'700'000'000'000};

MirrorStateValue state_of(MirrorState s) {
  MirrorStateValue v;
  v.mirror = "dr";
  v.source_cluster_id = "source-a";
  v.state = static_cast<int8_t>(s);
  v.previous_state = static_cast<int8_t>(MirrorState::preparing);
  return v;
}

PartitionMirrorStatus fetched(int64_t log_start, int64_t hw) {
  PartitionMirrorStatus st;
  st.source_log_start = log_start;
  st.source_high_watermark = hw;
  return st;
}

TEST(MirrorDescribe, PartitionWithoutStateOrStatusIsPreparingAndUnknown) {
  const PartitionDescription d = describe_partition(3, nullptr, nullptr, -1, kNow);
  EXPECT_EQ(d.partition, 3);
  EXPECT_EQ(d.state, static_cast<int8_t>(MirrorState::preparing));
  EXPECT_EQ(d.previous_state, -1);
  EXPECT_EQ(d.source_high_watermark, -1);
  EXPECT_EQ(d.destination_log_end_offset, -1);
  EXPECT_EQ(d.lag, -1);
  EXPECT_EQ(d.lag_ms, -1);
  EXPECT_EQ(d.fetch_latency_ms, -1);
  EXPECT_EQ(d.last_mirrored_offset, -1);
  EXPECT_EQ(d.retry_count, 0);
  EXPECT_EQ(d.last_error_code, 0);
  EXPECT_FALSE(d.last_error.has_value());
}

TEST(MirrorDescribe, DurableStateGivesStatePreviousStateAndLmo) {
  MirrorStateValue v = state_of(MirrorState::stopped);
  v.previous_state = static_cast<int8_t>(MirrorState::stopping);
  v.last_mirrored_offset = 42;
  const PartitionDescription d = describe_partition(0, &v, nullptr, 42, kNow);
  EXPECT_EQ(d.state, static_cast<int8_t>(MirrorState::stopped));
  EXPECT_EQ(d.previous_state, static_cast<int8_t>(MirrorState::stopping));
  EXPECT_EQ(d.last_mirrored_offset, 42);
  EXPECT_EQ(d.destination_log_end_offset, 42);
  EXPECT_EQ(d.lag, -1);  // never fetched: the source's end is unknown
}

TEST(MirrorDescribe, LagIsSourceHighWatermarkMinusOurLogEndNeverNegative) {
  const MirrorStateValue v = state_of(MirrorState::mirroring);
  const PartitionMirrorStatus st = fetched(5, 100);
  EXPECT_EQ(describe_partition(0, &v, &st, 60, kNow).lag, 40);
  EXPECT_EQ(describe_partition(0, &v, &st, 100, kNow).lag, 0);
  // The source lost its tail: we are ahead until the data path realigns; the lag says 0.
  EXPECT_EQ(describe_partition(0, &v, &st, 130, kNow).lag, 0);
  EXPECT_EQ(describe_partition(0, &v, &st, 60, kNow).source_log_start_offset, 5);
}

TEST(MirrorDescribe, LagNeedsBothEnds) {
  const MirrorStateValue v = state_of(MirrorState::mirroring);
  const PartitionMirrorStatus unknown_hw = fetched(0, -1);
  EXPECT_EQ(describe_partition(0, &v, &unknown_hw, 60, kNow).lag, -1);
  const PartitionMirrorStatus st = fetched(0, 100);
  EXPECT_EQ(describe_partition(0, &v, &st, -1, kNow).lag, -1);  // our partition is not open
}

TEST(MirrorDescribe, EveryMirroredStateWithALiveStatusShowsItsLag) {
  const PartitionMirrorStatus st = fetched(0, 100);
  for (MirrorState s :
       {MirrorState::preparing, MirrorState::mirroring, MirrorState::paused, MirrorState::failed}) {
    const MirrorStateValue v = state_of(s);
    EXPECT_EQ(describe_partition(0, &v, &st, 70, kNow).lag, 30) << int(s);
  }
}

// Issue 15 point 7: a STOPPED partition kept the lag of its last fetch and a lag time that grew
// with the wall clock. Failed over, nothing is copied any more: no lag in offsets or time
// (docs/mirroring-design.md §12); the LMO says where mirroring ended.
TEST(MirrorDescribe, StoppingAndStoppedPartitionsHaveNoLag) {
  PartitionMirrorStatus st = fetched(0, 100);
  st.newest_mirrored_timestamp = kNow.wall_ms - 60'000;
  for (MirrorState s : {MirrorState::stopping, MirrorState::stopped}) {
    MirrorStateValue v = state_of(s);
    v.last_mirrored_offset = 70;
    for (const DescribeClock later :
         {kNow, DescribeClock{kNow.steady_ms, kNow.wall_ms + 3'600'000}}) {
      const PartitionDescription d = describe_partition(0, &v, &st, 70, later);
      EXPECT_EQ(d.lag, -1) << int(s);
      EXPECT_EQ(d.lag_ms, -1) << int(s);
      EXPECT_EQ(d.last_mirrored_offset, 70);
      EXPECT_EQ(d.source_high_watermark, 100);  // as of the last answer, still shown
    }
  }
}

// Issue 15 point 7: partitions added on the source were invisible (describe said lag 0). Until
// the sync tasks mirror them, each is NOT_MIRRORED with its whole source log as the lag.
TEST(MirrorDescribe, SourceOnlyPartitionIsNotMirroredWithItsWholeLogAsLag) {
  const PartitionDescription d = describe_source_only_partition(2, 150);
  EXPECT_EQ(d.partition, 2);
  EXPECT_EQ(d.state, kNotMirroredState);
  EXPECT_EQ(mirror_state_name(d.state), "NOT_MIRRORED");
  EXPECT_EQ(d.source_high_watermark, 150);
  EXPECT_EQ(d.lag, 150);
  EXPECT_EQ(d.destination_log_end_offset, -1);
  ASSERT_TRUE(d.last_error.has_value());
  EXPECT_NE(d.last_error->find("not mirrored"), std::string::npos);
  EXPECT_EQ(describe_source_only_partition(2, -1).lag, -1);  // its end not known yet
}

TEST(MirrorDescribe, TimeLagIsZeroWhenCaughtUpElseTheNewestRecordsAge) {
  const MirrorStateValue v = state_of(MirrorState::mirroring);
  PartitionMirrorStatus st = fetched(0, 100);
  EXPECT_EQ(describe_partition(0, &v, &st, 60, kNow).lag_ms, -1);  // nothing mirrored yet
  st.newest_mirrored_timestamp = kNow.wall_ms - 2500;
  EXPECT_EQ(describe_partition(0, &v, &st, 60, kNow).lag_ms, 2500);
  EXPECT_EQ(describe_partition(0, &v, &st, 100, kNow).lag_ms, 0);
  // A record stamped in the future (the source's clock ahead of ours) is no negative lag.
  st.newest_mirrored_timestamp = kNow.wall_ms + 10'000;
  EXPECT_EQ(describe_partition(0, &v, &st, 60, kNow).lag_ms, 0);
  // Lag unknown (no HW yet) but something mirrored: the age still says how far behind.
  PartitionMirrorStatus no_hw = fetched(0, -1);
  no_hw.newest_mirrored_timestamp = kNow.wall_ms - 700;
  EXPECT_EQ(describe_partition(0, &v, &no_hw, 60, kNow).lag_ms, 700);
}

TEST(MirrorDescribe, RatesAndRoundTripComeFromTheLiveStatus) {
  const MirrorStateValue v = state_of(MirrorState::mirroring);
  PartitionMirrorStatus st = fetched(0, 100);
  // 5000 bytes and 50 records in each of the 5 whole seconds before now.
  for (int64_t s = 1; s <= RateMeter::kSeconds; ++s) {
    st.bytes.add(5000, kNow.steady_ms - s * 1000);
    st.records.add(50, kNow.steady_ms - s * 1000);
  }
  st.fetch_latency_ms = 12;
  const PartitionDescription d = describe_partition(0, &v, &st, 60, kNow);
  EXPECT_EQ(d.bytes_per_second, 5000);
  EXPECT_EQ(d.records_per_second, 50);
  EXPECT_EQ(d.fetch_latency_ms, 12);
}

TEST(MirrorDescribe, LiveRetriesAndLastErrorOfAHealthyPartition) {
  const MirrorStateValue v = state_of(MirrorState::mirroring);
  PartitionMirrorStatus st = fetched(0, 100);
  st.pipeline.transient_failure(SteadyTime{});  // two transient failures in a row
  st.pipeline.transient_failure(SteadyTime{});
  st.last_error = Status(ErrorCode::NOT_LEADER_OR_FOLLOWER, "leader moved");
  PartitionDescription d = describe_partition(0, &v, &st, 60, kNow);
  EXPECT_EQ(d.retry_count, 2);
  EXPECT_EQ(d.last_error_code, error_number(ErrorCode::NOT_LEADER_OR_FOLLOWER));
  EXPECT_EQ(d.last_error, std::optional<std::string>("leader moved"));
  st.pipeline.succeeded();
  st.last_error = Status::OK();
  d = describe_partition(0, &v, &st, 60, kNow);
  EXPECT_EQ(d.last_error_code, 0);
  EXPECT_FALSE(d.last_error.has_value());  // null on the wire, not ""
}

TEST(MirrorDescribe, FailedPartitionShowsItsDurableRetriesAndCause) {
  MirrorStateValue v = state_of(MirrorState::failed);
  v.retries = 7;
  v.last_error_code = error_number(ErrorCode::KAFKA_STORAGE_ERROR);
  v.last_error = "disk full";
  PartitionMirrorStatus st = fetched(0, 100);
  st.pipeline.transient_failure(SteadyTime{});
  st.last_error = Status(ErrorCode::NETWORK_EXCEPTION, "live");
  const PartitionMirrorStatus* const lives[] = {&st, nullptr};  // running, or not
  for (const PartitionMirrorStatus* live : lives) {
    const PartitionDescription d = describe_partition(0, &v, live, 60, kNow);
    EXPECT_EQ(d.retry_count, 7);
    EXPECT_EQ(d.last_error_code, error_number(ErrorCode::KAFKA_STORAGE_ERROR));
    EXPECT_EQ(d.last_error, std::optional<std::string>("disk full"));
  }
  // Any other state: the durable counters are not shown (they belong to an old failure).
  v.state = static_cast<int8_t>(MirrorState::mirroring);
  const PartitionDescription d = describe_partition(0, &v, &st, 60, kNow);
  EXPECT_EQ(d.retry_count, 1);
  EXPECT_EQ(d.last_error, std::optional<std::string>("live"));
}

TEST(MirrorDescribe, TopicStateIsStoppedOnlyWhenEveryPartitionIs) {
  const MirrorStateValue stopped = state_of(MirrorState::stopped);
  const MirrorStateValue paused = state_of(MirrorState::paused);
  const MirrorStateValue failed = state_of(MirrorState::failed);
  const auto as_int = [](MirrorState s) { return static_cast<int8_t>(s); };
  EXPECT_EQ(topic_state({&stopped, &stopped}), as_int(MirrorState::stopped));
  EXPECT_EQ(topic_state({}), as_int(MirrorState::stopped));
  // The first partition that is not STOPPED names the topic's state.
  EXPECT_EQ(topic_state({&stopped, &paused, &failed}), as_int(MirrorState::paused));
  EXPECT_EQ(topic_state({&failed, &paused}), as_int(MirrorState::failed));
  // A partition without a state yet is PREPARING.
  EXPECT_EQ(topic_state({&stopped, nullptr, &failed}), as_int(MirrorState::preparing));
}

TEST(MirrorDescribe, FailbackGetsTheLmoOnlyOfAStoppedPartitionFromItsOwnCluster) {
  MirrorStateValue v = state_of(MirrorState::stopped);
  v.last_mirrored_offset = 1234;
  EXPECT_EQ(last_mirrored_offset_for(&v, "source-a"), 1234);
  EXPECT_EQ(last_mirrored_offset_for(&v, "someone-else"), -1);
  EXPECT_EQ(last_mirrored_offset_for(nullptr, "source-a"), -1);
  for (MirrorState s : {MirrorState::preparing, MirrorState::mirroring, MirrorState::paused,
                        MirrorState::stopping, MirrorState::failed}) {
    v.state = static_cast<int8_t>(s);
    EXPECT_EQ(last_mirrored_offset_for(&v, "source-a"), -1) << int(s);
  }
}

}  // namespace
}  // namespace mirra::mirror
