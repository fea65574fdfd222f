#include "metadata/acl_records.h"

#include "protocol/wire.h"

namespace mirra::metadata {
namespace {

constexpr bool kCompact = true;  // as every record (records.cc)

}  // namespace

int16_t acl_record_version(const AccessControlEntryRecord& r) {
  return r.mirror.empty() ? 0 : kAccessControlEntryRecordVersion;
}

void write_acl_fields(protocol::Writer& w, const AccessControlEntryRecord& r) {
  w.write_uuid(r.id);
  w.write_int8(r.resource_type);
  w.write_string(kCompact, r.resource_name);
  w.write_int8(r.pattern_type);
  w.write_string(kCompact, r.principal);
  w.write_string(kCompact, r.host);
  w.write_int8(r.operation);
  w.write_int8(r.permission_type);
  if (acl_record_version(r) >= 1) w.write_string(kCompact, r.mirror);
}

void write_acl_fields(protocol::Writer& w, const RemoveAccessControlEntryRecord& r) {
  w.write_uuid(r.id);
}

AccessControlEntryRecord read_access_control_entry(protocol::Reader& r, int16_t version) {
  AccessControlEntryRecord a;
  a.id = r.read_uuid();
  a.resource_type = r.read_int8();
  r.read_string(kCompact, a.resource_name);
  a.pattern_type = r.read_int8();
  r.read_string(kCompact, a.principal);
  r.read_string(kCompact, a.host);
  a.operation = r.read_int8();
  a.permission_type = r.read_int8();
  if (version >= 1) {
    r.read_string(kCompact, a.mirror);
    if (a.mirror.empty() && !r.failed()) r.fail("version 1 ACL with an empty mirror name");
  }
  return a;
}

RemoveAccessControlEntryRecord read_remove_access_control_entry(protocol::Reader& r) {
  return RemoveAccessControlEntryRecord{r.read_uuid()};
}

}  // namespace mirra::metadata
