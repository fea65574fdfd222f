#include "server/handlers/authorize.h"

#include "cluster/acls.h"
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
  for (const auto& [id, r] : image.acls()) acls.push_back(cluster::acl_binding(r));
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

}  // namespace mirra::server
