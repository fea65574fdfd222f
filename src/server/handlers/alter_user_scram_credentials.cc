// AlterUserScramCredentials (key 51): creates, replaces and deletes users' SCRAM credentials,
// with the rules of Kafka's KRaft controller:
//   - a user named more than once in one request (deletions and upsertions together, whatever
//     the mechanisms) is DUPLICATE_RESOURCE, and none of its changes happen;
//   - an empty user name is UNACCEPTABLE_CREDENTIAL, an unknown mechanism
//     UNSUPPORTED_SASL_MECHANISM, iterations outside 4096..16384 UNACCEPTABLE_CREDENTIAL;
//   - deleting a credential the user does not have is RESOURCE_NOT_FOUND.
// The client sends the salt and the salted password; the broker derives StoredKey and ServerKey
// and keeps only those (never the salted password). Every accepted change of the request is one
// metadata change; one result per user, in the order users first appear.
#include "protocol/messages/alter_user_scram_credentials.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cluster/metadata_store.h"
#include "security/scram.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using Request = protocol::AlterUserScramCredentialsRequest;
using Deletion = Request::ScramCredentialDeletion;
using Upsertion = Request::ScramCredentialUpsertion;

constexpr std::string_view kTwice = "A user credential cannot be altered twice in the same request";

// One user of the request: its single change, or why it is refused.
struct UserChange {
  const Deletion* deletion = nullptr;
  const Upsertion* upsertion = nullptr;
  Status status;
};

Status unacceptable(std::string message) {
  return Status(ErrorCode::UNACCEPTABLE_CREDENTIAL, std::move(message));
}

Status check_name_and_mechanism(const std::string& name, int8_t mechanism) {
  if (name.empty()) return unacceptable("Username must not be empty");
  if (!security::scram_mechanism_from_code(mechanism))
    return Status(ErrorCode::UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism");
  return Status::OK();
}

Status check_deletion(const Deletion& d, const metadata::MetadataImage& image) {
  if (Status s = check_name_and_mechanism(d.name, d.mechanism); !s.ok()) return s;
  if (image.scram_credential(d.name, d.mechanism) == nullptr)
    return Status(ErrorCode::RESOURCE_NOT_FOUND,
                  "Attempt to delete a user credential that does not exist");
  return Status::OK();
}

// Messages never show the salt or the salted password.
Status check_upsertion(const Upsertion& u) {
  if (Status s = check_name_and_mechanism(u.name, u.mechanism); !s.ok()) return s;
  if (u.iterations < security::kScramMinIterations) return unacceptable("Too few iterations");
  if (u.iterations > security::kScramMaxIterations) return unacceptable("Too many iterations");
  if (u.salt.empty() || u.salted_password.empty())
    return unacceptable("Salt and salted password must not be empty");
  return Status::OK();
}

// Sorts the request into one change per user (users in first-seen order).
std::vector<std::pair<std::string, UserChange>> plan(const Request& req,
                                                     const metadata::MetadataImage& image) {
  std::vector<std::pair<std::string, UserChange>> users;
  std::map<std::string, size_t> index;
  auto add = [&](const std::string& name, const Deletion* d, const Upsertion* u) {
    auto [it, fresh] = index.emplace(name, users.size());
    if (!fresh) {
      UserChange& c = users[it->second].second;
      // A refused user stays refused for its first reason, as in Kafka.
      if (c.status.ok())
        c = UserChange{nullptr, nullptr,
                       Status(ErrorCode::DUPLICATE_RESOURCE, std::string(kTwice))};
      return;
    }
    Status s = d != nullptr ? check_deletion(*d, image) : check_upsertion(*u);
    users.emplace_back(name, UserChange{d, u, std::move(s)});
  };
  for (const Deletion& d : req.deletions) add(d.name, &d, nullptr);
  for (const Upsertion& u : req.upsertions) add(u.name, nullptr, &u);
  return users;
}

metadata::MetadataRecord record_of(const std::string& name, const UserChange& c) {
  if (c.deletion != nullptr)
    return metadata::RemoveUserScramCredentialRecord{name, c.deletion->mechanism};
  const Upsertion& u = *c.upsertion;
  const auto mechanism = *security::scram_mechanism_from_code(u.mechanism);
  const std::string salted(u.salted_password.begin(), u.salted_password.end());
  security::ScramCredential k = security::scram_credential(
      mechanism, salted, std::string(u.salt.begin(), u.salt.end()), u.iterations);
  return metadata::UserScramCredentialRecord{
      name,        u.mechanism, std::move(k.salt), std::move(k.stored_key), std::move(k.server_key),
      k.iterations};
}

}  // namespace

asio::awaitable<HandlerResult> handle_alter_user_scram_credentials(RequestContext& ctx) {
  auto req = decode_body<Request>(ctx);
  if (!req.ok()) co_return req.status();
  std::vector<std::pair<std::string, UserChange>> users;
  const Request& r = req.value();
  // ALTER on the cluster, else every user of the request is refused and nothing changes.
  if (!authorized_on_cluster(ctx, AclOperation::alter)) {
    protocol::AlterUserScramCredentialsResponse refused;
    std::set<std::string> names;
    for (const auto& d : r.deletions) names.insert(d.name);
    for (const auto& u : r.upsertions) names.insert(u.name);
    for (const std::string& name : names) {
      auto& out = refused.results.emplace_back();
      out.user = name;
      out.error_code = error_number(ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
      out.error_message = cluster_authorization_failed(AclOperation::alter).message();
    }
    co_return respond(ctx, refused);
  }
  cluster::ChangeBuilder build =
      [&](const metadata::MetadataImage& image) -> Result<std::vector<metadata::MetadataRecord>> {
    users = plan(r, image);
    std::vector<metadata::MetadataRecord> records;
    for (const auto& [name, c] : users) {
      if (c.status.ok()) records.push_back(record_of(name, c));
    }
    return records;
  };
  Status written = co_await ctx.broker->metadata->change(std::move(build));
  protocol::AlterUserScramCredentialsResponse resp;
  for (const auto& [name, c] : users) {
    auto& out = resp.results.emplace_back();
    out.user = name;
    // A failed metadata write fails every change the request would have made.
    const Status& s = c.status.ok() ? written : c.status;
    out.error_code = error_number(s.code());
    out.error_message = s.ok() ? std::nullopt : std::optional<std::string>(s.message());
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
