// A single broker's cluster layer in-process, as server/broker.cc wires it: a ShardPool, a
// LocalMetadataStore and a PartitionManager over one temporary log directory, and a TopicAdmin.
// The test's own thread is the core thread: run() drives its io_context until a coroutine is
// done. restart() closes everything as the broker's shutdown does and opens it again on the
// same directory.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../storage/log_test_util.h"  // TempDir, make_batch
#include "base/asio.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/shard_pool.h"
#include "cluster/topic_admin.h"
#include "storage/partition_log.h"

namespace mirra::cluster::testing {

namespace fs = std::filesystem;
using storage::testing::TempDir;

class ClusterTest : public ::testing::Test {
 protected:
  static constexpr size_t kShards = 2;

  void SetUp() override { open(); }
  void TearDown() override { close(); }

  void open() {
    auto store = LocalMetadataStore::open(dir(), "cluster-test", shards_);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    store_ = std::move(store.value());
    PartitionManagerOptions options;
    options.log_dir = dir();
    options.broker.static_settings = &static_settings_;
    options.broker.dynamic = &store_->image().broker_configs();
    options.checkpoint_interval = checkpoint_interval_;
    partitions_ = std::make_unique<PartitionManager>(io_.get_executor(), shards_, options);
    run([&]() -> asio::awaitable<void> { co_await partitions_->open_all(store_->image()); }());
    admin_ = std::make_unique<TopicAdmin>(*store_, *partitions_, TopicDefaults{});
  }

  // The broker's shutdown order: logs and checkpoints first, then the metadata snapshot.
  void close() {
    if (!store_) return;
    run([&]() -> asio::awaitable<void> {
      co_await partitions_->shutdown();
      co_await store_->close();
    }());
    admin_.reset();
    partitions_.reset();
    store_.reset();
  }

  void restart() {
    close();
    open();
  }

  const fs::path& dir() const { return tmp_.path(); }

  // Runs a coroutine on the core thread (this one) until it is done; rethrows its exception.
  void run(asio::awaitable<void> a) {
    bool done = false;
    asio::co_spawn(io_, std::move(a), [&](std::exception_ptr e) {
      done = true;
      if (e) std::rethrow_exception(e);
    });
    io_.restart();
    while (!done) io_.run_one();
  }

  // Runs the io_context until `done()` holds, for at most 10 s (a bound for a broken build, not
  // a wait for something to happen: every step the tests wait for is already queued).
  template <typename Pred>
  bool run_until(Pred done) {
    io_.restart();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.run_one_for(std::chrono::milliseconds(50));
    }
    return done();
  }

  Result<Uuid> create(const std::string& name, int32_t partitions,
                      std::map<std::string, std::string> configs = {}, bool validate_only = false) {
    NewTopic t;
    t.name = name;
    t.partitions = partitions;
    t.configs = std::move(configs);
    std::optional<Result<Uuid>> out;
    run([&]() -> asio::awaitable<void> {
      out.emplace(co_await admin_->create_topic(std::move(t), validate_only));
    }());
    return std::move(*out);
  }

  // Appends `records` records to a partition through PartitionManager::run_write(), as Produce
  // does (a client's writer unless told otherwise).
  Result<storage::AppendResult> append(const std::shared_ptr<Partition>& p, int records,
                                       LogWriter writer = LogWriter::client()) {
    std::vector<uint8_t> batch = storage::testing::make_batch({.records = records});
    std::optional<Result<storage::AppendResult>> out;
    run([&]() -> asio::awaitable<void> {
      out.emplace(co_await partitions_->run_write(p, writer, [&](storage::PartitionLog& log) {
        return log.append_as_leader(batch, /*leader_epoch=*/0, storage::AppendOrigin::client,
                                    /*now_ms=*/1000);
      }));
    }());
    return std::move(*out);
  }

  // The thread of a shard, as seen by a job posted to it.
  std::thread::id shard_thread(size_t shard) {
    std::thread::id id;
    run([&]() -> asio::awaitable<void> {
      id = co_await run_on(shards_.executor(shard), [] { return std::this_thread::get_id(); });
    }());
    return id;
  }

  TempDir tmp_;
  // log.flush.offset.checkpoint.interval.ms of the manager open() makes (the loop runs once
  // start_housekeeping() is called).
  std::chrono::milliseconds checkpoint_interval_{60000};
  asio::io_context io_{1};
  ShardPool shards_{kShards};
  std::map<std::string, std::string> static_settings_;
  std::unique_ptr<LocalMetadataStore> store_;
  std::unique_ptr<PartitionManager> partitions_;
  std::unique_ptr<TopicAdmin> admin_;
};

}  // namespace mirra::cluster::testing
