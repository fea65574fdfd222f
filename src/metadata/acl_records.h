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
  // The mirror whose ACL sync created it (version 1), which alone removes it when the source's
  // ACL is gone (docs/mirroring-design.md §8); empty for an ACL made here (CreateAcls).
  std::string mirror;

  bool operator==(const AccessControlEntryRecord&) const = default;
};

// The ACL with this id is gone.
struct RemoveAccessControlEntryRecord {
  Uuid id;

  bool operator==(const RemoveAccessControlEntryRecord&) const = default;
};

inline constexpr int16_t kAccessControlEntryRecordType = 6;
inline constexpr int16_t kRemoveAccessControlEntryRecordType = 7;
// AccessControlEntryRecord: version 1 adds `mirror`. An ACL made here is written as version 0.
inline constexpr int16_t kAccessControlEntryRecordVersion = 1;

// Field encodings (records.cc frames them with the type and version).
int16_t acl_record_version(const AccessControlEntryRecord& r);  // the oldest that holds it
void write_acl_fields(protocol::Writer& w, const AccessControlEntryRecord& r);
void write_acl_fields(protocol::Writer& w, const RemoveAccessControlEntryRecord& r);
AccessControlEntryRecord read_access_control_entry(protocol::Reader& r, int16_t version);
RemoveAccessControlEntryRecord read_remove_access_control_entry(protocol::Reader& r);

}  // namespace mirra::metadata
