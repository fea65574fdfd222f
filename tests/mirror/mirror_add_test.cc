// AddTopicsToMirror's answer for a source topic that already exists here
// (mirror/mirror_manager.h: existing_topic_outcome(), docs/mirroring-design.md §4, §6).
#include <gtest/gtest.h>

#include "cluster/topic_config.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {
namespace {

const int8_t kMirroring = static_cast<int8_t>(MirrorState::mirroring);
const int8_t kFailed = static_cast<int8_t>(MirrorState::failed);
const int8_t kStopped = static_cast<int8_t>(MirrorState::stopped);

client::TopicInfo source_topic(Uuid id) {
  client::TopicInfo t;
  t.name = "orders";
  t.id = id;
  t.partitions.resize(1);
  return t;
}

metadata::TopicInfo here(Uuid id, std::optional<std::string> mirror) {
  metadata::TopicInfo t;
  t.name = "orders";
  t.id = id;
  t.partitions.resize(1);
  if (mirror) t.configs[std::string(cluster::kMirrorNameConfig)] = *mirror;
  return t;
}

TEST(MirrorAdd, SameTopicOfThisMirrorIsAlreadyMirroredOrRestarted) {
  const Uuid id = Uuid::random();
  auto again = existing_topic_outcome("dr", source_topic(id), here(id, "dr"), kMirroring);
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->status.ok());
  EXPECT_EQ(again->id, id);
  EXPECT_FALSE(existing_topic_outcome("dr", source_topic(id), here(id, "dr"), kStopped));
  EXPECT_FALSE(existing_topic_outcome("dr", source_topic(id), here(id, std::nullopt), kStopped));
}

// Issue 15 point 7: the source topic was deleted and recreated (a new id); adding it again
// answered OK with the old id, and a STOPPED one would have been restarted (truncated and
// filled from another topic). A mirror topic's id is its source's: the new topic is another
// topic, refused with INCONSISTENT_TOPIC_ID that says what to do.
TEST(MirrorAdd, RecreatedSourceTopicIsRefusedInEveryState) {
  const Uuid old_id = Uuid::random();
  const Uuid new_id = Uuid::random();
  for (int8_t state : {kMirroring, kFailed, kStopped}) {
    auto r = existing_topic_outcome("dr", source_topic(new_id), here(old_id, "dr"), state);
    ASSERT_TRUE(r.has_value()) << int(state);
    EXPECT_EQ(r->status.code(), ErrorCode::INCONSISTENT_TOPIC_ID) << int(state);
    EXPECT_NE(r->status.message().find("was recreated"), std::string::npos);
    EXPECT_NE(r->status.message().find(new_id.to_string()), std::string::npos);
    EXPECT_NE(r->status.message().find(old_id.to_string()), std::string::npos);
  }
  // Not of this mirror (another id): TOPIC_ALREADY_EXISTS, as before.
  auto r = existing_topic_outcome("dr", source_topic(new_id), here(old_id, std::nullopt), kStopped);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status.code(), ErrorCode::TOPIC_ALREADY_EXISTS);
  // A source without topic ids is matched by name: our own topic is mirrored as it is.
  r = existing_topic_outcome("dr", source_topic(Uuid::zero()), here(old_id, "dr"), kMirroring);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->status.ok());
}

TEST(MirrorAdd, TopicOfAnotherMirrorIsRefused) {
  const Uuid id = Uuid::random();
  auto r = existing_topic_outcome("dr", source_topic(id), here(id, "other"), kMirroring);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status.code(), ErrorCode::TOPIC_ALREADY_IN_MIRROR);
}

}  // namespace
}  // namespace mirra::mirror
