// DescribeUserScramCredentials and AlterUserScramCredentials through the whole request path of
// an in-process broker: Kafka's errors (duplicates, unknown users and credentials, mechanisms,
// iterations), success then describe, and no secret in any answer's bytes.
#include "server/in_process_broker.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cluster/metadata_store.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "security/scram.h"
#include "server/scram_lookup.h"

namespace mirra::server {
namespace {

using AlterRequest = protocol::AlterUserScramCredentialsRequest;
using AlterResponse = protocol::AlterUserScramCredentialsResponse;
using DescribeRequest = protocol::DescribeUserScramCredentialsRequest;
using DescribeResponse = protocol::DescribeUserScramCredentialsResponse;

constexpr int8_t kSha256 = 1;
constexpr int8_t kSha512 = 2;

protocol::Bytes bytes_of(std::string_view s) { return protocol::Bytes(s.begin(), s.end()); }

// An upsertion as a client makes it: salt and salted password from the password.
AlterRequest::ScramCredentialUpsertion upsertion(const std::string& user, int8_t mechanism,
                                                 int32_t iterations,
                                                 const std::string& salt = "pepper-and-salt") {
  AlterRequest::ScramCredentialUpsertion u;
  u.name = user;
  u.mechanism = mechanism;
  u.iterations = iterations;
  u.salt = bytes_of(salt);
  const auto m = security::scram_mechanism_from_code(mechanism);
  // An unknown mechanism still needs some salted password to send.
  u.salted_password = bytes_of(security::scram_salted_password(
      m.value_or(security::ScramMechanism::sha256), "alice-secret", salt, 4096));
  return u;
}

AlterRequest::ScramCredentialDeletion deletion(const std::string& user, int8_t mechanism) {
  return {user, mechanism, {}};
}

class ScramUsersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b = InProcessBroker::start();
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
  }

  AlterResponse alter(const AlterRequest& req) {
    auto resp = broker_->call<AlterResponse>(req, 0);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    return resp.ok() ? resp.value() : AlterResponse{};
  }

  DescribeResponse describe(std::optional<std::vector<std::string>> users) {
    DescribeRequest req;
    if (users) {
      req.users.emplace();
      for (auto& u : *users) req.users->push_back({u, {}});
    }
    auto resp = broker_->call<DescribeResponse>(req, 0);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    return resp.ok() ? resp.value() : DescribeResponse{};
  }

  // The response frame's bytes as the connection would send them.
  template <typename Req>
  protocol::Bytes raw(const Req& req) {
    protocol::RequestHeader h;
    h.request_api_key = Req::kApiKey;
    h.request_api_version = 0;
    h.correlation_id = 77;
    h.client_id = "test";
    protocol::Bytes frame = protocol::encode_request_frame(h, req);
    auto r = broker_->dispatch(std::span<uint8_t>(frame).subspan(protocol::kFrameSizeBytes));
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->bytes : protocol::Bytes{};
  }

  const metadata::MetadataImage& image() { return broker_->state().metadata->image(); }

  std::unique_ptr<InProcessBroker> broker_;
};

// One user's answer: code and message.
struct Outcome {
  int16_t code;
  std::optional<std::string> message;
};

Outcome of(const AlterResponse& r, const std::string& user) {
  for (const auto& x : r.results) {
    if (x.user == user) return {x.error_code, x.error_message};
  }
  ADD_FAILURE() << "no result for " << user;
  return {-1, std::nullopt};
}

int16_t code(ErrorCode e) { return error_number(e); }

TEST_F(ScramUsersTest, ApiVersionsAdvertisesBothAtV0) {
  auto resp = broker_->call<protocol::ApiVersionsResponse>(protocol::ApiVersionsRequest{}, 3);
  ASSERT_TRUE(resp.ok()) << resp.status().to_string();
  int found = 0;
  for (const auto& k : resp->api_keys) {
    if (k.api_key != 50 && k.api_key != 51) continue;
    ++found;
    EXPECT_EQ(k.min_version, 0);
    EXPECT_EQ(k.max_version, 0);
  }
  EXPECT_EQ(found, 2);
}

TEST_F(ScramUsersTest, UpsertThenDescribe) {
  AlterRequest req;
  req.upsertions = {upsertion("alice", kSha256, 8192), upsertion("bob", kSha512, 4096)};
  const AlterResponse r = alter(req);
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].user, "alice");
  EXPECT_EQ(r.results[0].error_code, 0);
  EXPECT_FALSE(r.results[0].error_message.has_value());
  EXPECT_EQ(r.results[1].user, "bob");
  EXPECT_EQ(r.results[1].error_code, 0);

  // The second mechanism of alice, in a request of its own.
  AlterRequest more;
  more.upsertions = {upsertion("alice", kSha512, 16384)};
  EXPECT_EQ(of(alter(more), "alice").code, 0);

  const DescribeResponse all = describe(std::nullopt);
  EXPECT_EQ(all.error_code, 0);
  ASSERT_EQ(all.results.size(), 2u);
  EXPECT_EQ(all.results[0].user, "alice");
  ASSERT_EQ(all.results[0].credential_infos.size(), 2u);
  EXPECT_EQ(all.results[0].credential_infos[0].mechanism, kSha256);
  EXPECT_EQ(all.results[0].credential_infos[0].iterations, 8192);
  EXPECT_EQ(all.results[0].credential_infos[1].mechanism, kSha512);
  EXPECT_EQ(all.results[0].credential_infos[1].iterations, 16384);
  EXPECT_EQ(all.results[1].user, "bob");
  ASSERT_EQ(all.results[1].credential_infos.size(), 1u);
  EXPECT_EQ(all.results[1].credential_infos[0].iterations, 4096);
  EXPECT_EQ(describe(std::vector<std::string>{}).results.size(), 2u);  // empty: all users

  const DescribeResponse named = describe(std::vector<std::string>{"bob"});
  ASSERT_EQ(named.results.size(), 1u);
  EXPECT_EQ(named.results[0].user, "bob");
  EXPECT_EQ(named.results[0].error_code, 0);

  // The image holds what SCRAM derives from the salted password, not the salted password.
  const auto u = upsertion("alice", kSha256, 8192);
  const auto want = security::scram_credential(
      security::ScramMechanism::sha256,
      std::string(u.salted_password.begin(), u.salted_password.end()), "pepper-and-salt", 8192);
  const metadata::ScramCredentialInfo* got = image().scram_credential("alice", kSha256);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->salt, want.salt);
  EXPECT_EQ(got->stored_key, want.stored_key);
  EXPECT_EQ(got->server_key, want.server_key);
  EXPECT_EQ(got->iterations, 8192);
  // And the security module sees the same through the lookup SASL will use.
  EXPECT_EQ(scram_credential_of(image(), "alice", security::ScramMechanism::sha256), want);
  EXPECT_EQ(scram_credential_of(image(), "bob", security::ScramMechanism::sha256), std::nullopt);
}

TEST_F(ScramUsersTest, DeleteOneMechanismThenTheUser) {
  AlterRequest add;
  add.upsertions = {upsertion("alice", kSha256, 4096)};
  ASSERT_EQ(of(alter(add), "alice").code, 0);
  add.upsertions = {upsertion("alice", kSha512, 4096)};
  ASSERT_EQ(of(alter(add), "alice").code, 0);

  AlterRequest del;
  del.deletions = {deletion("alice", kSha512)};
  EXPECT_EQ(of(alter(del), "alice").code, 0);
  DescribeResponse d = describe(std::vector<std::string>{"alice"});
  ASSERT_EQ(d.results.size(), 1u);
  ASSERT_EQ(d.results[0].credential_infos.size(), 1u);
  EXPECT_EQ(d.results[0].credential_infos[0].mechanism, kSha256);

  // Deleting it again: the credential is gone.
  const Outcome again = of(alter(del), "alice");
  EXPECT_EQ(again.code, code(ErrorCode::RESOURCE_NOT_FOUND));
  EXPECT_EQ(again.message, "Attempt to delete a user credential that does not exist");

  del.deletions = {deletion("alice", kSha256)};
  EXPECT_EQ(of(alter(del), "alice").code, 0);
  d = describe(std::vector<std::string>{"alice"});
  ASSERT_EQ(d.results.size(), 1u);
  EXPECT_EQ(d.results[0].error_code, code(ErrorCode::RESOURCE_NOT_FOUND));
  EXPECT_EQ(d.results[0].error_message,
            "Attempt to describe a user credential that does not exist: alice");
  EXPECT_TRUE(describe(std::nullopt).results.empty());
}

TEST_F(ScramUsersTest, AUserTwiceInOneRequestIsADuplicateAndNothingChanges) {
  const int64_t before = image().last_offset();
  AlterRequest two_upserts;  // whatever the mechanisms, as Kafka's KRaft controller
  two_upserts.upsertions = {upsertion("alice", kSha256, 4096), upsertion("alice", kSha512, 4096)};
  const AlterResponse r = alter(two_upserts);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].error_code, code(ErrorCode::DUPLICATE_RESOURCE));
  EXPECT_EQ(r.results[0].error_message,
            "A user credential cannot be altered twice in the same request");

  AlterRequest seed;
  seed.upsertions = {upsertion("bob", kSha256, 4096)};
  ASSERT_EQ(of(alter(seed), "bob").code, 0);
  const int64_t seeded = image().last_offset();
  EXPECT_EQ(seeded, before + 1);

  AlterRequest delete_and_upsert;  // deletions count too
  delete_and_upsert.deletions = {deletion("bob", kSha256)};
  delete_and_upsert.upsertions = {upsertion("bob", kSha512, 4096),
                                  upsertion("carol", kSha256, 4096)};
  const AlterResponse m = alter(delete_and_upsert);
  ASSERT_EQ(m.results.size(), 2u);
  EXPECT_EQ(of(m, "bob").code, code(ErrorCode::DUPLICATE_RESOURCE));
  EXPECT_EQ(of(m, "carol").code, 0);  // other users of the request go ahead
  EXPECT_NE(image().scram_credential("bob", kSha256), nullptr);
  EXPECT_EQ(image().scram_credential("bob", kSha512), nullptr);
  EXPECT_NE(image().scram_credential("carol", kSha256), nullptr);

  AlterRequest two_deletes;
  two_deletes.deletions = {deletion("bob", kSha256), deletion("bob", kSha256)};
  EXPECT_EQ(of(alter(two_deletes), "bob").code, code(ErrorCode::DUPLICATE_RESOURCE));
  EXPECT_NE(image().scram_credential("bob", kSha256), nullptr);
}

TEST_F(ScramUsersTest, RefusedCredentials) {
  AlterRequest req;
  req.upsertions = {upsertion("few", kSha256, 4095),
                    upsertion("many", kSha512, 16385),
                    upsertion("", kSha256, 4096),
                    upsertion("odd", 3, 4096),
                    upsertion("zero", 0, 4096),
                    upsertion("edge-low", kSha256, 4096),
                    upsertion("edge-high", kSha512, 16384)};
  req.deletions = {deletion("nobody", kSha256), deletion("strange", 7)};
  const AlterResponse r = alter(req);
  ASSERT_EQ(r.results.size(), 9u);
  // In the order the users appear: deletions first.
  EXPECT_EQ(r.results[0].user, "nobody");
  EXPECT_EQ(of(r, "nobody").code, code(ErrorCode::RESOURCE_NOT_FOUND));
  EXPECT_EQ(of(r, "strange").code, code(ErrorCode::UNSUPPORTED_SASL_MECHANISM));
  EXPECT_EQ(of(r, "few").code, code(ErrorCode::UNACCEPTABLE_CREDENTIAL));
  EXPECT_EQ(of(r, "few").message, "Too few iterations");
  EXPECT_EQ(of(r, "many").code, code(ErrorCode::UNACCEPTABLE_CREDENTIAL));
  EXPECT_EQ(of(r, "many").message, "Too many iterations");
  EXPECT_EQ(of(r, "").code, code(ErrorCode::UNACCEPTABLE_CREDENTIAL));
  EXPECT_EQ(of(r, "").message, "Username must not be empty");
  EXPECT_EQ(of(r, "odd").code, code(ErrorCode::UNSUPPORTED_SASL_MECHANISM));
  EXPECT_EQ(of(r, "zero").code, code(ErrorCode::UNSUPPORTED_SASL_MECHANISM));
  EXPECT_EQ(of(r, "edge-low").code, 0);
  EXPECT_EQ(of(r, "edge-high").code, 0);
  ASSERT_EQ(image().scram_users().size(), 2u);
  EXPECT_TRUE(image().scram_users().contains("edge-low"));

  AlterRequest empty_salt;
  empty_salt.upsertions = {upsertion("nosalt", kSha256, 4096, "")};
  EXPECT_EQ(of(alter(empty_salt), "nosalt").code, code(ErrorCode::UNACCEPTABLE_CREDENTIAL));
}

TEST_F(ScramUsersTest, DescribeNamedUsers) {
  AlterRequest add;
  add.upsertions = {upsertion("alice", kSha256, 4096)};
  ASSERT_EQ(of(alter(add), "alice").code, 0);
  const DescribeResponse d = describe(std::vector<std::string>{"zed", "alice", "zed", "bob"});
  EXPECT_EQ(d.error_code, 0);
  ASSERT_EQ(d.results.size(), 3u);  // one row for the user named twice
  EXPECT_EQ(d.results[0].user, "zed");
  EXPECT_EQ(d.results[0].error_code, code(ErrorCode::DUPLICATE_RESOURCE));
  EXPECT_EQ(d.results[0].error_message,
            "Cannot describe SCRAM credentials for the same user twice in a single request: zed");
  EXPECT_EQ(d.results[1].user, "alice");
  EXPECT_EQ(d.results[1].error_code, 0);
  EXPECT_FALSE(d.results[1].error_message.has_value());
  EXPECT_EQ(d.results[2].user, "bob");
  EXPECT_EQ(d.results[2].error_code, code(ErrorCode::RESOURCE_NOT_FOUND));
  EXPECT_TRUE(d.results[2].credential_infos.empty());
}

bool contains(const protocol::Bytes& haystack, const std::string& needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
         haystack.end();
}

TEST_F(ScramUsersTest, NoSecretInAnyAnswer) {
  AlterRequest req;
  req.upsertions = {upsertion("alice", kSha512, 8192)};
  const std::string salted(req.upsertions[0].salted_password.begin(),
                           req.upsertions[0].salted_password.end());
  const protocol::Bytes alter_bytes = raw(req);
  ASSERT_FALSE(alter_bytes.empty());
  const metadata::ScramCredentialInfo* c = image().scram_credential("alice", kSha512);
  ASSERT_NE(c, nullptr);
  DescribeRequest all;
  const protocol::Bytes describe_bytes = raw(all);
  ASSERT_TRUE(contains(describe_bytes, "alice"));  // the check below can see what is there
  for (const protocol::Bytes* answer : {&alter_bytes, &describe_bytes}) {
    for (const std::string& secret :
         {salted, c->salt, c->stored_key, c->server_key, std::string("alice-secret")}) {
      EXPECT_FALSE(contains(*answer, secret));
    }
  }
}

}  // namespace
}  // namespace mirra::server
