// MirrorStateStore over a real __mirror_state (a PartitionManager and metadata store in a
// temporary directory, tests/cluster/cluster_fixture.h): put_all() writes many states in one
// batch, adopts them all and makes them durable, or refuses the lot before writing anything.
#include "mirror/mirror_state_store.h"

#include <gtest/gtest.h>

#include <optional>

#include "../cluster/cluster_fixture.h"
#include "cluster/internal_topic.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {
namespace {

using cluster::testing::ClusterTest;

class MirrorStateStoreTest : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    topic_ = std::make_unique<cluster::InternalTopic>(*store_, *partitions_, *admin_,
                                                      state_topic_spec(3));
    states_ = std::make_unique<MirrorStateStore>(*topic_);
    ASSERT_TRUE(load(*states_).ok());
  }

  void TearDown() override {
    states_.reset();
    topic_.reset();
    ClusterTest::TearDown();
  }

  Status load(MirrorStateStore& store) {
    Status out;
    run([&]() -> asio::awaitable<void> { out = co_await store.load(); }());
    return out;
  }

  Status put_all(std::vector<MirrorStateStore::Put> puts) {
    Status out;
    run([&, puts = std::move(puts)]() mutable -> asio::awaitable<void> {
      out = co_await states_->put_all(std::move(puts));
    }());
    return out;
  }

  // Batches in all of __mirror_state, and records.
  std::pair<size_t, int64_t> batches_and_records() {
    size_t batches = 0;
    int64_t records = 0;
    for (int32_t i = 0; i < 3; ++i) {
      auto p = partitions_->find("__mirror_state", i);
      if (p == nullptr) continue;
      std::optional<Result<size_t>> n;
      run([&]() -> asio::awaitable<void> {
        n.emplace(co_await partitions_->run(p, [](const storage::PartitionLog& log) {
          return Result<size_t>(storage::testing::read_all(log).size());
        }));
      }());
      EXPECT_TRUE(n->ok()) << n->status().to_string();
      batches += n->value();
      records += p->offsets.log_end;
    }
    return {batches, records};
  }

  static MirrorStateStore::Put preparing(Uuid topic, int32_t partition, int32_t expected = -1) {
    MirrorStateValue v;
    v.mirror = "m";
    v.state = static_cast<int8_t>(MirrorState::preparing);
    return {{topic, partition}, v, expected};
  }

  std::unique_ptr<cluster::InternalTopic> topic_;
  std::unique_ptr<MirrorStateStore> states_;
  const Uuid id_ = Uuid::random();
};

TEST_F(MirrorStateStoreTest, PutAllWritesATopicsStatesInOneBatch) {
  std::vector<MirrorStateStore::Put> puts;
  for (int32_t p = 0; p < 100; ++p) puts.push_back(preparing(id_, p));
  ASSERT_TRUE(put_all(std::move(puts)).ok());
  for (int32_t p = 0; p < 100; ++p) {
    const MirrorStateValue* v = states_->get({id_, p});
    ASSERT_NE(v, nullptr) << "partition " << p;
    EXPECT_EQ(v->state_epoch, 0);
    EXPECT_EQ(v->state, static_cast<int8_t>(MirrorState::preparing));
  }
  EXPECT_EQ(batches_and_records(), std::make_pair(size_t{1}, int64_t{100}));

  // Durable: a store loaded afresh has them all.
  MirrorStateStore again(*topic_);
  ASSERT_TRUE(load(again).ok());
  EXPECT_EQ(again.all(), states_->all());
  // And the next write of one expects epoch 0.
  EXPECT_EQ(put_all({preparing(id_, 5, 0)}).code(), ErrorCode::NONE);
  EXPECT_EQ(states_->epoch_of({id_, 5}), 1);
}

TEST_F(MirrorStateStoreTest, PutAllRefusesTheLotBeforeWritingAnything) {
  ASSERT_TRUE(put_all({preparing(id_, 0)}).ok());
  const auto before = batches_and_records();

  // Partition 0 was written since: its expected epoch is stale, so partition 1 is not written.
  EXPECT_EQ(put_all({preparing(id_, 1), preparing(id_, 0)}).code(),
            ErrorCode::INVALID_MIRROR_STATE);
  EXPECT_EQ(states_->get({id_, 1}), nullptr);
  // A key named twice.
  EXPECT_EQ(put_all({preparing(id_, 2), preparing(id_, 2)}).code(),
            ErrorCode::INVALID_MIRROR_STATE);
  EXPECT_EQ(states_->get({id_, 2}), nullptr);
  EXPECT_EQ(batches_and_records(), before);
  EXPECT_EQ(states_->epoch_of({id_, 0}), 0);
}

}  // namespace
}  // namespace mirra::mirror
