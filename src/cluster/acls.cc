#include "cluster/acls.h"

#include <set>

namespace mirra::cluster {

security::AclBinding acl_binding(const metadata::AccessControlEntryRecord& r) {
  return security::binding_from_codes(r.resource_type, r.resource_name, r.pattern_type, r.principal,
                                      r.host, r.operation, r.permission_type);
}

metadata::AccessControlEntryRecord acl_record(const Uuid& id, const security::AclBinding& b,
                                              std::string mirror) {
  return metadata::AccessControlEntryRecord{id,
                                            static_cast<int8_t>(b.resource_type),
                                            b.resource_name,
                                            static_cast<int8_t>(b.pattern_type),
                                            b.principal,
                                            b.host,
                                            static_cast<int8_t>(b.operation),
                                            static_cast<int8_t>(b.permission),
                                            std::move(mirror)};
}

std::vector<metadata::MetadataRecord> new_acl_records(
    const metadata::MetadataImage& image, const std::vector<security::AclBinding>& wanted,
    const std::string& mirror) {
  std::set<security::AclBinding> known;
  for (const auto& [id, r] : image.acls()) known.insert(acl_binding(r));
  std::vector<metadata::MetadataRecord> out;
  std::set<Uuid> taken;  // ids of this batch: not in the image until it is applied
  for (const security::AclBinding& b : wanted) {
    if (!known.insert(b).second) continue;
    Uuid id = Uuid::random();
    while (id.is_zero() || image.acls().contains(id) || taken.contains(id)) id = Uuid::random();
    taken.insert(id);
    out.emplace_back(acl_record(id, b, mirror));
  }
  return out;
}

}  // namespace mirra::cluster
