// Authorization in the handlers: one question per check, asked of the broker's authorizer
// (security/acl.h) with the connection's principal and address. Without an authorizer
// (authorizer.class.name unset) everything is allowed, as in Kafka.
#pragma once

#include <string_view>
#include <vector>

#include "metadata/image.h"
#include "security/acl.h"
#include "server/request_context.h"

namespace mirra::server {

// May the request's principal, from its host, do `op` on the resource? True without an
// authorizer.
bool authorized(RequestContext& ctx, security::AclOperation op, security::ResourceType type,
                std::string_view name);
// May it do `op` on some resource of the type (KIP-679's "WRITE on any topic")? True without an
// authorizer.
bool authorized_any(RequestContext& ctx, security::AclOperation op, security::ResourceType type);

// Brings the broker's authorizer (if any) up to date with the ACLs of the metadata image: a
// no-op while the image's ACLs are unchanged since the last call, so every check may call it.
void sync_authorizer(BrokerState& state);

// An ACL as the image stores it, as the authorizer and the ACL APIs see it, and back.
security::AclBinding acl_binding(const metadata::AccessControlEntryRecord& r);
metadata::AccessControlEntryRecord acl_record(const Uuid& id, const security::AclBinding& b);

}  // namespace mirra::server
