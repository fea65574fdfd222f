// The SASL state machine of a connection (server/sasl_session.h), without sockets: what is
// allowed in each phase, both framings, failures, expiry and re-authentication.
#include "server/sasl_session.h"

#include <gtest/gtest.h>

#include <string>

#include "protocol/api_table.h"
#include "protocol/messages/all_messages.h"
#include "security/scram.h"
#include "server/listener_security.h"

namespace mirra::server {
namespace {

using namespace std::chrono_literals;
constexpr int16_t kHandshake = protocol::SaslHandshakeRequest::kApiKey;
constexpr int16_t kAuthenticate = protocol::SaslAuthenticateRequest::kApiKey;
constexpr int16_t kMetadata = protocol::MetadataRequest::kApiKey;
constexpr int16_t kVersions = protocol::kApiVersionsKey;

std::string plain_token(std::string_view user, std::string_view password) {
  std::string t;
  t += '\0';
  t += user;
  t += '\0';
  t += password;
  return t;
}

class SaslSessionTest : public ::testing::Test {
 protected:
  SaslSessionTest() {
    security_.listener.name = "SASL_PLAINTEXT";
    security_.listener.protocol = SecurityProtocol::sasl_plaintext;
    security_.sasl_mechanisms = {"PLAIN", "SCRAM-SHA-512"};
    security_.users.plain = {{"alice", "alice-secret"}, {"bob", "bob-secret"}};
    security_.users.scram = [](const std::string&, security::ScramMechanism) {
      return std::optional<security::ScramCredential>();
    };
  }
  // A handshake for PLAIN and alice's login, at now_: the authentication's step.
  SaslSession::Step login_alice(SaslSession& s) {
    EXPECT_TRUE(s.admit(kHandshake, now_).ok());
    EXPECT_EQ(s.handshake("PLAIN", 1, now_).error, ErrorCode::NONE);
    return s.authenticate(plain_token("alice", "alice-secret"), now_);
  }

  SaslSession::Clock::time_point now_ = SaslSession::Clock::now();
  ListenerSecurity security_;
};

TEST_F(SaslSessionTest, ApiVersionsThenHandshakeV1ThenAuthenticate) {
  SaslSession s(security_);
  EXPECT_EQ(s.frame_limit(), 524288);
  ASSERT_TRUE(s.admit(kVersions, now_).ok());
  EXPECT_EQ(s.phase(), SaslSession::Phase::versions);
  ASSERT_TRUE(s.admit(kHandshake, now_).ok());
  auto h = s.handshake("PLAIN", 1, now_);
  EXPECT_EQ(h.error, ErrorCode::NONE);
  EXPECT_FALSE(h.close);
  EXPECT_EQ(s.phase(), SaslSession::Phase::authenticate);
  ASSERT_TRUE(s.admit(kAuthenticate, now_).ok());
  auto step = s.authenticate(plain_token("alice", "alice-secret"), now_);
  EXPECT_EQ(step.error, ErrorCode::NONE);
  EXPECT_TRUE(step.token.empty());
  EXPECT_EQ(step.session_lifetime_ms, 0);  // connections.max.reauth.ms unset
  EXPECT_TRUE(s.authenticated());
  EXPECT_EQ(s.principal(), "User:alice");
  EXPECT_EQ(s.frame_limit(), std::nullopt);
  EXPECT_TRUE(s.admit(kMetadata, now_ + 24h).ok());
}

TEST_F(SaslSessionTest, HandshakeV0MeansRawTokens) {
  SaslSession s(security_);
  ASSERT_TRUE(s.admit(kHandshake, now_).ok());  // kafka-python: the handshake comes first
  ASSERT_EQ(s.handshake("PLAIN", 0, now_).error, ErrorCode::NONE);
  EXPECT_EQ(s.phase(), SaslSession::Phase::raw_tokens);
  auto step = s.authenticate(plain_token("bob", "bob-secret"), now_);
  EXPECT_EQ(step.error, ErrorCode::NONE);
  EXPECT_EQ(s.principal(), "User:bob");
}

TEST_F(SaslSessionTest, OtherApisBeforeAuthenticationCloseTheConnection) {
  {
    SaslSession s(security_);
    Status st = s.admit(kMetadata, now_);
    EXPECT_EQ(st.code(), ErrorCode::ILLEGAL_SASL_STATE);
    EXPECT_EQ(s.phase(), SaslSession::Phase::failed);
  }
  {
    SaslSession s(security_);
    ASSERT_TRUE(s.admit(kVersions, now_).ok());
    EXPECT_FALSE(s.admit(kVersions, now_).ok());  // only SaslHandshake may follow
  }
  {
    SaslSession s(security_);
    ASSERT_TRUE(s.admit(kHandshake, now_).ok());
    ASSERT_EQ(s.handshake("PLAIN", 1, now_).error, ErrorCode::NONE);
    EXPECT_FALSE(s.admit(kMetadata, now_).ok());
  }
  {
    SaslSession s(security_);
    EXPECT_FALSE(s.admit(kAuthenticate, now_).ok());  // no handshake yet
  }
}

TEST_F(SaslSessionTest, UnknownOrDisabledMechanismIsRefusedAndCloses) {
  for (const char* m : {"GSSAPI", "SCRAM-SHA-256", "plain", ""}) {
    SaslSession s(security_);
    ASSERT_TRUE(s.admit(kHandshake, now_).ok());
    auto h = s.handshake(m, 1, now_);
    EXPECT_EQ(h.error, ErrorCode::UNSUPPORTED_SASL_MECHANISM) << m;
    EXPECT_TRUE(h.close) << m;
  }
}

TEST_F(SaslSessionTest, WrongPasswordAndUnknownUserFailAlike) {
  std::string messages[2];
  int i = 0;
  for (auto token : {plain_token("alice", "wrong"), plain_token("nobody", "alice-secret")}) {
    SaslSession s(security_);
    ASSERT_TRUE(s.admit(kHandshake, now_).ok());
    ASSERT_EQ(s.handshake("PLAIN", 1, now_).error, ErrorCode::NONE);
    auto step = s.authenticate(token, now_);
    EXPECT_EQ(step.error, ErrorCode::SASL_AUTHENTICATION_FAILED);
    EXPECT_TRUE(step.close);
    EXPECT_FALSE(s.authenticated());
    EXPECT_EQ(s.phase(), SaslSession::Phase::failed);
    EXPECT_FALSE(s.admit(kAuthenticate, now_).ok());
    messages[i++] = step.message;
  }
  EXPECT_EQ(messages[0], messages[1]);
  EXPECT_EQ(messages[0].find("nobody"), std::string::npos);
}

TEST_F(SaslSessionTest, StrayHandshakeAfterAuthenticationWithoutLifetime) {
  SaslSession s(security_);
  ASSERT_EQ(login_alice(s).error, ErrorCode::NONE);
  ASSERT_TRUE(s.admit(kHandshake, now_ + 5s).ok());
  auto h = s.handshake("PLAIN", 1, now_ + 5s);
  EXPECT_EQ(h.error, ErrorCode::ILLEGAL_SASL_STATE);
  EXPECT_FALSE(h.close);  // Kafka answers it and keeps serving
  auto step = s.authenticate(plain_token("alice", "alice-secret"), now_ + 5s);
  EXPECT_EQ(step.error, ErrorCode::ILLEGAL_SASL_STATE);
  EXPECT_FALSE(step.close);
  EXPECT_TRUE(s.admit(kMetadata, now_ + 6s).ok());
}

TEST_F(SaslSessionTest, SessionExpiresAndReauthenticationRenewsIt) {
  security_.reauth_ms = 10000;
  SaslSession s(security_);
  auto first = login_alice(s);
  EXPECT_EQ(first.session_lifetime_ms, 10000);
  EXPECT_TRUE(s.admit(kMetadata, now_ + 9s).ok());

  // kafkajs re-authenticates in-band before the lifetime ends.
  const auto t = now_ + 9s;
  ASSERT_TRUE(s.admit(kHandshake, t).ok());
  ASSERT_EQ(s.handshake("PLAIN", 1, t).error, ErrorCode::NONE);
  EXPECT_TRUE(s.admit(kMetadata, t).ok());  // requests are still served meanwhile
  auto again = s.authenticate(plain_token("alice", "alice-secret"), t);
  EXPECT_EQ(again.error, ErrorCode::NONE);
  EXPECT_TRUE(s.admit(kMetadata, now_ + 18s).ok());  // the new expiry is t + 10 s
  Status expired = s.admit(kMetadata, now_ + 20s);
  EXPECT_EQ(expired.code(), ErrorCode::ILLEGAL_SASL_STATE);
  EXPECT_NE(expired.message().find("expired"), std::string::npos);
}

TEST_F(SaslSessionTest, TheMechanismsOwnLifetimeWins) {
  security_.reauth_ms = 10000;
  security_.reauth_ms_by_mechanism["PLAIN"] = 3000;
  SaslSession s(security_);
  auto first = login_alice(s);
  EXPECT_EQ(first.session_lifetime_ms, 3000);
  EXPECT_TRUE(s.admit(kMetadata, now_ + 2s).ok());
  EXPECT_EQ(s.admit(kMetadata, now_ + 4s).code(), ErrorCode::ILLEGAL_SASL_STATE);
}

TEST_F(SaslSessionTest, ReauthenticationMustKeepMechanismAndPrincipal) {
  security_.reauth_ms = 10000;
  {
    SaslSession s(security_);
    ASSERT_EQ(login_alice(s).error, ErrorCode::NONE);
    auto h = s.handshake("SCRAM-SHA-512", 1, now_ + 5s);
    EXPECT_EQ(h.error, ErrorCode::UNSUPPORTED_SASL_MECHANISM);
    EXPECT_TRUE(h.close);
  }
  {
    SaslSession s(security_);
    ASSERT_EQ(login_alice(s).error, ErrorCode::NONE);
    ASSERT_EQ(s.handshake("PLAIN", 1, now_ + 5s).error, ErrorCode::NONE);
    auto step = s.authenticate(plain_token("bob", "bob-secret"), now_ + 5s);
    EXPECT_EQ(step.error, ErrorCode::SASL_AUTHENTICATION_FAILED);
    EXPECT_TRUE(step.close);
    EXPECT_NE(step.message.find("principal"), std::string::npos);
  }
}

}  // namespace
}  // namespace mirra::server
