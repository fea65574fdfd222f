// The metadata record of client quotas (Kafka's ClientQuotaRecord, with Kafka's record type
// number): one key of one entity set or removed. The entity is kept in its wire form (type
// strings "user" / "client-id", a null name for the default entity); the image checks it with
// the quota module's rules (docs/formats/metadata.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mirra::protocol {
class Reader;
class Writer;
}  // namespace mirra::protocol

namespace mirra::metadata {

struct QuotaEntityPart {
  std::string entity_type;          // "user" or "client-id"
  std::optional<std::string> name;  // nullopt: the default entity

  bool operator==(const QuotaEntityPart&) const = default;
};

// `key` of `entity` is set to `value`, or removed (`remove`, value ignored and written as 0).
struct ClientQuotaRecord {
  std::vector<QuotaEntityPart> entity;  // user part first, as quota::entity_to_wire gives it
  std::string key;
  double value = 0;
  bool remove = false;

  bool operator==(const ClientQuotaRecord&) const = default;
};

inline constexpr int16_t kClientQuotaRecordType = 14;

// Field encodings (records.cc frames them with the type and version).
void write_client_quota_fields(protocol::Writer& w, const ClientQuotaRecord& r);
ClientQuotaRecord read_client_quota(protocol::Reader& r);

}  // namespace mirra::metadata
