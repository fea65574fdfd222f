// ClusterSyncDestination's ACLs (cluster_sync_destination.h): the ACL sync's view of the
// metadata log's ACLs, each with the mirror that made it (AccessControlEntryRecord v1,
// docs/formats/metadata.md), and its changes, written as CreateAcls writes ACLs
// (cluster::new_acl_records). The broker's authorizer picks a change up at its next check.
#include <set>

#include "cluster/acls.h"
#include "cluster/metadata_store.h"
#include "mirror/cluster_sync_destination.h"

namespace mirra::mirror {

Result<std::vector<DestinationAcl>> ClusterSyncDestination::acls() const {
  if (!authorizer_) {
    return Status(ErrorCode::SECURITY_DISABLED,
                  "this broker has no authorizer (authorizer.class.name is not set): ACLs are "
                  "not synced");
  }
  std::vector<DestinationAcl> out;
  for (const auto& [id, r] : store_.image().acls()) {
    out.push_back({cluster::acl_binding(r), r.mirror});
  }
  return out;
}

asio::awaitable<Status> ClusterSyncDestination::change_acls(
    const std::string& mirror, std::vector<security::AclBinding> add,
    std::vector<security::AclBinding> remove) {
  MIRRA_ASSERT(!mirror.empty(), "an ACL sync change needs its mirror's name");
  if (!authorizer_) co_return acls().status();
  const std::set<security::AclBinding> gone(remove.begin(), remove.end());
  // Against the image the change applies to: an ACL removed meanwhile (DeleteAcls) is not
  // removed twice, one created meanwhile is not created twice.
  auto build =
      [&](const metadata::MetadataImage& image) -> Result<std::vector<metadata::MetadataRecord>> {
    std::vector<metadata::MetadataRecord> records = cluster::new_acl_records(image, add, mirror);
    for (const auto& [id, r] : image.acls()) {
      if (r.mirror == mirror && gone.contains(cluster::acl_binding(r))) {
        records.emplace_back(metadata::RemoveAccessControlEntryRecord{id});
      }
    }
    return records;
  };
  co_return co_await store_.change(build);
}

}  // namespace mirra::mirror
