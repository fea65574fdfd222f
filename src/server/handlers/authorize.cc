#include "server/handlers/authorize.h"

#include "cluster/metadata_store.h"

namespace mirra::server {

using security::AclOperation;
using security::ResourceType;

void sync_authorizer(BrokerState& state) {
  if (state.authorizer == nullptr || state.metadata == nullptr) return;
  const metadata::MetadataImage& image = state.metadata->image();
  if (state.authorizer->source_version() == image.acl_changes()) return;
  std::vector<security::AclBinding> acls;
  acls.reserve(image.acls().size());
  for (const auto& [id, r] : image.acls()) acls.push_back(acl_binding(r));
  state.authorizer->set_acls(acls, image.acl_changes());
}

bool authorized(RequestContext& ctx, AclOperation op, ResourceType type, std::string_view name) {
  if (ctx.broker->authorizer == nullptr) return true;
  sync_authorizer(*ctx.broker);
  return ctx.broker->authorizer->authorize(ctx.connection->principal, ctx.connection->host, op,
                                           type, name);
}

bool authorized_any(RequestContext& ctx, AclOperation op, ResourceType type) {
  if (ctx.broker->authorizer == nullptr) return true;
  sync_authorizer(*ctx.broker);
  return ctx.broker->authorizer->authorize_any(ctx.connection->principal, ctx.connection->host, op,
                                               type);
}

security::AclBinding acl_binding(const metadata::AccessControlEntryRecord& r) {
  return security::AclBinding{security::resource_type_from_code(r.resource_type),
                              r.resource_name,
                              security::pattern_type_from_code(r.pattern_type),
                              r.principal,
                              r.host,
                              security::acl_operation_from_code(r.operation),
                              security::permission_type_from_code(r.permission_type)};
}

metadata::AccessControlEntryRecord acl_record(const Uuid& id, const security::AclBinding& b) {
  return metadata::AccessControlEntryRecord{id,
                                            static_cast<int8_t>(b.resource_type),
                                            b.resource_name,
                                            static_cast<int8_t>(b.pattern_type),
                                            b.principal,
                                            b.host,
                                            static_cast<int8_t>(b.operation),
                                            static_cast<int8_t>(b.permission)};
}

}  // namespace mirra::server
