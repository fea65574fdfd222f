#include "security/sasl.h"

#include <gtest/gtest.h>

namespace mirra::security {
namespace {

TEST(SecretsEqual, ComparesWholeSecrets) {
  EXPECT_TRUE(secrets_equal("alice-secret", "alice-secret"));
  EXPECT_FALSE(secrets_equal("alice-secret", "alice-secreT"));
  EXPECT_FALSE(secrets_equal("alice-secret", "alice-secret2"));
  EXPECT_FALSE(secrets_equal("", "x"));
  EXPECT_TRUE(secrets_equal("", ""));
}

TEST(SaslMechanisms, NamesAsKafkaSpellsThem) {
  EXPECT_EQ(supported_sasl_mechanisms(),
            (std::vector<std::string>{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}));
}

}  // namespace
}  // namespace mirra::security

namespace mirra::security {
namespace {

using namespace std::string_literals;

SaslUsers test_users() {
  SaslUsers users;
  users.plain = {{"alice", "alice-secret"}, {"bob", "bob-secret"}};
  users.scram = [](const std::string& user, ScramMechanism m) -> std::optional<ScramCredential> {
    if (user != "alice") return std::nullopt;
    const std::string salt = scram_random_salt();
    return scram_credential(m, scram_salted_password(m, "alice-secret", salt, 4096), salt, 4096);
  };
  return users;
}

Result<std::string> plain_step(const SaslUsers& users, std::string_view token) {
  auto server = SaslServer::make("PLAIN", users);
  EXPECT_TRUE(server.ok());
  auto out = server.value()->step(token);
  if (out.ok()) {
    EXPECT_TRUE(server.value()->complete());
    return server.value()->authorization_id();
  }
  EXPECT_FALSE(server.value()->complete());
  return out.status();
}

TEST(SaslPlain, AcceptsEmptyOrSameAuthzid) {
  const SaslUsers users = test_users();
  auto librdkafka = plain_step(users, "\0alice\0alice-secret"s);
  ASSERT_TRUE(librdkafka.ok()) << librdkafka.status().to_string();
  EXPECT_EQ(librdkafka.value(), "alice");
  auto kafka_python = plain_step(users, "alice\0alice\0alice-secret"s);
  ASSERT_TRUE(kafka_python.ok());
  EXPECT_EQ(kafka_python.value(), "alice");
}

TEST(SaslPlain, RefusesOtherAuthzid) {
  auto r = plain_step(test_users(), "bob\0alice\0alice-secret"s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED);
}

TEST(SaslPlain, WrongPasswordAndUnknownUserFailAlike) {
  const SaslUsers users = test_users();
  auto wrong = plain_step(users, "\0alice\0bob-secret"s);
  auto unknown = plain_step(users, "\0mallory\0alice-secret"s);
  auto prefix = plain_step(users, "\0alice\0alice-secre"s);
  ASSERT_FALSE(wrong.ok());
  ASSERT_FALSE(unknown.ok());
  ASSERT_FALSE(prefix.ok());
  EXPECT_EQ(wrong.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED);
  EXPECT_EQ(wrong.status().message(), unknown.status().message());
  EXPECT_EQ(wrong.status().message(), prefix.status().message());
  EXPECT_EQ(wrong.status().message().find("secret"), std::string::npos);
}

TEST(SaslPlain, RefusesMalformedTokens) {
  const SaslUsers users = test_users();
  for (const std::string& token :
       {""s, "alice"s, "\0alice"s, "alice\0alice-secret"s, "\0alice\0alice-secret\0"s,
        "\0\0alice-secret"s, "\0alice\0"s, "\0\0"s, "\0alice\0alice-secret\0x"s}) {
    auto r = plain_step(users, token);
    ASSERT_FALSE(r.ok()) << token.size();
    EXPECT_EQ(r.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED);
    EXPECT_EQ(r.status().message().find("alice-secret"), std::string::npos);
  }
}

TEST(SaslPlain, OneTokenOnly) {
  const SaslUsers users = test_users();
  auto server = SaslServer::make("PLAIN", users);
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(server.value()->step("\0alice\0alice-secret"s).ok());
  EXPECT_FALSE(server.value()->step("\0alice\0alice-secret"s).ok());
}

TEST(SaslServerMake, UnsupportedMechanism) {
  const SaslUsers users = test_users();
  for (const char* name : {"GSSAPI", "OAUTHBEARER", "plain", "SCRAM-SHA-1", ""}) {
    auto server = SaslServer::make(name, users);
    ASSERT_FALSE(server.ok()) << name;
    EXPECT_EQ(server.status().code(), ErrorCode::UNSUPPORTED_SASL_MECHANISM);
    auto client = SaslClient::make(name, "alice", "alice-secret");
    ASSERT_FALSE(client.ok()) << name;
    EXPECT_EQ(client.status().code(), ErrorCode::UNSUPPORTED_SASL_MECHANISM);
  }
}

// Client and server of one mechanism until the client has nothing more to send.
Status round_trip(std::string_view mechanism, const SaslUsers& users, const std::string& user,
                  const std::string& password, std::string* authorization_id) {
  auto server = SaslServer::make(mechanism, users);
  auto client = SaslClient::make(mechanism, user, password);
  if (!server.ok()) return server.status();
  if (!client.ok()) return client.status();
  std::string token = client.value()->initial();
  for (int round = 0; round < 4; ++round) {
    auto answer = server.value()->step(token);
    if (!answer.ok()) return answer.status();
    auto next = client.value()->step(answer.value());
    if (!next.ok()) return next.status();
    if (!next.value()) {
      if (!server.value()->complete()) return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "open");
      *authorization_id = server.value()->authorization_id();
      return Status::OK();
    }
    token = *next.value();
  }
  return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "no end");
}

TEST(Sasl, ClientServerRoundTrips) {
  const SaslUsers users = test_users();
  for (const std::string& m : supported_sasl_mechanisms()) {
    std::string id;
    Status ok = round_trip(m, users, "alice", "alice-secret", &id);
    EXPECT_TRUE(ok.ok()) << m << ": " << ok.to_string();
    EXPECT_EQ(id, "alice") << m;
    Status wrong = round_trip(m, users, "alice", "nope", &id);
    EXPECT_EQ(wrong.code(), ErrorCode::SASL_AUTHENTICATION_FAILED) << m;
    Status unknown = round_trip(m, users, "mallory", "alice-secret", &id);
    EXPECT_EQ(unknown.code(), ErrorCode::SASL_AUTHENTICATION_FAILED) << m;
    EXPECT_EQ(unknown.message(), wrong.message()) << m;
  }
}

TEST(Sasl, ScramWithoutScramUsersFails) {
  SaslUsers users;  // no scram callback at all
  std::string id;
  EXPECT_EQ(round_trip("SCRAM-SHA-512", users, "alice", "alice-secret", &id).code(),
            ErrorCode::SASL_AUTHENTICATION_FAILED);
}

TEST(Sasl, ScramClientRefusesAForgedServerFinal) {
  auto client = SaslClient::make("SCRAM-SHA-256", "alice", "alice-secret");
  ASSERT_TRUE(client.ok());
  const std::string first = client.value()->initial();
  const std::string nonce = first.substr(first.find("r=") + 2);
  auto final_message = client.value()->step("r=" + nonce + "srv,s=c2FsdHNhbHQ=,i=4096");
  ASSERT_TRUE(final_message.ok());
  ASSERT_TRUE(final_message.value().has_value());
  auto verdict = client.value()->step("v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.status().message().find("alice-secret"), std::string::npos);
}

}  // namespace
}  // namespace mirra::security
