// Client::fetch with FetchSessions (KIP-227) against a real Mirra broker behind FrontedCluster:
// what the client sends is checked on the wire (the Fetch requests the broker received) and in
// the broker's own FetchSessionCache, and what it returns against the records produced.
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "client/client.h"
#include "client_test_util.h"
#include "fronted_cluster.h"
#include "server/fetch_session.h"

namespace mirra::client {
namespace {

using test::FrontedCluster;
using test::TestRecord;
using Fetched = Result<std::vector<FetchedPartition>>;

class FetchSessionTest : public ::testing::Test {
 protected:
  void start(int nodes = 1, std::vector<std::string> overrides = {}) {
    cluster_ = FrontedCluster::start(io_, nodes, std::move(overrides));
    ASSERT_NE(cluster_, nullptr);
    ClientOptions o;
    o.bootstrap_servers = cluster_->bootstrap_servers();
    o.client_id = "fetch-session-test";
    o.retry_backoff = Millis(10);
    o.retry_backoff_max = Millis(50);
    o.retry_timeout = Millis(10000);
    auto c = Client::create(io_.get_executor(), o);
    ASSERT_TRUE(c.ok()) << c.status().to_string();
    client_ = std::move(c.value());
  }

  void TearDown() override {
    if (client_) client_->close();
    client_.reset();
    cluster_.reset();
  }

  void create_topic(const std::string& name, int32_t partitions) {
    std::optional<Result<std::vector<TopicResult>>> out;
    std::vector<NewTopic> topics(1);
    topics[0].name = name;
    topics[0].partitions = partitions;
    topics[0].replication_factor = 1;
    cluster_->run([&]() -> asio::awaitable<void> {
      out = co_await client_->create_topics(std::move(topics));
    }());
    ASSERT_TRUE(out->ok()) << out->status().to_string();
    ASSERT_TRUE(out->value().at(0).status.ok()) << out->value().at(0).status.to_string();
    topic_ids_[name] = out->value().at(0).id;
  }

  void produce(const std::string& topic, int32_t partition, std::vector<std::string> values) {
    std::vector<TestRecord> records;
    for (std::string& v : values) records.push_back({std::nullopt, std::move(v), {}});
    std::vector<ProduceBatch> batches(1);
    batches[0].tp = {topic, partition};
    batches[0].records = test::make_batch(records);
    std::optional<Result<std::vector<ProduceResult>>> out;
    cluster_->run(
        [&]() -> asio::awaitable<void> { out = co_await client_->produce(std::move(batches)); }());
    ASSERT_TRUE(out->ok()) << out->status().to_string();
    ASSERT_TRUE(out->value().at(0).status.ok()) << out->value().at(0).status.to_string();
  }

  FetchOptions options(FetchSessions* sessions, int32_t max_wait_ms = 0) {
    FetchOptions o;
    o.max_wait_ms = max_wait_ms;
    o.sessions = sessions;
    return o;
  }

  // Partitions 0..offsets.size()-1 of `topic` at these offsets.
  static std::vector<FetchPosition> at(const std::string& topic, std::vector<int64_t> offsets) {
    std::vector<FetchPosition> out;
    for (size_t p = 0; p < offsets.size(); ++p) {
      FetchPosition f;
      f.tp = {topic, static_cast<int32_t>(p)};
      f.offset = offsets[p];
      out.push_back(f);
    }
    return out;
  }

  Fetched fetch(std::vector<FetchPosition> positions, FetchSessions* sessions) {
    std::optional<Fetched> out;
    const FetchOptions o = options(sessions);
    cluster_->run([&]() -> asio::awaitable<void> {
      out = co_await client_->fetch(std::move(positions), o);
    }());
    return std::move(*out);
  }

  // Every answer OK; the values read, per answer.
  static std::vector<std::vector<std::string>> values(const Fetched& r) {
    std::vector<std::vector<std::string>> out;
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return out;
    for (const FetchedPartition& p : r.value()) {
      EXPECT_TRUE(p.status.ok()) << to_string(p.tp) << ": " << p.status.to_string();
      auto& v = out.emplace_back();
      for (const TestRecord& rec : test::read_records(p.records)) v.push_back(*rec.value);
    }
    return out;
  }

  // The partition numbers in the broker's session `id`.
  std::set<int32_t> broker_session(int32_t id) {
    std::set<int32_t> out;
    auto s = cluster_->sessions().peek(id);
    EXPECT_NE(s, nullptr) << "the broker has no session " << id;
    if (s == nullptr) return out;
    for (const auto& [key, p] : s->partitions) out.insert(key.partition);
    return out;
  }

  static std::set<int32_t> partitions_of(const std::vector<FrontedCluster::SeenPartition>& ps) {
    std::set<int32_t> out;
    for (const auto& p : ps) out.insert(p.partition);
    return out;
  }

  const FrontedCluster::SeenFetch& last_fetch() const { return cluster_->fetches().back(); }

  // A session with the broker for partitions 0..2 of "t", each holding one record and fetched
  // to its end: the broker has nothing new for any of them. Returns its id. `epoch`: the
  // session epoch the first request is expected to carry (-1 without sessions).
  int32_t caught_up_session(FetchSessions& sessions, int32_t epoch = 0) {
    create_topic("t", 3);
    for (int32_t p = 0; p < 3; ++p) produce("t", p, {"a" + std::to_string(p)});
    auto full = fetch(at("t", {0, 0, 0}), &sessions);
    const std::vector<std::vector<std::string>> first{{"a0"}, {"a1"}, {"a2"}};
    EXPECT_EQ(values(full), first);
    EXPECT_EQ(last_fetch().epoch, epoch);
    return last_fetch().response_session_id;
  }

  asio::io_context io_;
  std::unique_ptr<FrontedCluster> cluster_;
  std::unique_ptr<Client> client_;
  std::map<std::string, Uuid> topic_ids_;
};

TEST_F(FetchSessionTest, FullFetchCreatesSessionThenIncrementalSendsOnlyChanges) {
  start();
  FetchSessions sessions;
  const int32_t id = caught_up_session(sessions);
  const auto& full = cluster_->fetches().at(0);
  EXPECT_EQ(full.session_id, 0);
  EXPECT_GE(full.version, 13);
  EXPECT_EQ(partitions_of(full.partitions), (std::set<int32_t>{0, 1, 2}));
  EXPECT_EQ(full.partitions.at(0).topic_id, topic_ids_["t"]);
  ASSERT_NE(id, 0);
  EXPECT_EQ(cluster_->sessions().size(), 1u);
  EXPECT_EQ(broker_session(id), (std::set<int32_t>{0, 1, 2}));

  // The offsets moved: all three are sent again; nothing is new, so the broker answers none,
  // and the client still answers each from what it was last told.
  auto moved = fetch(at("t", {1, 1, 1}), &sessions);
  const std::vector<std::vector<std::string>> none(3);
  EXPECT_EQ(values(moved), none);
  EXPECT_EQ(last_fetch().session_id, id);
  EXPECT_EQ(last_fetch().epoch, 1);
  EXPECT_EQ(last_fetch().partitions.size(), 3u);
  EXPECT_TRUE(last_fetch().response_partitions.empty());
  for (const FetchedPartition& p : moved.value()) {
    EXPECT_EQ(p.high_watermark, 1) << to_string(p.tp);
    EXPECT_EQ(p.last_stable_offset, 1) << to_string(p.tp);
    EXPECT_EQ(p.log_start_offset, 0) << to_string(p.tp);
  }

  // Nothing changed: an empty request in the session.
  auto same = fetch(at("t", {1, 1, 1}), &sessions);
  EXPECT_EQ(values(same), none);
  EXPECT_EQ(last_fetch().session_id, id);
  EXPECT_EQ(last_fetch().epoch, 2);
  EXPECT_TRUE(last_fetch().partitions.empty());
  EXPECT_TRUE(last_fetch().forgotten.empty());
  EXPECT_EQ(cluster_->sessions().peek(id)->next_epoch, 3);
  EXPECT_EQ(cluster_->sessions().size(), 1u);
  EXPECT_EQ(sessions.stats().full, 1u);
  EXPECT_EQ(sessions.stats().incremental, 2u);
}

TEST_F(FetchSessionTest, NewDataOnAPartitionNotSentAgainIsReturned) {
  start();
  FetchSessions sessions;
  const int32_t id = caught_up_session(sessions);
  EXPECT_EQ(values(fetch(at("t", {1, 1, 1}), &sessions)).size(), 3u);
  produce("t", 1, {"b1", "b2"});
  auto news = fetch(at("t", {1, 1, 1}), &sessions);
  const std::vector<std::vector<std::string>> want{{}, {"b1", "b2"}, {}};
  EXPECT_EQ(values(news), want);
  EXPECT_EQ(last_fetch().session_id, id);
  EXPECT_TRUE(last_fetch().partitions.empty());
  EXPECT_EQ(partitions_of(last_fetch().response_partitions), (std::set<int32_t>{1}));
  EXPECT_EQ(news->at(1).high_watermark, 3);
  EXPECT_EQ(news->at(0).high_watermark, 1);
}

TEST_F(FetchSessionTest, RemovedPartitionIsForgottenByTopicId) {
  start();
  FetchSessions sessions;
  const int32_t id = caught_up_session(sessions);
  std::vector<FetchPosition> two = at("t", {1, 1, 1});
  two.erase(two.begin() + 1);
  auto fewer = fetch(two, &sessions);
  EXPECT_EQ(values(fewer).size(), 2u);
  ASSERT_EQ(last_fetch().forgotten.size(), 1u);
  EXPECT_EQ(last_fetch().forgotten[0].partition, 1);
  EXPECT_EQ(last_fetch().forgotten[0].topic_id, topic_ids_["t"]);
  EXPECT_EQ(partitions_of(last_fetch().partitions), (std::set<int32_t>{0, 2}));  // offsets moved
  EXPECT_EQ(broker_session(id), (std::set<int32_t>{0, 2}));

  // Asked for again, it is sent again, alone.
  auto back = fetch(at("t", {1, 1, 1}), &sessions);
  EXPECT_EQ(values(back).size(), 3u);
  EXPECT_EQ(partitions_of(last_fetch().partitions), (std::set<int32_t>{1}));
  EXPECT_EQ(broker_session(id), (std::set<int32_t>{0, 1, 2}));
}

TEST_F(FetchSessionTest, RemovedPartitionIsForgottenByNameBeforeV13) {
  start();
  cluster_->set_max_fetch_version(12);
  FetchSessions sessions;
  const int32_t id = caught_up_session(sessions);
  EXPECT_EQ(last_fetch().version, 12);
  auto fewer = fetch(at("t", {1, 1}), &sessions);
  EXPECT_EQ(values(fewer).size(), 2u);
  ASSERT_EQ(last_fetch().forgotten.size(), 1u);
  EXPECT_EQ(last_fetch().forgotten[0].topic, "t");
  EXPECT_EQ(last_fetch().forgotten[0].partition, 2);
  EXPECT_EQ(broker_session(id), (std::set<int32_t>{0, 1}));
}

TEST_F(FetchSessionTest, PartitionWhoseLeaderMovedIsForgottenByTheOldLeader) {
  start(/*nodes=*/2);
  FetchSessions sessions;
  const int32_t first = caught_up_session(sessions);
  cluster_->set_leader("t", 2, 2);
  client_->invalidate_metadata();
  const size_t before = cluster_->fetches().size();
  auto moved = fetch(at("t", {1, 1, 1}), &sessions);
  EXPECT_EQ(values(moved).size(), 3u);
  ASSERT_EQ(cluster_->fetches().size(), before + 2);
  int32_t second = 0;
  for (size_t i = before; i < before + 2; ++i) {
    const auto& f = cluster_->fetches()[i];
    if (f.node == 1) {
      EXPECT_EQ(f.session_id, first);
      EXPECT_EQ(partitions_of(f.forgotten), (std::set<int32_t>{2}));
    } else {
      EXPECT_EQ(f.epoch, 0);  // a new session with node 2
      EXPECT_EQ(partitions_of(f.partitions), (std::set<int32_t>{2}));
      second = f.response_session_id;
    }
  }
  ASSERT_NE(second, 0);
  EXPECT_EQ(broker_session(first), (std::set<int32_t>{0, 1}));
  EXPECT_EQ(broker_session(second), (std::set<int32_t>{2}));
  EXPECT_EQ(sessions.session(1)->partitions.size(), 2u);
  EXPECT_EQ(sessions.session(2)->partitions.size(), 1u);
}

TEST_F(FetchSessionTest, EvictedSessionIsResetThenRecreated) {
  start();
  FetchSessions sessions;
  const int32_t id = caught_up_session(sessions);
  EXPECT_EQ(values(fetch(at("t", {1, 1, 1}), &sessions)).size(), 3u);
  cluster_->sessions().remove(id);
  produce("t", 0, {"new"});
  const size_t before = cluster_->fetches().size();
  // The round in the lost session fails; route() retries it without a session.
  auto r = fetch(at("t", {1, 1, 1}), &sessions);
  const std::vector<std::vector<std::string>> want{{"new"}, {}, {}};
  EXPECT_EQ(values(r), want);
  ASSERT_EQ(cluster_->fetches().size(), before + 2);
  const auto& lost = cluster_->fetches()[before];
  EXPECT_EQ(lost.session_id, id);
  EXPECT_EQ(lost.error_code, error_number(ErrorCode::FETCH_SESSION_ID_NOT_FOUND));
  const auto& retry = cluster_->fetches()[before + 1];
  EXPECT_EQ(retry.epoch, -1);
  EXPECT_EQ(retry.partitions.size(), 3u);

  // The next call creates a new session without naming the lost id, then goes on in it.
  EXPECT_EQ(values(fetch(at("t", {2, 1, 1}), &sessions)).size(), 3u);
  EXPECT_EQ(last_fetch().session_id, 0);
  EXPECT_EQ(last_fetch().epoch, 0);
  EXPECT_EQ(last_fetch().partitions.size(), 3u);
  const int32_t renewed = last_fetch().response_session_id;
  ASSERT_NE(renewed, 0);
  EXPECT_EQ(values(fetch(at("t", {2, 1, 1}), &sessions)).size(), 3u);
  EXPECT_EQ(last_fetch().session_id, renewed);
  EXPECT_EQ(last_fetch().epoch, 1);
  EXPECT_EQ(sessions.stats().resets, 1u);
}

TEST_F(FetchSessionTest, LostConnectionResetsTheSession) {
  start();
  FetchSessions sessions;
  const int32_t id = caught_up_session(sessions);
  const size_t before = cluster_->fetches().size();
  // A long poll in the session (nothing new), whose connection breaks while the broker waits.
  std::optional<Fetched> out;
  const FetchOptions o = options(&sessions, /*max_wait_ms=*/300);
  std::vector<FetchPosition> positions = at("t", {1, 1, 1});
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> { out = co_await client_->fetch(std::move(positions), o); },
      asio::detached);
  ASSERT_TRUE(cluster_->run_until([&] { return cluster_->fetches().size() > before; }));
  EXPECT_EQ(cluster_->fetches()[before].session_id, id);
  cluster_->drop_connections(1);
  ASSERT_TRUE(cluster_->run_until([&] { return out.has_value(); }));
  EXPECT_EQ(values(*out).size(), 3u);
  ASSERT_GE(cluster_->fetches().size(), before + 2);
  EXPECT_EQ(cluster_->fetches()[before + 1].epoch, -1);  // the retry

  // Next, a full fetch that closes the old session and opens a new one.
  EXPECT_EQ(values(fetch(at("t", {1, 1, 1}), &sessions)).size(), 3u);
  EXPECT_EQ(last_fetch().session_id, id);
  EXPECT_EQ(last_fetch().epoch, 0);
  const int32_t renewed = last_fetch().response_session_id;
  EXPECT_NE(renewed, 0);
  EXPECT_NE(renewed, id);
  EXPECT_EQ(cluster_->sessions().peek(id), nullptr);
  EXPECT_EQ(cluster_->sessions().size(), 1u);
}

TEST_F(FetchSessionTest, BrokerWithoutSessionSlotsGetsFullFetches) {
  start(1, {"max.incremental.fetch.session.cache.slots=0"});
  FetchSessions sessions;
  caught_up_session(sessions);
  for (int i = 0; i < 2; ++i) {
    auto r = fetch(at("t", {1, 1, 1}), &sessions);
    EXPECT_EQ(values(r).size(), 3u);
    EXPECT_EQ(last_fetch().session_id, 0);
    EXPECT_EQ(last_fetch().epoch, 0);  // asking again each time
    EXPECT_EQ(last_fetch().partitions.size(), 3u);
    EXPECT_EQ(last_fetch().response_session_id, 0);
    EXPECT_EQ(last_fetch().response_partitions.size(), 3u);
  }
  EXPECT_EQ(cluster_->sessions().size(), 0u);
  EXPECT_EQ(sessions.session(1)->id, 0);
}

TEST_F(FetchSessionTest, FetchBelowV7IsSessionless) {
  start();
  cluster_->set_max_fetch_version(6);
  FetchSessions sessions;
  caught_up_session(sessions, /*epoch=*/-1);
  EXPECT_EQ(values(fetch(at("t", {1, 1, 1}), &sessions)).size(), 3u);
  for (const auto& f : cluster_->fetches()) {
    EXPECT_EQ(f.version, 6);
    EXPECT_EQ(f.partitions.size(), 3u);
  }
  EXPECT_EQ(cluster_->sessions().size(), 0u);
  EXPECT_EQ(sessions.stats().sessionless, 2u);
  EXPECT_EQ(sessions.stats().full + sessions.stats().incremental, 0u);
}

TEST_F(FetchSessionTest, CallersWithoutSessionsSendFullSessionlessFetches) {
  start();
  create_topic("t", 2);
  produce("t", 0, {"x"});
  for (int i = 0; i < 2; ++i) {
    auto r = fetch(at("t", {0, 0}), nullptr);
    const std::vector<std::vector<std::string>> want{{"x"}, {}};
    EXPECT_EQ(values(r), want);
    EXPECT_EQ(last_fetch().session_id, 0);
    EXPECT_EQ(last_fetch().epoch, -1);
    EXPECT_EQ(last_fetch().partitions.size(), 2u);
    EXPECT_TRUE(last_fetch().forgotten.empty());
  }
  EXPECT_EQ(cluster_->sessions().size(), 0u);
}

}  // namespace
}  // namespace mirra::client
