// The mirror admin RPCs through the whole request path of an in-process broker (which never
// starts mirroring, so its mirrors have no runner and no topics): CreateMirror, ListMirrors,
// DescribeMirrors, LastMirroredOffsets and DeleteMirror put MirrorManager's answers
// (mirror/mirror_describe.h) on the wire: names, sources, errors, and -1 for what is unknown.
#include "server/in_process_broker.h"

#include <gtest/gtest.h>

#include "protocol/messages/create_mirror.h"
#include "protocol/messages/delete_mirror.h"
#include "protocol/messages/describe_mirrors.h"
#include "protocol/messages/last_mirrored_offsets.h"
#include "protocol/messages/list_mirrors.h"

namespace mirra::server {
namespace {

class MirrorRpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b = InProcessBroker::start();
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
  }

  int16_t create(const std::string& name, const std::string& bootstrap, bool validate_only) {
    protocol::CreateMirrorRequest req;
    req.mirror_name = name;
    req.configs.push_back({"bootstrap.servers", bootstrap, {}});
    req.validate_only = validate_only;
    auto resp = broker_->call<protocol::CreateMirrorResponse>(req, 0);
    EXPECT_TRUE(resp.ok());
    return resp.ok() ? resp->error_code : -1;
  }

  protocol::ListMirrorsResponse list(bool include_topics,
                                     std::optional<std::vector<std::string>> topics) {
    protocol::ListMirrorsRequest req;
    req.include_topics = include_topics;
    req.topic_names = std::move(topics);
    auto resp = broker_->call<protocol::ListMirrorsResponse>(req, 0);
    EXPECT_TRUE(resp.ok());
    return resp.ok() ? resp.value() : protocol::ListMirrorsResponse{};
  }

  protocol::DescribeMirrorsResponse describe(std::optional<std::vector<std::string>> names) {
    protocol::DescribeMirrorsRequest req;
    req.mirror_names = std::move(names);
    auto resp = broker_->call<protocol::DescribeMirrorsResponse>(req, 0);
    EXPECT_TRUE(resp.ok());
    return resp.ok() ? resp.value() : protocol::DescribeMirrorsResponse{};
  }

  std::unique_ptr<InProcessBroker> broker_;
};

TEST_F(MirrorRpcTest, CreatedMirrorsAreListedAndDescribedWithTheirSource) {
  EXPECT_EQ(create("dr", "a:9092,b:9092", /*validate_only=*/false), 0);
  EXPECT_EQ(create("backup", "c:1", /*validate_only=*/false), 0);
  EXPECT_EQ(create("dry", "d:1", /*validate_only=*/true), 0);  // checked, not created

  const auto listed = list(/*include_topics=*/true, std::nullopt);
  ASSERT_EQ(listed.mirrors.size(), 2u);
  EXPECT_EQ(listed.mirrors[0].name, "backup");  // by name
  EXPECT_EQ(listed.mirrors[1].name, "dr");
  EXPECT_EQ(listed.mirrors[1].source_bootstrap_servers, "a:9092,b:9092");
  EXPECT_EQ(listed.mirrors[1].topic_count, 0);
  EXPECT_FALSE(listed.mirrors[1].source_cluster_id.has_value());  // no topic added yet
  EXPECT_TRUE(listed.mirrors[1].topics.empty());

  const auto all = describe(std::nullopt);
  ASSERT_EQ(all.mirrors.size(), 2u);
  EXPECT_EQ(all.mirrors[1].name, "dr");
  EXPECT_EQ(all.mirrors[1].error_code, 0);
  EXPECT_FALSE(all.mirrors[1].error_message.has_value());
  EXPECT_EQ(all.mirrors[1].source_bootstrap_servers, "a:9092,b:9092");
  EXPECT_TRUE(all.mirrors[1].topics.empty());
}

TEST_F(MirrorRpcTest, DescribeAnswersUnknownMirrorPerName) {
  ASSERT_EQ(create("dr", "a:1", false), 0);
  const auto resp = describe(std::vector<std::string>{"nope", "dr"});
  ASSERT_EQ(resp.mirrors.size(), 2u);
  EXPECT_EQ(resp.mirrors[0].name, "nope");
  EXPECT_EQ(resp.mirrors[0].error_code, error_number(ErrorCode::UNKNOWN_MIRROR));
  EXPECT_EQ(resp.mirrors[0].error_message,
            std::optional<std::string>("mirror 'nope' does not exist"));
  EXPECT_EQ(resp.mirrors[0].source_bootstrap_servers, "");
  EXPECT_EQ(resp.mirrors[1].error_code, 0);
  EXPECT_EQ(resp.mirrors[1].source_bootstrap_servers, "a:1");
}

TEST_F(MirrorRpcTest, ListWithTopicNamesShowsOnlyMirrorsHoldingThem) {
  ASSERT_EQ(create("dr", "a:1", false), 0);
  EXPECT_TRUE(list(false, std::vector<std::string>{"orders"}).mirrors.empty());
  EXPECT_EQ(list(false, std::nullopt).mirrors.size(), 1u);
}

TEST_F(MirrorRpcTest, LastMirroredOffsetsIsMinusOneWithoutAFailover) {
  protocol::LastMirroredOffsetsRequest req;
  req.source_cluster_id = "some-cluster";
  const Uuid topic = Uuid::random();
  req.topics.push_back({topic, {0, 3}, {}});
  auto resp = broker_->call<protocol::LastMirroredOffsetsResponse>(req, 0);
  ASSERT_TRUE(resp.ok());
  ASSERT_EQ(resp->topics.size(), 1u);
  EXPECT_EQ(resp->topics[0].topic_id, topic);
  ASSERT_EQ(resp->topics[0].partitions.size(), 2u);
  EXPECT_EQ(resp->topics[0].partitions[0].partition_index, 0);
  EXPECT_EQ(resp->topics[0].partitions[1].partition_index, 3);
  for (const auto& p : resp->topics[0].partitions) {
    EXPECT_EQ(p.error_code, 0);
    EXPECT_EQ(p.last_mirrored_offset, -1);
  }
}

TEST_F(MirrorRpcTest, DeletedMirrorIsGone) {
  ASSERT_EQ(create("dr", "a:1", false), 0);
  protocol::DeleteMirrorRequest req;
  req.mirror_name = "dr";
  auto resp = broker_->call<protocol::DeleteMirrorResponse>(req, 0);
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->error_code, 0);
  EXPECT_TRUE(list(true, std::nullopt).mirrors.empty());
  EXPECT_EQ(describe(std::vector<std::string>{"dr"}).mirrors.at(0).error_code,
            error_number(ErrorCode::UNKNOWN_MIRROR));
}

}  // namespace
}  // namespace mirra::server
