// A listener's security settings (server/listener_security.h): what each protocol needs, the
// listener prefix, and errors that name the key without showing secrets.
#include "server/listener_security.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../security/test_certs.h"
#include "server/config.h"

namespace mirra::server {
namespace {

using Settings = std::map<std::string, std::string>;
using security::testing::TestCerts;

Listener listener(const std::string& name, SecurityProtocol p) {
  Listener l;
  l.name = name;
  l.host = "127.0.0.1";
  l.protocol = p;
  return l;
}

Result<std::unique_ptr<ListenerSecurity>> make(const Listener& l, const Settings& s) {
  static const ServerConfig config;
  return make_listener_security(l, config, s);
}

void expect_error(const Listener& l, const Settings& s, const std::string& needle) {
  auto r = make(l, s);
  ASSERT_FALSE(r.ok()) << needle;
  EXPECT_EQ(r.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find("alice-secret"), std::string::npos) << r.status().message();
}

const std::string kJaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";";

TEST(ListenerSecurity, PlaintextNeedsNothing) {
  auto r = make(listener("PLAINTEXT", SecurityProtocol::plaintext), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()->tls, nullptr);
  EXPECT_TRUE(r.value()->sasl_mechanisms.empty());
}

TEST(ListenerSecurity, SaslNeedsSupportedMechanisms) {
  const Listener l = listener("SASL_PLAINTEXT", SecurityProtocol::sasl_plaintext);
  expect_error(l, {}, "sasl.enabled.mechanisms");  // Kafka's default GSSAPI is not there
  expect_error(l, {{"sasl.enabled.mechanisms", "GSSAPI"}}, "GSSAPI is not supported");
  expect_error(l, {{"sasl.enabled.mechanisms", "SCRAM-SHA-512,OAUTHBEARER"}}, "OAUTHBEARER");
  auto scram = make(l, {{"sasl.enabled.mechanisms", "SCRAM-SHA-512, SCRAM-SHA-256"}});
  ASSERT_TRUE(scram.ok()) << scram.status().to_string();
  EXPECT_EQ(scram.value()->mechanisms_text(), "SCRAM-SHA-512,SCRAM-SHA-256");
  EXPECT_TRUE(scram.value()->mechanism_enabled("SCRAM-SHA-256"));
  EXPECT_FALSE(scram.value()->mechanism_enabled("PLAIN"));
}

TEST(ListenerSecurity, PlainUsersComeFromTheListenersJaasConfig) {
  const Listener l = listener("CLIENTS", SecurityProtocol::sasl_plaintext);
  expect_error(l, {{"sasl.enabled.mechanisms", "PLAIN"}},
               "listener.name.clients.plain.sasl.jaas.config is not set");
  expect_error(l,
               {{"sasl.enabled.mechanisms", "PLAIN"},
                {"listener.name.clients.plain.sasl.jaas.config",
                 "org.apache.kafka.common.security.plain.PlainLoginModule required;"}},
               "names no user");
  expect_error(l,
               {{"sasl.enabled.mechanisms", "PLAIN"},
                {"listener.name.clients.plain.sasl.jaas.config", "user_alice=\"alice-secret\""}},
               "listener.name.clients.plain.sasl.jaas.config");
  auto r = make(l, {{"sasl.enabled.mechanisms", "PLAIN"},
                    {"listener.name.clients.plain.sasl.jaas.config", kJaas}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r.value()->users.plain.at("alice"), "alice-secret");
}

TEST(ListenerSecurity, ListenerPrefixWins) {
  const Settings s = {{"sasl.enabled.mechanisms", "PLAIN"},
                      {"listener.name.internal.sasl.enabled.mechanisms", "SCRAM-SHA-256"}};
  auto internal = make(listener("INTERNAL", SecurityProtocol::sasl_plaintext), s);
  ASSERT_TRUE(internal.ok()) << internal.status().to_string();
  EXPECT_EQ(internal.value()->mechanisms_text(), "SCRAM-SHA-256");
  EXPECT_EQ(listener_setting(s, "OTHER", "sasl.enabled.mechanisms"), "PLAIN");
  EXPECT_EQ(listener_setting(s, "INTERNAL", "sasl.enabled.mechanisms"), "SCRAM-SHA-256");
  EXPECT_EQ(listener_setting(s, "INTERNAL", "ssl.keystore.location"), std::nullopt);
}

// Kafka's per-listener and per-mechanism forms of connections.max.reauth.ms, over the broker's.
TEST(ListenerSecurity, ReauthPerListenerAndMechanism) {
  const Listener l = listener("CLIENTS", SecurityProtocol::sasl_plaintext);
  Settings s = {{"sasl.enabled.mechanisms", "SCRAM-SHA-512,SCRAM-SHA-256"}};
  ServerConfig config;
  config.connections_max_reauth_ms = 60000;
  auto broker_wide = make_listener_security(l, config, s);
  ASSERT_TRUE(broker_wide.ok()) << broker_wide.status().to_string();
  EXPECT_EQ(broker_wide.value()->reauth_ms_for("SCRAM-SHA-512"), 60000);

  s["listener.name.clients.connections.max.reauth.ms"] = "30000";
  s["listener.name.clients.scram-sha-512.connections.max.reauth.ms"] = "5000";
  auto per = make_listener_security(l, config, s);
  ASSERT_TRUE(per.ok()) << per.status().to_string();
  EXPECT_EQ(per.value()->reauth_ms_for("SCRAM-SHA-512"), 5000);
  EXPECT_EQ(per.value()->reauth_ms_for("SCRAM-SHA-256"), 30000);
  auto other =
      make_listener_security(listener("OTHER", SecurityProtocol::sasl_plaintext), config, s);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other.value()->reauth_ms_for("SCRAM-SHA-512"), 60000);

  s["listener.name.clients.scram-sha-256.connections.max.reauth.ms"] = "-1";
  expect_error(l, s, "listener.name.clients.scram-sha-256.connections.max.reauth.ms");
}

TEST(ListenerSecurity, TlsNeedsALoadableKeystore) {
  const Listener l = listener("SSL", SecurityProtocol::ssl);
  expect_error(l, {}, "ssl.keystore.location");
  expect_error(l, {{"ssl.keystore.location", "/nonexistent/keystore.pem"}},
               "/nonexistent/keystore.pem");
  const TestCerts& certs = TestCerts::get();
  auto r = make(l, {{"listener.name.ssl.ssl.keystore.location", certs.path("server-keystore.pem")},
                    {"ssl.truststore.location", certs.path("ca.crt")},
                    {"listener.name.ssl.ssl.client.auth", "required"}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_NE(r.value()->tls, nullptr);
  EXPECT_EQ(r.value()->tls->client_auth(), security::ClientAuth::required);
  ASSERT_TRUE(r.value()->principal_rules.has_value());
  expect_error(l,
               {{"ssl.keystore.location", certs.path("server-keystore.pem")},
                {"ssl.principal.mapping.rules", "RULE:[bad"}},
               "RULE:[bad");
}

TEST(ListenerSecurity, SaslSslNeedsBoth) {
  const Listener l = listener("SASL_SSL", SecurityProtocol::sasl_ssl);
  const TestCerts& certs = TestCerts::get();
  expect_error(l, {{"sasl.enabled.mechanisms", "SCRAM-SHA-512"}}, "ssl.keystore.location");
  auto r = make(l, {{"ssl.keystore.location", certs.path("server-keystore.pem")},
                    {"sasl.enabled.mechanisms", "SCRAM-SHA-512"}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_NE(r.value()->tls, nullptr);
  EXPECT_FALSE(r.value()->principal_rules.has_value());  // the SASL user names the client
}

}  // namespace
}  // namespace mirra::server
