// The image's ACLs (metadata/image.h): kept apart from image.cc so that the record kinds grow
// side by side.
#include <fmt/format.h>

#include "metadata/image.h"

namespace mirra::metadata {

Status MetadataImage::apply_acl(const AccessControlEntryRecord& r) {
  auto refuse = [&](std::string why) {
    return Status(ErrorCode::CORRUPT_MESSAGE, fmt::format("ACL {}: {}", r.id.to_string(), why));
  };
  if (r.id.is_zero()) return refuse("the zero id");
  if (acls_.contains(r.id)) return refuse("the id is in use");
  if (r.resource_name.empty()) return refuse("empty resource name");
  if (r.principal.empty()) return refuse("empty principal");
  if (r.host.empty()) return refuse("empty host");
  acls_.emplace(r.id, r);
  ++acl_changes_;
  return Status::OK();
}

Status MetadataImage::apply_remove_acl(const RemoveAccessControlEntryRecord& r) {
  if (acls_.erase(r.id) == 0)
    return Status(ErrorCode::CORRUPT_MESSAGE,
                  fmt::format("remove of unknown ACL {}", r.id.to_string()));
  ++acl_changes_;
  return Status::OK();
}

}  // namespace mirra::metadata
