// The ACLs of the metadata log as the rest of the broker sees them: the image's records
// (metadata/acl_records.h, wire codes) as security::AclBinding and back, and the records that add
// ACLs, shared by CreateAcls (server) and a mirror's ACL sync (mirror), so that both write an
// ACL the same way: only ACLs the image does not hold yet, each under a fresh id.
//
// Pure: unit-tested in tests/cluster/acls_test.cc.
#pragma once

#include <string>
#include <vector>

#include "base/uuid.h"
#include "metadata/image.h"
#include "metadata/records.h"
#include "security/acl.h"

namespace mirra::cluster {

security::AclBinding acl_binding(const metadata::AccessControlEntryRecord& r);
// `mirror`: the mirror whose ACL sync creates it; empty for an ACL made here.
metadata::AccessControlEntryRecord acl_record(const Uuid& id, const security::AclBinding& b,
                                              std::string mirror = {});

// The records adding the ACLs of `wanted` that the image does not hold yet (an identical ACL,
// whoever made it, counts as held; one listed twice is added once), owned by `mirror` (empty:
// made here).
std::vector<metadata::MetadataRecord> new_acl_records(
    const metadata::MetadataImage& image, const std::vector<security::AclBinding>& wanted,
    const std::string& mirror = {});

}  // namespace mirra::cluster
