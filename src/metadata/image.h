// The metadata image: what the cluster knows about itself (cluster id, topics with their ids,
// partitions and config overrides, dynamic broker configs), built by applying metadata records
// in log order. The image is plain data: the broker's core thread owns its copy and changes it
// only by apply(), after the records are durable in the metadata log (metadata/metadata_log.h).
//
// A multi-broker store would produce the same records from a replicated log; handlers see only
// the image and the MetadataStore interface (cluster/metadata_store.h), never the log.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "base/uuid.h"
#include "metadata/records.h"
#include "quota/quota_table.h"

namespace mirra::metadata {

struct PartitionInfo {
  int32_t partition = 0;
  std::vector<int32_t> replicas;  // node ids; the first is the preferred leader
  int32_t leader = -1;
  int32_t leader_epoch = 0;
};

struct TopicInfo {
  std::string name;
  Uuid id;
  std::vector<PartitionInfo> partitions;       // index == partition number
  std::map<std::string, std::string> configs;  // topic-level overrides only (Kafka names)
};

// A mirror: a named link to a source cluster (docs/mirroring-design.md §1). Its topics are the
// topics whose `mirror.name` config names it.
struct MirrorInfo {
  std::string name;
  std::map<std::string, std::string> configs;    // every config, secrets included
  std::vector<std::string> topic_patterns = {};  // remembered `--add --topic` patterns (§8)
};

// A user's SCRAM credential for one mechanism (UserScramCredentialRecord): raw bytes.
struct ScramCredentialInfo {
  std::string salt;
  std::string stored_key;
  std::string server_key;
  int32_t iterations = 0;
};

class MetadataImage {
 public:
  // Offset of the last record applied (-1: none); a snapshot taken now covers up to here.
  int64_t last_offset() const { return last_offset_; }

  const TopicInfo* topic(std::string_view name) const;
  const TopicInfo* topic(const Uuid& id) const;
  // Sorted by name.
  const std::map<std::string, TopicInfo, std::less<>>& topics() const { return topics_; }
  // Dynamic cluster-wide broker configs (AlterConfigs on the broker resource ""); key -> value.
  const std::map<std::string, std::string>& broker_configs() const { return broker_configs_; }
  // Dynamic per-broker configs (AlterConfigs on the broker resource "<node id>"): node id (as
  // the resource names it) -> key -> value. They win over the cluster-wide ones on that node.
  using NodeConfigs = std::map<std::string, std::map<std::string, std::string>, std::less<>>;
  const NodeConfigs& node_configs() const { return node_configs_; }
  // Group configs (share.* keys, KIP-932) by group id; a group without overrides is absent.
  const std::map<std::string, std::map<std::string, std::string>>& group_configs() const {
    return group_configs_;
  }
  // Sorted by name.
  const std::map<std::string, MirrorInfo, std::less<>>& mirrors() const { return mirrors_; }
  const MirrorInfo* mirror(std::string_view name) const;
  // SCRAM users: name -> mechanism code (kScramSha256, kScramSha512) -> credential. A user is
  // listed while it has a credential for at least one mechanism.
  using ScramUsers = std::map<std::string, std::map<int8_t, ScramCredentialInfo>, std::less<>>;
  const ScramUsers& scram_users() const { return scram_users_; }
  // nullptr: the user has no credential for this mechanism.
  const ScramCredentialInfo* scram_credential(std::string_view user, int8_t mechanism) const;
  // The first producer id never handed out (ProducerIdsRecord); 0 on a new cluster.
  int64_t next_producer_id() const { return next_producer_id_; }
  // ACLs by id (AccessControlEntryRecord), and a count of the ACL records applied to this image,
  // which changes whenever the ACL set does (the broker's authorizer follows it).
  const std::map<Uuid, AccessControlEntryRecord>& acls() const { return acls_; }
  uint64_t acl_changes() const { return acl_changes_; }
  // Client quotas (ClientQuotaRecord): entity -> key -> value. Its version() moves on every
  // change, so the broker's quota managers see a changed limit at once.
  const quota::QuotaTable& client_quotas() const { return client_quotas_; }

  // Applies one record that the log assigned `offset`. A record that contradicts the image
  // (a partition of an unknown topic, a second topic with the same name) is a corrupt log:
  // the Status (CORRUPT_MESSAGE) says which record and why, and the image is unchanged.
  // The rules:
  // - offsets strictly increase (a record is never applied twice);
  // - TopicRecord: non-empty name, non-zero id, neither in use;
  // - PartitionRecord: the topic id exists; partition == the topic's partition count creates
  //   the next partition, a lower one changes it (its leader epoch may not go down); others
  //   (gaps, negatives) are refused. Replicas are non-empty without duplicates; the leader is
  //   -1 or one of them;
  // - ConfigRecord: a non-empty key; resource type 2 (topic) names an existing topic and
  //   changes its `configs`; type 4 (broker) with resource_name "" (the cluster-wide default)
  //   changes broker_configs(), with a node id (decimal, >= 0) that node's node_configs();
  //   other types are refused. A nullopt value removes the key (removing an absent key is
  //   fine; a node left without keys is dropped);
  // - RemoveTopicRecord: the topic id exists; the topic, its partitions and configs go;
  // - ProducerIdsRecord: next_producer_id only grows (a lower or equal one is refused) and
  //   stays below 2^62, far from the ids mirroring rewrites to;
  // - MirrorRecord: a non-empty name; configs with non-empty, unique, sorted keys; topic
  //   patterns non-empty and unique; creates the mirror or replaces all of its configs and
  //   patterns;
  // - RemoveMirrorRecord: the mirror exists;
  // - UserScramCredentialRecord: a non-empty name, mechanism 1 or 2, iterations > 0, non-empty
  //   salt and keys; creates or replaces that user's credential for the mechanism;
  // - RemoveUserScramCredentialRecord: the user has a credential for the mechanism.
  // - AccessControlEntryRecord: a non-zero id not in use, a non-empty resource name, principal
  //   and host (the codes are the ACL APIs', checked by the broker before it writes them);
  // - RemoveAccessControlEntryRecord: the ACL exists.
  // - ClientQuotaRecord: the entity is a valid user and/or client-id entity, the key a client
  //   quota key and, unless it is a removal, the value valid for that key (quota_entity.h);
  //   removing a key that is not set is fine.
  Status apply(const MetadataRecord& record, int64_t offset);

  // The image a snapshot holds: `records` (as image_records() wrote them) applied in order,
  // with last_offset() == last_offset. The records do not carry offsets of their own.
  friend Result<MetadataImage> image_from_records(std::span<const MetadataRecord> records,
                                                  int64_t last_offset);

 private:
  Status apply_change(const MetadataRecord& record);
  Status apply_topic(const TopicRecord& r);
  Status apply_partition(const PartitionRecord& r);
  Status apply_config(const ConfigRecord& r);
  Status apply_remove(const RemoveTopicRecord& r);
  Status apply_producer_ids(const ProducerIdsRecord& r);
  Status apply_mirror(const MirrorRecord& r);
  Status apply_remove_mirror(const RemoveMirrorRecord& r);
  Status apply_scram(const UserScramCredentialRecord& r);  // image_scram.cc
  Status apply_remove_scram(const RemoveUserScramCredentialRecord& r);
  Status apply_acl(const AccessControlEntryRecord& r);               // image_acls.cc
  Status apply_remove_acl(const RemoveAccessControlEntryRecord& r);  // image_acls.cc
  Status apply_client_quota(const ClientQuotaRecord& r);             // image_quotas.cc

  int64_t last_offset_ = -1;
  std::map<std::string, TopicInfo, std::less<>> topics_;
  std::unordered_map<Uuid, std::string> names_by_id_;
  std::map<std::string, std::string> broker_configs_;
  NodeConfigs node_configs_;
  std::map<std::string, std::map<std::string, std::string>> group_configs_;
  int64_t next_producer_id_ = 0;
  std::map<std::string, MirrorInfo, std::less<>> mirrors_;
  ScramUsers scram_users_;
  std::map<Uuid, AccessControlEntryRecord> acls_;
  uint64_t acl_changes_ = 0;
  quota::QuotaTable client_quotas_;
};

// Records that rebuild `image` when applied in order to an empty one (for snapshots): per
// topic (by name) its TopicRecord, its PartitionRecords by number, its ConfigRecords; then the
// broker configs, the producer ids, the mirrors, the SCRAM credentials (by user, then
// mechanism), the ACLs (by id) and the client quotas (by entity, then key).
std::vector<MetadataRecord> image_records(const MetadataImage& image);
// The SCRAM part of image_records() (image_scram.cc).
void append_scram_records(const MetadataImage& image, std::vector<MetadataRecord>& out);
// The client-quota part of image_records() (image_quotas.cc).
void append_client_quota_records(const MetadataImage& image, std::vector<MetadataRecord>& out);
Result<MetadataImage> image_from_records(std::span<const MetadataRecord> records,
                                         int64_t last_offset);

}  // namespace mirra::metadata
