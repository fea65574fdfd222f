// ClientSyncSource: the sync tasks' admin calls of the source through client::Client
// (mirror_sync.h).
#include "client/client.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

// The client's per-group answers (GroupOffsets, ShareGroupOffsets: group_id, status, offsets)
// keyed by group, each group's error as its own entry.
template <typename Group>
std::map<std::string, Result<decltype(Group::offsets)>> by_group(std::vector<Group>& groups) {
  std::map<std::string, Result<decltype(Group::offsets)>> out;
  for (Group& g : groups) {
    if (g.status.ok()) {
      out.insert_or_assign(g.group_id, std::move(g.offsets));
    } else {
      out.insert_or_assign(g.group_id, std::move(g.status));
    }
  }
  return out;
}

}  // namespace

ClientSyncSource::ClientSyncSource(std::unique_ptr<client::Client> client)
    : client_(std::move(client)) {
  MIRRA_ASSERT(client_ != nullptr, "a sync source needs a client");
}

ClientSyncSource::~ClientSyncSource() = default;

asio::awaitable<Result<client::ClusterMetadata>> ClientSyncSource::metadata(
    std::optional<std::vector<std::string>> topics) {
  co_return co_await client_->metadata(std::move(topics));
}

asio::awaitable<Result<std::vector<client::ConfigResourceResult>>> ClientSyncSource::topic_configs(
    std::vector<std::string> topics) {
  std::vector<client::ConfigResource> resources;
  for (std::string& t : topics) {
    resources.push_back({client::ConfigResourceType::topic, std::move(t), {}});
  }
  co_return co_await client_->describe_configs(std::move(resources));
}

asio::awaitable<Result<client::GroupListings>> ClientSyncSource::list_groups() {
  co_return co_await client_->list_groups();
}

asio::awaitable<Result<std::map<std::string, Result<std::vector<client::CommittedOffset>>>>>
ClientSyncSource::committed_offsets(std::vector<std::string> groups,
                                    std::vector<client::TopicPartition> partitions) {
  // Batched where the source speaks OffsetFetch v8+ (KIP-709): a round with a thousand groups
  // is one request per coordinator, not a thousand.
  auto fetched = co_await client_->offset_fetch_groups(std::move(groups), std::move(partitions));
  if (!fetched.ok()) co_return fetched.status();
  co_return by_group(fetched.value());
}

asio::awaitable<Result<std::vector<security::AclBinding>>> ClientSyncSource::acls() {
  co_return co_await client_->describe_acls(security::AclBindingFilter{});  // matches every ACL
}

asio::awaitable<Result<std::map<std::string, Result<std::vector<client::ShareGroupOffset>>>>>
ClientSyncSource::share_group_offsets(std::vector<std::string> groups,
                                      std::vector<client::TopicPartition> partitions) {
  // One DescribeShareGroupOffsets per coordinator for all the groups, as OffsetFetch above.
  auto fetched = co_await client_->share_group_offsets(std::move(groups), std::move(partitions));
  if (!fetched.ok()) co_return fetched.status();
  co_return by_group(fetched.value());
}

void ClientSyncSource::close() { client_->close(); }

}  // namespace mirra::mirror
