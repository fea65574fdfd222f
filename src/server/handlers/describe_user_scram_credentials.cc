// DescribeUserScramCredentials (key 50): each user's SCRAM mechanisms and iteration counts,
// never a salt or a key. No users (null or empty) describes every user that has a credential;
// named users are answered one row each, in the order asked: RESOURCE_NOT_FOUND for a user
// without a credential, DUPLICATE_RESOURCE (one row) for a user named twice, as Kafka does.
#include "protocol/messages/describe_user_scram_credentials.h"

#include <map>

#include <fmt/format.h>

#include "cluster/metadata_store.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using DescribeResponse = protocol::DescribeUserScramCredentialsResponse;
using UserResult = DescribeResponse::DescribeUserScramCredentialsResult;

UserResult describe_user(const std::string& user, const metadata::MetadataImage& image) {
  UserResult out;
  out.user = user;
  out.error_message = std::nullopt;
  auto it = image.scram_users().find(user);
  if (it == image.scram_users().end()) {
    out.error_code = error_number(ErrorCode::RESOURCE_NOT_FOUND);
    out.error_message =
        fmt::format("Attempt to describe a user credential that does not exist: {}", user);
    return out;
  }
  for (const auto& [mechanism, credential] : it->second) {
    auto& info = out.credential_infos.emplace_back();
    info.mechanism = mechanism;
    info.iterations = credential.iterations;
  }
  return out;
}

}  // namespace

asio::awaitable<HandlerResult> handle_describe_user_scram_credentials(RequestContext& ctx) {
  auto req = decode_body<protocol::DescribeUserScramCredentialsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  // DESCRIBE on the cluster, else the top-level error and no user.
  if (auto refused = refuse_unless_on_cluster<DescribeResponse>(ctx, AclOperation::describe)) {
    co_return respond(ctx, *refused);
  }
  const metadata::MetadataImage& image = ctx.broker->metadata->image();
  DescribeResponse resp;
  resp.error_message = std::nullopt;
  if (!req->users || req->users->empty()) {
    for (const auto& [user, credentials] : image.scram_users()) {
      resp.results.push_back(describe_user(user, image));
    }
    co_return respond(ctx, resp);
  }
  std::map<std::string, int> times_named;
  for (const auto& u : *req->users) ++times_named[u.name];
  for (const auto& u : *req->users) {
    int& n = times_named[u.name];
    if (n == 0) continue;  // a duplicate already answered
    if (n > 1) {
      UserResult& dup = resp.results.emplace_back();
      dup.user = u.name;
      dup.error_code = error_number(ErrorCode::DUPLICATE_RESOURCE);
      dup.error_message = fmt::format(
          "Cannot describe SCRAM credentials for the same user twice in a single request: {}",
          u.name);
    } else {
      resp.results.push_back(describe_user(u.name, image));
    }
    n = 0;
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
