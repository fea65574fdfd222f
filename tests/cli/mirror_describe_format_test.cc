// `mirra mirror --describe`'s output (cli/mirror_describe_format.h): the sync table per mirror
// after the partition table, the groups table only when a group has something to say, ages,
// and the JSON rows: partition rows as before, then "sync" and "syncGroup" rows.
#include "cli/mirror_describe_format.h"

#include <gtest/gtest.h>

#include "mirror/describe_json.h"

namespace mirra::cli {
namespace {

constexpr int64_t kNow = 100'000'000;

client::MirrorDescription mirror_with_sync() {
  client::MirrorDescription m;
  m.name = "dr";
  auto& t = m.topics.emplace_back();
  t.name = "orders";
  client::MirrorPartitionDescription p;
  p.partition = 0;
  p.state = 1;  // MIRRORING
  t.partitions.push_back(p);
  for (int8_t kind = 0; kind < 4; ++kind) {
    client::MirrorSyncKindDescription k;
    k.kind = kind;
    k.runs = 10 + kind;
    k.last_success_ms = kNow - 1500;
    m.sync_kinds.push_back(k);
  }
  m.sync_kinds[0].failures = 2;
  m.sync_kinds[0].last_error = Status(ErrorCode::NETWORK_EXCEPTION, "source down");
  m.sync_kinds[0].last_error_ms = kNow - 200;
  m.sync_kinds[0].looked_at = 7;
  m.sync_kinds[0].changed = 1;
  return m;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

TEST(MirrorDescribeFormat, Ages) {
  EXPECT_EQ(age(-1, kNow), "-");
  EXPECT_EQ(age(kNow - 1500, kNow), "1.5s ago");
  EXPECT_EQ(age(kNow + 50, kNow), "0.0s ago");  // another clock, slightly ahead
  EXPECT_EQ(age(kNow - 187'000, kNow), "3m07s ago");
  EXPECT_EQ(age(kNow - 7'500'000, kNow), "2h05m ago");
}

TEST(MirrorDescribeFormat, SyncTableFollowsThePartitionTable) {
  const auto out = lines(describe_text({mirror_with_sync()}, kNow));
  ASSERT_EQ(out.size(), 9u) << describe_text({mirror_with_sync()}, kNow);
  EXPECT_EQ(out[0].substr(0, 6), "MIRROR");
  EXPECT_NE(out[1].find("orders"), std::string::npos);
  EXPECT_EQ(out[2], "");
  EXPECT_EQ(out[3], "Sync of mirror dr");
  EXPECT_EQ(out[4],
            "KIND       RUNS FAILURES LAST-SUCCESS LAST-ERROR             LOOKED-AT CHANGED");
  EXPECT_EQ(out[5], "topics     10   2        1.5s ago     source down (0.2s ago) 7         1");
  EXPECT_EQ(out[6].substr(0, 15), "configs    11  ");
  EXPECT_NE(out[6].find(" - "), std::string::npos);  // no error
  EXPECT_EQ(out[8].substr(0, 10), "groups    ");
}

TEST(MirrorDescribeFormat, GroupsTableOnlyWithGroupsToShow) {
  client::MirrorDescription m = mirror_with_sync();
  const std::string without = describe_text({m}, kNow);
  EXPECT_EQ(without.find("GROUP "), std::string::npos);
  m.sync_groups.push_back({"app", Status::OK(), true, kNow - 2000, 0});
  m.sync_groups.push_back({"old", Status(ErrorCode::GROUP_ID_NOT_FOUND, "gone"), false, -1, 0, 5});
  const auto out = lines(describe_text({m}, kNow));
  ASSERT_EQ(out.size(), 13u);
  EXPECT_EQ(out[9], "");
  EXPECT_EQ(out[10], "GROUP KIND         ACTIVE-ON-DESTINATION LAST-SYNCED OFFSETS ERROR");
  EXPECT_EQ(out[11], "app   groups       yes                   2.0s ago    0       -");
  EXPECT_EQ(out[12], "old   share-groups no                    -           0       gone");
}

TEST(MirrorDescribeFormat, MirrorWithoutSyncStatusShowsThePartitionsOnly) {
  client::MirrorDescription m = mirror_with_sync();
  m.sync_kinds.clear();
  EXPECT_EQ(lines(describe_text({m}, kNow)).size(), 2u);
  EXPECT_EQ(describe_json({m}).find("\"type\""), std::string::npos);
}

TEST(MirrorDescribeFormat, JsonRowsPartitionsFirstThenSyncAndGroups) {
  client::MirrorDescription m = mirror_with_sync();
  m.sync_groups.push_back({"app", Status::OK(), true, 42, 3});
  const auto out = lines(describe_json({m}));
  ASSERT_EQ(out.size(), 6u);  // a partition, four kinds, a group
  EXPECT_EQ(out[0].substr(0, 32), "[{\"mirror\":\"dr\",\"topic\":\"orders\"");
  EXPECT_EQ(out[0].find("\"type\""), std::string::npos);  // as before
  EXPECT_EQ(out[1],
            " {\"type\":\"sync\",\"mirror\":\"dr\",\"kind\":\"topics\",\"runs\":10,\"failures\":2,"
            "\"lastRunMs\":-1,\"lastSuccessMs\":99998500,\"lastErrorMs\":99999800,"
            "\"lastDurationUs\":-1,\"lookedAt\":7,\"changed\":1,\"changedTotal\":0,"
            "\"lastErrorCode\":13,\"lastError\":\"source down\"},");
  EXPECT_NE(out[2].find("\"kind\":\"configs\""), std::string::npos);
  EXPECT_NE(out[2].find("\"lastErrorCode\":0,\"lastError\":null"), std::string::npos);
  EXPECT_EQ(out[5],
            " {\"type\":\"syncGroup\",\"mirror\":\"dr\",\"group\":\"app\",\"kind\":\"groups\","
            "\"activeOnDestination\":true,\"lastSyncedMs\":42,\"offsetsCommitted\":3,"
            "\"errorCode\":0,\"error\":null}]");
}

TEST(MirrorDescribeFormat, UnknownKindShowsItsNumber) {
  EXPECT_EQ(mirror::sync_kind_name(2), "partitions");
  EXPECT_EQ(mirror::sync_kind_name(5), "share-groups");
  EXPECT_EQ(mirror::sync_kind_name(9), "9");
}

}  // namespace
}  // namespace mirra::cli
