// Client's SCRAM user calls. Any broker answers them (each serves the metadata it holds).
#include <fmt/format.h>

#include "client/client.h"
#include "client/client_routing.h"

namespace mirra::client {
namespace {

auto never_misrouted = [](const auto&) { return false; };

protocol::Bytes bytes_of(const std::string& s) { return protocol::Bytes(s.begin(), s.end()); }

}  // namespace

asio::awaitable<Result<std::vector<UserScramCredentials>>> Client::describe_user_scram_credentials(
    std::optional<std::vector<std::string>> users) {
  protocol::DescribeUserScramCredentialsRequest req;
  if (users) {
    req.users.emplace();
    for (auto& u : *users) req.users->emplace_back().name = std::move(u);
  }
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  const auto& body = reply->body;
  if (Status s = status_from(body.error_code, body.error_message, "describe SCRAM users"); !s.ok())
    co_return s;
  std::vector<UserScramCredentials> out;
  for (const auto& r : body.results) {
    UserScramCredentials& u = out.emplace_back();
    u.user = r.user;
    u.status = status_from(r.error_code, r.error_message, "user " + r.user);
    for (const auto& c : r.credential_infos) {
      auto m = security::scram_mechanism_from_code(c.mechanism);
      if (!m) continue;  // a mechanism this build does not know: nothing to show for it
      u.credentials.push_back({*m, c.iterations});
    }
  }
  co_return out;
}

asio::awaitable<Result<std::vector<ScramUserResult>>> Client::alter_user_scram_credentials(
    std::vector<ScramDeletion> deletions, std::vector<ScramUpsertion> upsertions) {
  protocol::AlterUserScramCredentialsRequest req;
  for (const ScramDeletion& d : deletions) {
    auto& out = req.deletions.emplace_back();
    out.name = d.user;
    out.mechanism = static_cast<int8_t>(d.mechanism);
  }
  for (const ScramUpsertion& u : upsertions) {
    if (u.salted_password && !u.salt)
      co_return Status(ErrorCode::INVALID_REQUEST,
                       fmt::format("user {}: a salted password needs its salt", u.user));
    // Hashing happens here, so a count the broker would refuse anyway is refused before
    // PBKDF2 runs (zero would be invalid, a huge one would take forever).
    if (!u.salted_password && (u.iterations < security::kScramMinIterations ||
                               u.iterations > security::kScramMaxIterations))
      co_return Status(ErrorCode::UNACCEPTABLE_CREDENTIAL,
                       fmt::format("user {}: iterations must be between {} and {}, not {}", u.user,
                                   security::kScramMinIterations, security::kScramMaxIterations,
                                   u.iterations));
    auto& out = req.upsertions.emplace_back();
    out.name = u.user;
    out.mechanism = static_cast<int8_t>(u.mechanism);
    out.iterations = u.iterations;
    const std::string salt = u.salt.value_or(security::scram_random_salt());
    out.salt = bytes_of(salt);
    out.salted_password = u.salted_password ? bytes_of(*u.salted_password)
                                            : bytes_of(security::scram_salted_password(
                                                  u.mechanism, u.password, salt, u.iterations));
  }
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  std::vector<ScramUserResult> out;
  for (const auto& r : reply->body.results) {
    out.push_back({r.user, status_from(r.error_code, r.error_message, "user " + r.user)});
  }
  co_return out;
}

}  // namespace mirra::client
