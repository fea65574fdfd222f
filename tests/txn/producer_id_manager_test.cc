// ProducerIdManager on its own, against a LocalMetadataStore in a temporary directory: ids
// unique and increasing across block boundaries, concurrent callers sharing one reservation,
// reopening the store (a restart) skipping the rest of the reserved block, and exhaustion.
#include "txn/producer_id_manager.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <vector>

#include "cluster/metadata_store.h"
#include "cluster/shard_pool.h"

namespace mirra::txn {
namespace {

constexpr int32_t kNodeId = 1;

class ProducerIdManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir_template[] = "/tmp/mirra-pid-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir_ = dir_template;
    open();
  }

  void TearDown() override {
    close();
    std::filesystem::remove_all(dir_);
  }

  void open() {
    auto store = cluster::LocalMetadataStore::open(dir_ / "metadata", "test-cluster", shards_);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    store_ = std::move(store.value());
  }

  // A graceful stop of the store (final snapshot), as the broker's shutdown does.
  void close() {
    if (!store_) return;
    run([&]() -> asio::awaitable<void> { co_await store_->close(); }());
    store_.reset();
  }

  // Runs the coroutine on the test's io_context (the core thread) until it is done.
  void run(asio::awaitable<void> a) {
    bool done = false;
    asio::co_spawn(io_, std::move(a), [&](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);
      done = true;
    });
    io_.restart();
    while (!done) io_.run_one();
  }

  // `n` ids taken one after the other.
  std::vector<int64_t> take(ProducerIdManager& ids, int n) {
    std::vector<int64_t> out;
    run([&]() -> asio::awaitable<void> {
      for (int i = 0; i < n; ++i) {
        auto id = co_await ids.next();
        EXPECT_TRUE(id.ok()) << id.status().to_string();
        out.push_back(id.ok() ? id.value() : -1);
      }
    }());
    return out;
  }

  std::filesystem::path dir_;
  asio::io_context io_{1};
  cluster::ShardPool shards_{1};
  std::unique_ptr<cluster::LocalMetadataStore> store_;
};

TEST_F(ProducerIdManagerTest, IdsAreConsecutiveAcrossBlockBoundaries) {
  ProducerIdManager ids(*store_, kNodeId);
  const int n = 2 * ProducerIdManager::kBlockSize + 500;
  std::vector<int64_t> got = take(ids, n);
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], i) << "call " << i;
  // Three blocks reserved: the image knows the first id never handed out by any block.
  EXPECT_EQ(store_->image().next_producer_id(), 3 * ProducerIdManager::kBlockSize);
}

TEST_F(ProducerIdManagerTest, ConcurrentCallersShareAReservation) {
  ProducerIdManager ids(*store_, kNodeId, /*block_size=*/10);
  std::vector<int64_t> got;
  // 25 callers at once: the first reserves, the others wait for its block or the next one.
  for (int i = 0; i < 25; ++i) {
    asio::co_spawn(
        io_,
        [&]() -> asio::awaitable<void> {
          auto id = co_await ids.next();
          EXPECT_TRUE(id.ok());
          got.push_back(id.ok() ? id.value() : -1);
        },
        asio::detached);
  }
  io_.restart();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (got.size() < 25 && std::chrono::steady_clock::now() < deadline) {
    io_.run_one_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(got.size(), 25u);
  std::set<int64_t> unique(got.begin(), got.end());
  EXPECT_EQ(unique.size(), 25u);
  EXPECT_EQ(*unique.begin(), 0);
  EXPECT_EQ(*unique.rbegin(), 24);  // no block reserved and left unused
  EXPECT_EQ(store_->image().next_producer_id(), 30);
}

TEST_F(ProducerIdManagerTest, AReopenedStoreStartsAtTheNextBlock) {
  std::vector<int64_t> before;
  {
    ProducerIdManager ids(*store_, kNodeId);
    before = take(ids, 3);
  }
  close();
  open();
  ProducerIdManager ids(*store_, kNodeId);
  std::vector<int64_t> after = take(ids, 2);
  EXPECT_EQ(before, (std::vector<int64_t>{0, 1, 2}));
  // Ids 3-999 were reserved before: never handed out, as in Kafka.
  EXPECT_EQ(after, (std::vector<int64_t>{1000, 1001}));
}

TEST_F(ProducerIdManagerTest, ExhaustedIdsAreAnError) {
  // Move the image close to the last id a block may reach.
  Status moved;
  run([&]() -> asio::awaitable<void> {
    moved = co_await store_->change([](const metadata::MetadataImage&) {
      return Result<std::vector<metadata::MetadataRecord>>(std::vector<metadata::MetadataRecord>{
          metadata::ProducerIdsRecord{kNodeId, metadata::kMaxNextProducerId - 15}});
    });
  }());
  ASSERT_TRUE(moved.ok()) << moved.to_string();
  ProducerIdManager ids(*store_, kNodeId, /*block_size=*/10);
  std::vector<int64_t> last = take(ids, 10);  // one block still fits
  EXPECT_EQ(last.front(), metadata::kMaxNextProducerId - 15);
  std::optional<Result<int64_t>> none;
  run([&]() -> asio::awaitable<void> { none.emplace(co_await ids.next()); }());
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->ok());
  EXPECT_EQ(none->status().code(), ErrorCode::UNKNOWN_SERVER_ERROR);
}

}  // namespace
}  // namespace mirra::txn
