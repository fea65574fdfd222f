// read_client_security(): Kafka's client security keys, what is refused and why, and that no
// message shows a secret.
#include "client/security.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace mirra::client {
namespace {

using Settings = std::map<std::string, std::string>;
constexpr std::string_view kSecret = "hunter2-secret";

Result<ClientSecurity> read(const Settings& s) {
  return read_client_security(s, "client property");
}

void expect_refused(const Settings& s, std::string_view says) {
  auto r = read(s);
  ASSERT_FALSE(r.ok()) << "accepted: " << says;
  EXPECT_EQ(r.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find(kSecret), std::string::npos) << r.status().message();
}

TEST(ClientSecurity, PlaintextByDefault) {
  auto r = read({{"client.id", "x"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->protocol, SecurityProtocol::plaintext);
  EXPECT_FALSE(r->uses_tls());
  EXPECT_FALSE(r->uses_sasl());
}

TEST(ClientSecurity, SaslSslWithTheShorthandOrJaas) {
  auto r = read({{"security.protocol", "sasl_ssl"},
                 {"sasl.mechanism", "SCRAM-SHA-512"},
                 {"sasl.username", "mirror"},
                 {"sasl.password", std::string(kSecret)},
                 {"ssl.truststore.location", "/etc/ca.pem"},
                 {"ssl.protocol", "TLSv1.3"}});  // Java-only: accepted, no effect
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->protocol, SecurityProtocol::sasl_ssl);
  EXPECT_TRUE(r->uses_tls() && r->uses_sasl());
  EXPECT_EQ(r->sasl_mechanism, "SCRAM-SHA-512");
  EXPECT_EQ(r->sasl_username, "mirror");
  EXPECT_EQ(r->sasl_password, kSecret);
  EXPECT_EQ(r->tls.truststore_location, "/etc/ca.pem");
  EXPECT_EQ(r->tls_context, nullptr);  // no file read yet

  auto jaas = read({{"security.protocol", "SASL_PLAINTEXT"},
                    {"sasl.jaas.config",
                     "org.apache.kafka.common.security.plain.PlainLoginModule required "
                     "username=\"alice\" password=\"" +
                         std::string(kSecret) + "\";"}});
  ASSERT_TRUE(jaas.ok()) << jaas.status().to_string();
  EXPECT_EQ(jaas->sasl_mechanism, "PLAIN");  // Mirra's default (Kafka's, GSSAPI, it lacks)
  EXPECT_EQ(jaas->sasl_username, "alice");
  EXPECT_EQ(jaas->sasl_password, kSecret);

  auto scram = read({{"security.protocol", "SASL_SSL"},
                     {"sasl.mechanism", "SCRAM-SHA-256"},
                     {"sasl.jaas.config",
                      "org.apache.kafka.common.security.scram.ScramLoginModule required "
                      "username=\"m\" password=\"p\";"}});
  ASSERT_TRUE(scram.ok()) << scram.status().to_string();
  EXPECT_EQ(scram->sasl_username, "m");
}

TEST(ClientSecurity, WhatCannotBeHonouredIsRefusedNamingTheKey) {
  const std::string secret(kSecret);
  expect_refused({{"security.protocol", "TLS"}}, "security.protocol=TLS");
  expect_refused({{"sasl.password", secret}}, "sasl.password needs security.protocol SASL");
  expect_refused({{"ssl.truststore.location", "/ca"}}, "ssl.truststore.location needs");
  expect_refused({{"security.protocol", "SASL_SSL"},
                  {"ssl.keystore.password", secret},
                  {"sasl.username", "u"},
                  {"sasl.password", secret},
                  {"ssl.bogus", secret}},
                 "unknown client property ssl.bogus");
  expect_refused({{"security.protocol", "SSL"}, {"ssl.client.auth", "required"}},
                 "ssl.client.auth is a broker setting");
  expect_refused({{"security.protocol", "SASL_SSL"}, {"sasl.kerberos.service.name", "kafka"}},
                 "sasl.kerberos.service.name is not supported");
  expect_refused({{"security.protocol", "SASL_SSL"},
                  {"sasl.mechanism", "GSSAPI"},
                  {"sasl.username", "u"},
                  {"sasl.password", secret}},
                 "sasl.mechanism=GSSAPI is not supported");
  expect_refused({{"security.protocol", "SASL_SSL"}}, "needs credentials");
  expect_refused({{"security.protocol", "SASL_SSL"}, {"sasl.username", "u"}}, "needs credentials");
  expect_refused({{"security.protocol", "SASL_SSL"},
                  {"sasl.username", "u"},
                  {"sasl.password", secret},
                  {"sasl.jaas.config", "x required username=\"u\" password=\"" + secret + "\";"}},
                 "both set");
  expect_refused({{"security.protocol", "SASL_SSL"},
                  {"sasl.jaas.config",
                   "org.apache.kafka.common.security.scram.ScramLoginModule required "
                   "username=\"u\" password=\"" +
                       secret + "\";"}},
                 "set sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512");
  expect_refused({{"security.protocol", "SASL_SSL"},
                  {"sasl.jaas.config",
                   "org.apache.kafka.common.security.plain.PlainLoginModule required "
                   "password=\"" +
                       secret + "\";"}},
                 "needs username= and password=");
  expect_refused({{"security.protocol", "SASL_SSL"}, {"sasl.jaas.config", "not jaas \"" + secret}},
                 "sasl.jaas.config");
  expect_refused({{"security.protocol", "SSL"}, {"ssl.keystore.type", "JKS"}}, "PKCS12");
}

TEST(ClientSecurity, PrepareReadsTheStoresOnce) {
  auto r = read({{"security.protocol", "SSL"}, {"ssl.truststore.location", "/nonexistent/ca"}});
  ASSERT_TRUE(r.ok());
  Status s = prepare_client_security(r.value());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/ca"), std::string::npos) << s.message();
  ClientSecurity plain;
  EXPECT_TRUE(prepare_client_security(plain).ok());
  EXPECT_EQ(plain.tls_context, nullptr);
}

}  // namespace
}  // namespace mirra::client
