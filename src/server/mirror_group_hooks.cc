#include "server/mirror_group_hooks.h"

#include <optional>

#include <fmt/format.h>

#include "groups/group_coordinator.h"
#include "server/request_context.h"
#include "server/share_admin.h"

namespace mirra::server {
namespace {

// Errors the coordinator gives a partition of its own (the others refuse the whole commit and
// come on every partition).
bool partition_error(ErrorCode code) {
  return code == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION ||
         code == ErrorCode::OFFSET_METADATA_TOO_LARGE;
}

protocol::OffsetCommitRequest admin_commit(const std::string& group_id,
                                           const std::vector<client::OffsetToCommit>& offsets) {
  protocol::OffsetCommitRequest req;
  req.group_id = group_id;
  req.generation_id_or_member_epoch = -1;
  for (const client::OffsetToCommit& o : offsets) {
    if (req.topics.empty() || req.topics.back().name != o.tp.topic) {
      req.topics.emplace_back().name = o.tp.topic;
    }
    req.topics.back().partitions.push_back(
        {o.tp.partition, o.offset, o.leader_epoch, o.metadata.value_or(""), {}});
  }
  return req;
}

// OffsetCommit v8: leader epochs, no retention time, a missing group created (v9 would only
// change the answer for generations >= 0).
constexpr int16_t kCommitVersion = 8;

asio::awaitable<Result<std::vector<client::PartitionStatus>>> commit(
    groups::GroupCoordinator& coordinator, std::string group_id,
    std::vector<client::OffsetToCommit> offsets) {
  const protocol::OffsetCommitRequest req = admin_commit(group_id, offsets);
  protocol::OffsetCommitResponse resp = co_await coordinator.commit(req, kCommitVersion);
  std::vector<client::PartitionStatus> out;
  std::optional<ErrorCode> shared;  // the one error of every partition, if they share one
  bool all_same = true;
  for (const auto& t : resp.topics) {
    for (const auto& p : t.partitions) {
      const ErrorCode code = error_from_number(p.error_code);
      if (shared && *shared != code) all_same = false;
      shared = code;
      Status s;
      if (code != ErrorCode::NONE) {
        s = Status(code, fmt::format("offset of {}-{}: {}", t.name, p.partition_index,
                                     error_message(code)));
      }
      out.push_back({{t.name, p.partition_index}, std::move(s)});
    }
  }
  if (shared && all_same && *shared != ErrorCode::NONE && !partition_error(*shared)) {
    co_return Status(*shared, fmt::format("the commit of group {} was refused: {} ({})", group_id,
                                          error_name(*shared), error_message(*shared)));
  }
  co_return out;
}

// The outcomes of an AlterShareGroupOffsets as the mirror's share-group sync takes them.
asio::awaitable<Result<std::vector<client::PartitionStatus>>> alter_share(
    BrokerState& broker, std::string group_id, std::vector<client::ShareGroupOffset> offsets) {
  std::vector<ShareOffsetTarget> targets;
  targets.reserve(offsets.size());
  for (const client::ShareGroupOffset& o : offsets) {
    targets.push_back({o.tp.topic, o.tp.partition, o.start_offset});
  }
  auto outcomes = co_await alter_share_offsets(broker, std::move(group_id), std::move(targets));
  if (!outcomes.ok()) co_return outcomes.status();
  std::vector<client::PartitionStatus> out;
  for (ShareOffsetOutcome& o : outcomes.value()) {
    out.push_back({{o.topic, o.partition}, std::move(o.status)});
  }
  co_return out;
}

mirror::DestinationGroup describe(const groups::GroupCoordinator& coordinator,
                                  const std::string& group_id) {
  mirror::DestinationGroup out;
  if (const groups::ShareGroup* sg = coordinator.find_share(group_id)) {
    out.exists = true;
    out.protocol_type = std::string(groups::kShareProtocolType);
    out.members = sg->members.size();
    return out;
  }
  const groups::Group* g = coordinator.find(group_id);
  if (g == nullptr) return out;
  out.exists = true;
  out.protocol_type = g->protocol_type.value_or("");
  out.members = g->members.size() + g->pending_members.size();
  return out;
}

}  // namespace

mirror::GroupHooks mirror_group_hooks(BrokerState& broker) {
  groups::GroupCoordinator& coordinator = *broker.groups;
  mirror::GroupHooks hooks;
  hooks.describe = [&coordinator](const std::string& group_id) {
    return describe(coordinator, group_id);
  };
  hooks.commit = [&coordinator](std::string group_id, std::vector<client::OffsetToCommit> offsets) {
    return commit(coordinator, std::move(group_id), std::move(offsets));
  };
  hooks.alter_share = [&broker](std::string group_id,
                                std::vector<client::ShareGroupOffset> offsets) {
    return alter_share(broker, std::move(group_id), std::move(offsets));
  };
  return hooks;
}

}  // namespace mirra::server
