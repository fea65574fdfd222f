// ShardPool and run_on(): jobs run on the shard's own thread in posting order, the awaiting
// coroutine resumes on its own executor, exceptions cross back, shard_for() is a fixed choice,
// and stop() finishes what was posted.
#include "cluster/shard_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "base/asio.h"
#include "base/uuid.h"

namespace mirra::cluster {
namespace {

// Runs a coroutine on `io` (the test's core thread) until it is done.
void run(asio::io_context& io, asio::awaitable<void> a) {
  bool done = false;
  asio::co_spawn(io, std::move(a), [&](std::exception_ptr e) {
    done = true;
    if (e) std::rethrow_exception(e);
  });
  io.restart();
  while (!done) io.run_one();
}

TEST(ShardPoolTest, AtLeastOneShard) {
  ShardPool none(0);
  EXPECT_EQ(none.size(), 1u);
  ShardPool three(3);
  EXPECT_EQ(three.size(), 3u);
}

TEST(ShardPoolTest, RunOnRunsOnTheShardAndResumesOnTheCaller) {
  asio::io_context io{1};
  ShardPool shards(3);
  const std::thread::id core = std::this_thread::get_id();
  std::vector<std::thread::id> ran_on;
  std::vector<std::thread::id> resumed_on;
  run(io, [&]() -> asio::awaitable<void> {
    for (size_t s = 0; s < shards.size(); ++s) {
      ran_on.push_back(
          co_await run_on(shards.executor(s), [] { return std::this_thread::get_id(); }));
      resumed_on.push_back(std::this_thread::get_id());
    }
  }());
  ASSERT_EQ(ran_on.size(), 3u);
  // One thread per shard, none of them the core thread.
  EXPECT_EQ(std::set<std::thread::id>(ran_on.begin(), ran_on.end()).size(), 3u);
  for (const auto& id : ran_on) EXPECT_NE(id, core);
  for (const auto& id : resumed_on) EXPECT_EQ(id, core);
}

TEST(ShardPoolTest, AShardRunsItsJobsInPostingOrder) {
  asio::io_context io{1};
  ShardPool shards(2);
  std::vector<int> order;  // touched on shard 1 only
  for (int i = 0; i < 200; ++i) asio::post(shards.executor(1), [&order, i] { order.push_back(i); });
  std::vector<int> seen;
  run(io, [&]() -> asio::awaitable<void> {
    seen = co_await run_on(shards.executor(1), [&] { return order; });
  }());
  ASSERT_EQ(seen.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], i);
}

TEST(ShardPoolTest, AnExceptionInTheJobReachesTheAwaiter) {
  asio::io_context io{1};
  ShardPool shards(1);
  bool caught = false;
  bool void_job_ran = false;
  run(io, [&]() -> asio::awaitable<void> {
    try {
      co_await run_on(shards.executor(0),
                      []() -> int { throw std::runtime_error("disk on fire"); });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "disk on fire";
    }
    // The shard survives a throwing job.
    co_await run_on(shards.executor(0), [&] { void_job_ran = true; });
  }());
  EXPECT_TRUE(caught);
  EXPECT_TRUE(void_job_ran);
}

TEST(ShardPoolTest, ShardForIsFixedAndSpreadsPartitions) {
  ShardPool shards(2);
  const Uuid id = Uuid::from_bits(0x1234, 0x5678);
  std::set<size_t> used;
  for (int32_t p = 0; p < 64; ++p) {
    const size_t s = shards.shard_for(id, p);
    ASSERT_LT(s, shards.size());
    EXPECT_EQ(shards.shard_for(id, p), s) << "partition " << p;
    used.insert(s);
  }
  EXPECT_EQ(used.size(), 2u);  // 64 partitions of one topic do not all land on one shard
}

TEST(ShardPoolTest, StopRunsWhatWasPostedThenJoins) {
  std::atomic<int> ran{0};
  ShardPool shards(2);
  for (int i = 0; i < 100; ++i) {
    asio::post(shards.executor(static_cast<size_t>(i % 2)), [&ran] { ran.fetch_add(1); });
  }
  shards.stop();
  EXPECT_EQ(ran.load(), 100);
  shards.stop();  // idempotent; the destructor calls it once more
}

}  // namespace
}  // namespace mirra::cluster
