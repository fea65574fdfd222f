// The fixture of the sync tasks' unit tests: a MirrorSync of mirror "m" over the fakes of the
// source and the destination (fake_sync.h) and a FakeSink, driven round by round on the test's
// io_context with a wall clock the test sets.
//
// Threading: the test's thread.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "fake_sink.h"
#include "fake_sync.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror::test {

class SyncFixture : public ::testing::Test {
 protected:
  // A sync of mirror "m" with `configs` (bootstrap.servers added) reading `source` (a plain
  // FakeSyncSource when null), which source_ then points at.
  std::shared_ptr<MirrorSync> make_sync(MirrorConfigs configs = {},
                                        std::unique_ptr<FakeSyncSource> source = nullptr) {
    configs.emplace("bootstrap.servers", "source:9092");
    auto settings = parse_mirror_settings(configs);
    EXPECT_TRUE(settings.ok()) << settings.status().to_string();
    if (source == nullptr) source = std::make_unique<FakeSyncSource>();
    source_ = source.get();
    MirrorSyncContext ctx{io_.get_executor(),          sink_, destination_, std::chrono::hours(1),
                          [this] { return wall_ms_; }, {}};
    return std::make_shared<MirrorSync>(ctx, "m", std::move(settings.value()), std::move(source));
  }

  // Runs `a` to its end on the io_context.
  void run(asio::awaitable<void> a) {
    bool done = false;
    asio::co_spawn(
        io_,
        [&]() -> asio::awaitable<void> {
          co_await std::move(a);
          done = true;
        },
        asio::detached);
    io_.restart();
    io_.run();
    ASSERT_TRUE(done);
  }
  void round(MirrorSync& sync) { run(sync.run_round()); }

  asio::io_context io_;
  FakeSink sink_{io_.get_executor()};
  FakeSyncDestination destination_;
  FakeSyncSource* source_ = nullptr;
  int64_t wall_ms_ = 1000;
};

}  // namespace mirra::mirror::test
