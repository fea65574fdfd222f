// The metadata records of ACLs (Kafka's AccessControlEntryRecord and
// RemoveAccessControlEntryRecord, with Kafka's record type numbers). Their fields are the wire
// codes of the ACL admin APIs (security/acl.h names them); the metadata module keeps them as
// plain data and checks only what the image needs (docs/formats/metadata.md).
#pragma once

#include <cstdint>
#include <string>

#include "base/uuid.h"

namespace mirra::protocol {
class Reader;
class Writer;
}  // namespace mirra::protocol

namespace mirra::metadata {

// An ACL exists under `id` (random, never reused).
struct AccessControlEntryRecord {
  Uuid id;
  int8_t resource_type = 0;
  std::string resource_name;
  int8_t pattern_type = 0;
  std::string principal;
  std::string host;
  int8_t operation = 0;
  int8_t permission_type = 0;

  bool operator==(const AccessControlEntryRecord&) const = default;
};

// The ACL with this id is gone.
struct RemoveAccessControlEntryRecord {
  Uuid id;

  bool operator==(const RemoveAccessControlEntryRecord&) const = default;
};

inline constexpr int16_t kAccessControlEntryRecordType = 6;
inline constexpr int16_t kRemoveAccessControlEntryRecordType = 7;

// Field encodings (records.cc frames them with the type and version).
void write_acl_fields(protocol::Writer& w, const AccessControlEntryRecord& r);
void write_acl_fields(protocol::Writer& w, const RemoveAccessControlEntryRecord& r);
AccessControlEntryRecord read_access_control_entry(protocol::Reader& r);
RemoveAccessControlEntryRecord read_remove_access_control_entry(protocol::Reader& r);

}  // namespace mirra::metadata
