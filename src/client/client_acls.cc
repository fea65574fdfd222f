// Client's ACL calls (CreateAcls, DescribeAcls, DeleteAcls), sent to any broker: every broker
// answers them from the cluster's metadata. A broker without an authorizer answers
// SECURITY_DISABLED, which comes back as the Status.
#include "client/client.h"
#include "client/client_routing.h"

namespace mirra::client {
namespace {

auto never_misrouted = [](const auto&) { return false; };

template <typename Acl>
security::AclBinding binding_of(int8_t type, const std::string& name, int8_t pattern,
                                const Acl& a) {
  return security::binding_from_codes(type, name, pattern, a.principal, a.host, a.operation,
                                      a.permission_type);
}

// A filter's fields into a DescribeAcls request or a DeleteAcls filter.
template <typename Out>
void fill_filter(Out& out, const security::AclBindingFilter& f) {
  out.resource_type_filter = static_cast<int8_t>(f.resource_type);
  out.resource_name_filter = f.resource_name;
  out.pattern_type_filter = static_cast<int8_t>(f.pattern_type);
  out.principal_filter = f.principal;
  out.host_filter = f.host;
  out.operation = static_cast<int8_t>(f.operation);
  out.permission_type = static_cast<int8_t>(f.permission);
}

}  // namespace

asio::awaitable<Result<std::vector<Status>>> Client::create_acls(
    std::vector<security::AclBinding> acls) {
  protocol::CreateAclsRequest req;
  for (const security::AclBinding& b : acls) {
    auto& c = req.creations.emplace_back();
    c.resource_type = static_cast<int8_t>(b.resource_type);
    c.resource_name = b.resource_name;
    c.resource_pattern_type = static_cast<int8_t>(b.pattern_type);
    c.principal = b.principal;
    c.host = b.host;
    c.operation = static_cast<int8_t>(b.operation);
    c.permission_type = static_cast<int8_t>(b.permission);
  }
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  const auto& results = reply->body.results;
  if (results.size() != acls.size())
    co_return Status(ErrorCode::CORRUPT_MESSAGE,
                     "CreateAcls answered " + std::to_string(results.size()) + " results for " +
                         std::to_string(acls.size()) + " ACLs");
  std::vector<Status> out;
  for (size_t i = 0; i < results.size(); ++i) {
    out.push_back(status_from(results[i].error_code, results[i].error_message,
                              security::resource_pattern_string(acls[i])));
  }
  co_return out;
}

asio::awaitable<Result<std::vector<security::AclBinding>>> Client::describe_acls(
    security::AclBindingFilter filter) {
  protocol::DescribeAclsRequest req;
  fill_filter(req, filter);
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  const auto& body = reply->body;
  if (Status s = status_from(body.error_code, body.error_message, "describe ACLs"); !s.ok())
    co_return s;
  std::vector<security::AclBinding> out;
  for (const auto& r : body.resources) {
    for (const auto& a : r.acls)
      out.push_back(binding_of(r.resource_type, r.resource_name, r.pattern_type, a));
  }
  co_return out;
}

asio::awaitable<Result<std::vector<AclDeletion>>> Client::delete_acls(
    std::vector<security::AclBindingFilter> filters) {
  protocol::DeleteAclsRequest req;
  for (const security::AclBindingFilter& f : filters) fill_filter(req.filters.emplace_back(), f);
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  const auto& results = reply->body.filter_results;
  if (results.size() != filters.size())
    co_return Status(ErrorCode::CORRUPT_MESSAGE,
                     "DeleteAcls answered " + std::to_string(results.size()) + " results for " +
                         std::to_string(filters.size()) + " filters");
  std::vector<AclDeletion> out;
  for (const auto& r : results) {
    AclDeletion& d = out.emplace_back();
    d.status = status_from(r.error_code, r.error_message, "delete ACLs");
    for (const auto& m : r.matching_acls) {
      if (m.error_code != 0) {
        d.status = status_from(m.error_code, m.error_message, "delete ACLs");
        continue;
      }
      d.deleted.push_back(binding_of(m.resource_type, m.resource_name, m.pattern_type, m));
    }
  }
  co_return out;
}

}  // namespace mirra::client
