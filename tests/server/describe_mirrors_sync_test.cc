// DescribeMirrors' sync fields (docs/mirroring-design.md §12): a mirror's MirrorSyncStatus as
// the handler puts it on the wire (sync_to_wire), the fields surviving an encode and a decode,
// and the compatibility the tagged fields buy: a mirror without sync status is encoded as
// before they existed, and a client that predates them skips them by their lengths.
#include <gtest/gtest.h>

#include "protocol/frame.h"
#include "server/handlers/describe_mirrors_sync.h"

namespace mirra::server {
namespace {

using protocol::Bytes;
using protocol::DescribeMirrorsResponse;

mirror::MirrorSyncStatus sample_status() {
  mirror::MirrorSyncStatus st;
  mirror::SyncKindStatus& topics = st.of(mirror::SyncKind::kTopics);
  topics.runs = 12;
  topics.failures = 3;
  topics.last_run_ms = 9000;
  topics.last_success_ms = 8000;
  topics.last_error_ms = 9000;
  topics.last_duration_us = 1500;
  topics.looked_at = 40;
  topics.changed = 2;
  topics.changed_total = 5;
  topics.last_error = Status(ErrorCode::NETWORK_EXCEPTION, "the source's Metadata failed: down");
  st.of(mirror::SyncKind::kGroups).runs = 12;
  st.groups["quiet"] = mirror::GroupSyncStatus{Status::OK(), false, 8500, 10};
  st.groups["busy"] = mirror::GroupSyncStatus{Status::OK(), true, 7000, 0};
  st.groups["refused"] =
      mirror::GroupSyncStatus{Status(ErrorCode::GROUP_ID_NOT_FOUND, "no such group"), false, -1, 0};
  st.groups["shared"] =
      mirror::GroupSyncStatus{Status::OK(), true, 6000, 0, mirror::SyncKind::kShareGroups};
  return st;
}

DescribeMirrorsResponse response_of(const mirror::MirrorSyncStatus* st) {
  DescribeMirrorsResponse resp;
  auto& m = resp.mirrors.emplace_back();
  m.name = "m";
  m.source_bootstrap_servers = "b";
  if (st != nullptr) sync_to_wire(mirror::describe_sync(*st), m);
  return resp;
}

Bytes encode(const DescribeMirrorsResponse& r) {
  Bytes out;
  protocol::append_message(out, r, 0);
  return out;
}

TEST(DescribeMirrorsSync, StatusBecomesTheMirrorsSyncFields) {
  const mirror::MirrorSyncStatus st = sample_status();
  const DescribeMirrorsResponse resp = response_of(&st);
  const auto& m = resp.mirrors[0];
  ASSERT_EQ(m.sync_kinds.size(), mirror::kSyncKinds.size());  // topics .. share groups, in order
  for (size_t i = 0; i < m.sync_kinds.size(); ++i) {
    EXPECT_EQ(m.sync_kinds[i].kind, static_cast<int8_t>(i));
  }
  const auto& k = m.sync_kinds[0];
  EXPECT_EQ(k.runs, 12);
  EXPECT_EQ(k.failures, 3);
  EXPECT_EQ(k.last_run_ms, 9000);
  EXPECT_EQ(k.last_success_ms, 8000);
  EXPECT_EQ(k.last_error_ms, 9000);
  EXPECT_EQ(k.last_duration_us, 1500);
  EXPECT_EQ(k.looked_at, 40);
  EXPECT_EQ(k.changed, 2);
  EXPECT_EQ(k.changed_total, 5);
  EXPECT_EQ(k.last_error_code, error_number(ErrorCode::NETWORK_EXCEPTION));
  EXPECT_EQ(k.last_error, "the source's Metadata failed: down");
  const auto& ok_kind = m.sync_kinds[3];  // groups: never failed
  EXPECT_EQ(ok_kind.runs, 12);
  EXPECT_EQ(ok_kind.last_error_code, 0);
  EXPECT_EQ(ok_kind.last_error, std::nullopt);
  EXPECT_EQ(ok_kind.last_success_ms, -1);

  ASSERT_EQ(m.sync_groups.size(), 3u);  // "quiet" syncs fine: not listed
  EXPECT_EQ(m.sync_groups[0].group_id, "busy");
  EXPECT_EQ(m.sync_groups[0].kind, 3);  // a consumer group: the groups kind
  EXPECT_TRUE(m.sync_groups[0].active_on_destination);
  EXPECT_EQ(m.sync_groups[0].error_code, 0);
  EXPECT_EQ(m.sync_groups[0].error_message, std::nullopt);
  EXPECT_EQ(m.sync_groups[0].last_synced_ms, 7000);
  EXPECT_EQ(m.sync_groups[1].group_id, "refused");
  EXPECT_EQ(m.sync_groups[1].error_code, error_number(ErrorCode::GROUP_ID_NOT_FOUND));
  EXPECT_EQ(m.sync_groups[1].error_message, "no such group");
  EXPECT_FALSE(m.sync_groups[1].active_on_destination);
  EXPECT_EQ(m.sync_groups[2].group_id, "shared");
  EXPECT_EQ(m.sync_groups[2].kind, 5);  // a share group: the share-groups kind
  EXPECT_TRUE(m.sync_groups[2].active_on_destination);
}

TEST(DescribeMirrorsSync, FieldsSurviveTheWire) {
  const mirror::MirrorSyncStatus st = sample_status();
  const DescribeMirrorsResponse sent = response_of(&st);
  const Bytes bytes = encode(sent);
  protocol::Reader r(bytes.data(), bytes.size());
  DescribeMirrorsResponse got;
  ASSERT_TRUE(got.decode(r, 0).ok());
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(got == sent);
  EXPECT_TRUE(got.mirrors[0].unknown_tags.empty());  // known tags, not kept as unknown ones
  EXPECT_EQ(got.mirrors[0].sync_kinds[0].last_error, "the source's Metadata failed: down");
  EXPECT_EQ(got.mirrors[0].sync_groups[2].kind, 5);  // the group's tagged Kind
  EXPECT_EQ(got.mirrors[0].sync_groups[0].kind, 3);  // its default: not written, read as 3
}

// ThrottleTimeMs, ErrorCode, one mirror ("m", no error, bootstrap "b", no cluster id, no
// topics, no tags), no tags: DescribeMirrors v0 as it was before the sync fields.
const Bytes kOldEncoding{0, 0, 0, 0, 0, 0, 2, 2, 'm', 0, 0, 0, 2, 'b', 0, 1, 0, 0};

TEST(DescribeMirrorsSync, WithoutSyncStatusTheEncodingIsTheOldOne) {
  EXPECT_EQ(encode(response_of(nullptr)), kOldEncoding);
  // A broker that predates the fields: a new client reads no sync status.
  protocol::Reader r(kOldEncoding.data(), kOldEncoding.size());
  DescribeMirrorsResponse got;
  ASSERT_TRUE(got.decode(r, 0).ok());
  EXPECT_TRUE(got.mirrors[0].sync_kinds.empty());
  EXPECT_TRUE(got.mirrors[0].sync_groups.empty());
}

TEST(DescribeMirrorsSync, AnOldClientSkipsTheSyncFieldsByLength) {
  const mirror::MirrorSyncStatus st = sample_status();
  const Bytes bytes = encode(response_of(&st));
  // The old encoding up to the mirror's tag count, then the mirror's tagged fields, then the
  // response's empty tag section.
  const size_t prefix = kOldEncoding.size() - 2;
  ASSERT_GT(bytes.size(), kOldEncoding.size());
  EXPECT_TRUE(std::equal(kOldEncoding.begin(), kOldEncoding.begin() + prefix, bytes.begin()));
  EXPECT_EQ(bytes.back(), 0);
  protocol::Reader r(bytes.data() + prefix, bytes.size() - prefix - 1);
  ASSERT_EQ(r.read_uvarint(), 2u);
  for (uint32_t want_tag : {0u, 1u}) {
    EXPECT_EQ(r.read_uvarint(), want_tag);
    // What a client does with a tag it does not know: skip the size it is written with.
    const uint32_t size = r.read_uvarint();
    ASSERT_LE(size, r.remaining());
    for (uint32_t i = 0; i < size; ++i) r.read_int8();
    ASSERT_FALSE(r.failed());
  }
  EXPECT_EQ(r.remaining(), 0u);
}

}  // namespace
}  // namespace mirra::server
