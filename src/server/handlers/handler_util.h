// Lookups shared by the handlers that answer per topic or per partition: one place for the
// rules Kafka applies the same way in every API (unknown topic or partition, the client's
// current leader epoch, which topics are internal, the operations an ACL-less broker allows).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "metadata/image.h"
#include "server/request_context.h"

namespace mirra::cluster {
class Partition;
}

namespace mirra::server {

// Without an authorizer every operation Kafka defines for the resource type is allowed (its
// AclOperation codes as bit positions). Topic: READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE,
// DESCRIBE_CONFIGS, ALTER_CONFIGS. Cluster: CREATE, ALTER, DESCRIBE, CLUSTER_ACTION,
// DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE.
constexpr int32_t kAllTopicOperations = (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) |
                                        (1 << 8) | (1 << 10) | (1 << 11);
constexpr int32_t kAllClusterOperations = (1 << 4) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) |
                                          (1 << 11) | (1 << 12);

// Group: READ, DESCRIBE, DELETE.
constexpr int32_t kAllGroupOperations = (1 << 3) | (1 << 6) | (1 << 8);

// The message of SECURITY_DISABLED in the ACL APIs' answers: Kafka advertises them on a
// broker without an authorizer and refuses each creation, filter and description this way.
inline constexpr std::string_view kNoAuthorizerMessage =
    "ACLs need an authorizer and none is configured on this broker";

// The client's address as Kafka reports it in group member descriptions ("/127.0.0.1").
std::string client_host(const RequestContext& ctx);

// READ_ONLY_TOPIC (mirror/mirror_admin.h) for a client write to a partition of a mirror topic
// (-1: any of its partitions) that has not been failed over.
Status check_writable(const RequestContext& ctx, std::string_view topic, int32_t partition);

// The internal topics of the group and transaction coordinators.
bool is_internal_topic(std::string_view name);

// Kafka's fencing on the client's idea of the leader epoch (-1: not given): a newer epoch
// than the broker's is UNKNOWN_LEADER_EPOCH (the broker is behind), an older one
// FENCED_LEADER_EPOCH (the client is behind).
ErrorCode check_leader_epoch(int32_t requested, int32_t current);

// A partition a request names: the partition, or the error to answer with.
struct PartitionLookup {
  std::shared_ptr<cluster::Partition> partition;
  ErrorCode error = ErrorCode::NONE;
};
PartitionLookup find_partition(const RequestContext& ctx, std::string_view topic, int32_t index,
                               int32_t current_leader_epoch = -1);

// A topic with the partitions a request selects (all of them when `indexes` is null).
struct TopicPartitions {
  std::string topic;
  std::vector<std::shared_ptr<cluster::Partition>> partitions;
};
struct TopicSelection {
  std::string topic;
  std::optional<std::vector<int32_t>> indexes;
};
// Every existing partition of the selected topics (every topic when `topics` is null), in
// topic-name then partition order; names and indexes that do not exist are left out.
std::vector<TopicPartitions> select_partitions(
    const RequestContext& ctx, const std::optional<std::vector<TopicSelection>>& topics);

// A partition as Metadata and DescribeTopicPartitions show it: a partition whose log is
// offline has no leader (LEADER_NOT_AVAILABLE) and its replica listed offline.
struct PartitionView {
  ErrorCode error = ErrorCode::NONE;
  int32_t leader = -1;
  int32_t leader_epoch = -1;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  std::vector<int32_t> offline;
};
PartitionView view_partition(const RequestContext& ctx, const std::string& topic,
                             const metadata::PartitionInfo& partition);

// A response's error message: null when there is no error, as Kafka sends it.
std::optional<std::string> error_message(const Status& s);

}  // namespace mirra::server
