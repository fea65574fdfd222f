// PartitionManager through a real store and log directory: created partitions are open on
// their shard, run() executes there and refreshes the core thread's view (offsets, waiters),
// deleted and offline partitions refuse work without calling it, and a restart reopens the
// logs, finishes interrupted deletions and moves directories of no topic aside.
#include "cluster/partition_manager.h"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster_fixture.h"
#include "storage/checkpoint.h"

namespace mirra::cluster::testing {
namespace {

class PartitionManagerTest : public ClusterTest {
 protected:
  // Posts a job to the partition: what run() answered, and whether the job ran.
  std::pair<Status, bool> try_run(const std::shared_ptr<Partition>& p) {
    bool called = false;
    std::optional<Status> s;
    run([&]() -> asio::awaitable<void> {
      s.emplace(co_await partitions_->run(p, [&](const storage::PartitionLog&) {
        called = true;
        return Status::OK();
      }));
    }());
    return {*s, called};
  }
};

// The names of the entries of a directory, sorted.
std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

TEST_F(PartitionManagerTest, CreatedPartitionsAreOpenOnTheirShard) {
  auto id = create("orders", 3);
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  EXPECT_EQ(partitions_->partition_count(), 3u);
  for (int32_t i = 0; i < 3; ++i) {
    auto p = partitions_->find("orders", i);
    ASSERT_NE(p, nullptr) << "partition " << i;
    EXPECT_TRUE(p->online()) << p->offline_reason;
    EXPECT_EQ(p->topic_id, id.value());
    EXPECT_EQ(p->shard, shards_.shard_for(id.value(), i));
    // The directory exists and records the topic id (Kafka's partition.metadata).
    const fs::path pdir = dir() / ("orders-" + std::to_string(i));
    auto recorded = storage::read_partition_metadata(pdir);
    ASSERT_TRUE(recorded.ok()) << recorded.status().to_string();
    ASSERT_TRUE(recorded.value().has_value());
    EXPECT_EQ(*recorded.value(), id.value());
  }
  EXPECT_EQ(partitions_->find("orders", 3), nullptr);
  EXPECT_EQ(partitions_->find("orders", -1), nullptr);
  EXPECT_EQ(partitions_->find("nothing", 0), nullptr);
}

TEST_F(PartitionManagerTest, RunExecutesOnThePartitionsShard) {
  ASSERT_TRUE(create("orders", 4).ok());
  for (int32_t i = 0; i < 4; ++i) {
    auto p = partitions_->find("orders", i);
    ASSERT_NE(p, nullptr);
    std::optional<Result<std::thread::id>> ran_on;
    run([&]() -> asio::awaitable<void> {
      ran_on.emplace(co_await partitions_->run(p, [](const storage::PartitionLog&) {
        return Result<std::thread::id>(std::this_thread::get_id());
      }));
    }());
    ASSERT_TRUE(ran_on->ok()) << ran_on->status().to_string();
    EXPECT_EQ(ran_on->value(), shard_thread(p->shard)) << "partition " << i;
  }
}

TEST_F(PartitionManagerTest, RunRefreshesTheOffsetsAndWakesWaiters) {
  ASSERT_TRUE(create("orders", 1).ok());
  auto p = partitions_->find("orders", 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->offsets.log_end, 0);

  // A long-polling fetch: a timer that only a change of offsets ends.
  auto timer = std::make_shared<asio::steady_timer>(io_, asio::steady_timer::time_point::max());
  bool woken = false;
  timer->async_wait(
      [&](const asio::error_code& ec) { woken = ec == asio::error::operation_aborted; });
  p->add_waiter(timer);

  auto appended = append(p, 5);
  ASSERT_TRUE(appended.ok()) << appended.status().to_string();
  EXPECT_EQ(appended->first_offset, 0);
  EXPECT_EQ(appended->last_offset, 4);
  // The core thread's view follows the shard's log without another round trip.
  EXPECT_EQ(p->offsets.log_end, 5);
  EXPECT_EQ(p->offsets.high_watermark, 5);
  EXPECT_EQ(p->offsets.log_start, 0);
  EXPECT_TRUE(run_until([&] { return woken; }));
}

TEST_F(PartitionManagerTest, ARunThatChangesNothingLeavesWaitersAlone) {
  ASSERT_TRUE(create("orders", 1).ok());
  auto p = partitions_->find("orders", 0);
  ASSERT_NE(p, nullptr);
  auto timer = std::make_shared<asio::steady_timer>(io_, asio::steady_timer::time_point::max());
  bool fired = false;
  timer->async_wait([&](const asio::error_code&) { fired = true; });
  p->add_waiter(timer);
  std::optional<Status> s;
  run([&]() -> asio::awaitable<void> {
    s.emplace(
        co_await partitions_->run(p, [](const storage::PartitionLog&) { return Status::OK(); }));
  }());
  ASSERT_TRUE(s->ok());
  io_.restart();
  io_.poll();  // everything ready to run has run
  EXPECT_FALSE(fired);
  timer->cancel();
  EXPECT_TRUE(run_until([&] { return fired; }));
}

// The fetch handler's shortcut: judged on the core thread's copy of the offsets, a read at the
// bound finds nothing; below it, past the log end, before the log start, or on a deleted
// partition, the read itself must answer.
TEST_F(PartitionManagerTest, NothingToReadAtTheBoundOnly) {
  ASSERT_TRUE(create("orders", 1).ok());
  auto p = partitions_->find("orders", 0);
  ASSERT_NE(p, nullptr);
  const auto hw = storage::ReadBound::high_watermark;
  const auto lso = storage::ReadBound::last_stable_offset;
  EXPECT_TRUE(partitions_->nothing_to_read(*p, 0, hw));  // empty
  ASSERT_TRUE(append(p, 5).ok());
  EXPECT_TRUE(partitions_->nothing_to_read(*p, 5, hw));
  EXPECT_TRUE(partitions_->nothing_to_read(*p, 5, lso));
  EXPECT_FALSE(partitions_->nothing_to_read(*p, 4, hw));
  EXPECT_FALSE(partitions_->nothing_to_read(*p, 0, lso));
  EXPECT_FALSE(partitions_->nothing_to_read(*p, 6, hw));  // out of range: the read says so
  EXPECT_FALSE(partitions_->nothing_to_read(*p, -1, hw));
  EXPECT_TRUE(partitions_->nothing_to_read(*p, 0, hw, /*max_bytes=*/0));  // no room
  EXPECT_FALSE(partitions_->nothing_to_read(*p, 0, hw, /*max_bytes=*/1));
  EXPECT_FALSE(partitions_->nothing_to_read(*p, 6, hw, /*max_bytes=*/0));
  run([&]() -> asio::awaitable<void> { (void)co_await admin_->delete_topic("orders"); }());
  EXPECT_FALSE(partitions_->nothing_to_read(*p, 5, hw));  // deleted: the read says so
}

// The checkpoint writer awaits each partition's offsets; topics deleted and created meanwhile
// must not pull the partition map from under it (it crashed, iterating a freed map node).
TEST_F(PartitionManagerTest, CheckpointsWhileTopicsAreDeleted) {
  checkpoint_interval_ = std::chrono::milliseconds(1);
  restart();
  partitions_->start_housekeeping();
  ASSERT_TRUE(create("kept", 2).ok());
  ASSERT_TRUE(append(partitions_->find("kept", 1), 3).ok());
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(create("t" + std::to_string(i), 4).ok());
    run([&]() -> asio::awaitable<void> {
      for (int i = 0; i < 10; ++i) {
        const Status s = co_await admin_->delete_topic("t" + std::to_string(i));
        EXPECT_TRUE(s.ok()) << s.to_string();
      }
    }());
  }
  // The loop goes on, and its next checkpoint holds the partitions that are left.
  const storage::OffsetCheckpoint expected{{{"kept", 0}, 0}, {{"kept", 1}, 0}};
  std::optional<storage::OffsetCheckpoint> last;
  EXPECT_TRUE(run_until([&] {
    auto read = storage::read_offset_checkpoint(dir() / storage::kLogStartCheckpoint);
    if (read.ok()) last = read.value();
    return last == expected;
  })) << "the log-start checkpoint never listed just kept-0 and kept-1";
}

// The one guard every change of a log passes (cluster/log_writer.h): a partition the read-only
// check reports as mirrored is changed by its mirror alone; clients and coordinators get the
// check's error and their job never runs; reads and other partitions are not affected.
TEST_F(PartitionManagerTest, AMirroredPartitionIsChangedByItsMirrorAlone) {
  ASSERT_TRUE(create("mirrored", 1).ok());
  ASSERT_TRUE(create("plain", 1).ok());
  auto mirrored = partitions_->find("mirrored", 0);
  auto plain = partitions_->find("plain", 0);
  int checked = 0;
  partitions_->set_read_only_check([&](const Partition& p) {
    ++checked;
    return p.topic == "mirrored" ? Status(ErrorCode::READ_ONLY_TOPIC, "mirrored") : Status::OK();
  });
  for (LogWriter writer : {LogWriter::client(), LogWriter::coordinator()}) {
    auto refused = append(mirrored, 3, writer);
    ASSERT_FALSE(refused.ok()) << writer.name();
    EXPECT_EQ(refused.status().code(), ErrorCode::READ_ONLY_TOPIC) << writer.name();
    bool called = false;
    std::optional<Status> truncated;
    run([&]() -> asio::awaitable<void> {
      truncated.emplace(
          co_await partitions_->run_write(mirrored, writer, [&](storage::PartitionLog& log) {
            called = true;
            return log.truncate_to(0);
          }));
    }());
    EXPECT_EQ(truncated->code(), ErrorCode::READ_ONLY_TOPIC) << writer.name();
    EXPECT_FALSE(called) << writer.name();
  }
  EXPECT_EQ(mirrored->offsets.log_end, 0);
  EXPECT_EQ(checked, 4);

  const LogWriter mirror = partitions_->take_mirror_writer();
  auto copied = append(mirrored, 3, mirror);
  ASSERT_TRUE(copied.ok()) << copied.status().to_string();
  EXPECT_EQ(mirrored->offsets.log_end, 3);
  EXPECT_EQ(checked, 4);  // the mirror's writes are not checked
  auto [read, ran] = try_run(mirrored);
  EXPECT_TRUE(read.ok() && ran);
  EXPECT_TRUE(append(plain, 2).ok());
  EXPECT_TRUE(append(plain, 2, LogWriter::coordinator()).ok());
  EXPECT_EQ(plain->offsets.log_end, 4);
}

TEST_F(PartitionManagerTest, ADeletedPartitionRefusesWorkWithoutRunningIt) {
  ASSERT_TRUE(create("orders", 2).ok());
  auto p = partitions_->find("orders", 1);
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(append(p, 3).ok());

  std::optional<Status> deleted;
  run([&]() -> asio::awaitable<void> {
    deleted.emplace(co_await admin_->delete_topic("orders"));
  }());
  ASSERT_TRUE(deleted->ok()) << deleted->to_string();
  EXPECT_TRUE(p->removed);
  EXPECT_EQ(partitions_->find("orders", 0), nullptr);
  EXPECT_EQ(partitions_->partition_count(), 0u);

  const auto [s, called] = try_run(p);
  EXPECT_FALSE(called);
  EXPECT_EQ(s.code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  // Both directories are gone, not left behind as "-delete".
  for (const auto& name : entries(dir())) EXPECT_EQ(name.find("orders"), std::string::npos) << name;
}

TEST_F(PartitionManagerTest, AnOfflinePartitionAnswersStorageError) {
  ASSERT_TRUE(create("orders", 1).ok());
  close();
  // A file where the partition's directory should be: the log cannot open.
  fs::remove_all(dir() / "orders-0");
  { std::ofstream(dir() / "orders-0") << "not a directory"; }
  open();
  auto p = partitions_->find("orders", 0);
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(p->online());
  const auto [s, called] = try_run(p);
  EXPECT_FALSE(called);
  EXPECT_EQ(s.code(), ErrorCode::KAFKA_STORAGE_ERROR);
}

TEST_F(PartitionManagerTest, ARestartReopensTheLogsAndCleansTheDirectory) {
  auto id = create("orders", 2);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(append(partitions_->find("orders", 0), 7).ok());
  ASSERT_TRUE(append(partitions_->find("orders", 1), 2).ok());
  close();

  // A directory of no topic, and a deletion that a crash interrupted.
  fs::create_directories(dir() / "ghost-0");
  fs::create_directories(dir() / "gone-0.0000000000000000000000-delete");
  open();

  EXPECT_EQ(partitions_->partition_count(), 2u);
  auto p0 = partitions_->find("orders", 0);
  auto p1 = partitions_->find("orders", 1);
  ASSERT_NE(p0, nullptr);
  ASSERT_NE(p1, nullptr);
  EXPECT_TRUE(p0->online()) << p0->offline_reason;
  EXPECT_EQ(p0->topic_id, id.value());
  EXPECT_EQ(p0->offsets.log_end, 7);
  EXPECT_EQ(p1->offsets.log_end, 2);
  // Appends go on where the log ended.
  auto more = append(p0, 1);
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(more->first_offset, 7);

  const std::set<std::string> names = entries(dir());
  EXPECT_EQ(names.count("ghost-0"), 0u);
  EXPECT_EQ(names.count("gone-0.0000000000000000000000-delete"), 0u);
  int strays = 0;
  for (const auto& n : names) {
    if (n.rfind("ghost-0.", 0) == 0 && n.size() > 6 && n.substr(n.size() - 6) == "-stray") ++strays;
  }
  EXPECT_EQ(strays, 1);
  // The checkpoint files the shutdown wrote.
  EXPECT_EQ(names.count(storage::kRecoveryPointCheckpoint), 1u);
  EXPECT_EQ(names.count(storage::kLogStartCheckpoint), 1u);
}

}  // namespace
}  // namespace mirra::cluster::testing
