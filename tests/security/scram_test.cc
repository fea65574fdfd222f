#include "security/scram.h"

#include <gtest/gtest.h>

#include <map>

#include "scram_test_util.h"

namespace mirra::security {
namespace {

using testing::b64;
using testing::client_final;
using testing::unb64;

constexpr std::string_view kInvalidCredentials256 =
    "Authentication failed during authentication due to invalid credentials with SASL mechanism "
    "SCRAM-SHA-256";

// RFC 7677's example exchange (SCRAM-SHA-256, user "user", password "pencil").
constexpr std::string_view kRfcClientNonce = "rOprNGfwEbeRWgbNEkqO";
constexpr std::string_view kRfcServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr std::string_view kRfcServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr std::string_view kRfcClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr std::string_view kRfcServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

ScramCredential rfc_credential() {
  const std::string salt = unb64("W22ZaJ0SNY7soEsUEjb6gQ==");
  return scram_credential(ScramMechanism::sha256,
                          scram_salted_password(ScramMechanism::sha256, "pencil", salt, 4096), salt,
                          4096);
}

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// A server whose users are a map; counts lookups.
struct Users {
  std::map<std::string, ScramCredential> credentials;
  std::vector<std::string> looked_up;
  ScramServer::Lookup lookup() {
    return [this](const std::string& user) -> std::optional<ScramCredential> {
      looked_up.push_back(user);
      auto it = credentials.find(user);
      if (it == credentials.end()) return std::nullopt;
      return it->second;
    };
  }
  void add(ScramMechanism m, const std::string& user, std::string_view password,
           int32_t iterations = 4096) {
    std::string salt = scram_random_salt();
    credentials[user] =
        scram_credential(m, scram_salted_password(m, password, salt, iterations), salt, iterations);
  }
};

TEST(Scram, Rfc7677CredentialDerivation) {
  const std::string salt = unb64("W22ZaJ0SNY7soEsUEjb6gQ==");
  const std::string salted = scram_salted_password(ScramMechanism::sha256, "pencil", salt, 4096);
  EXPECT_EQ(hex(salted).substr(0, 16), "C4A49510323AB4F9");
  const ScramCredential c = rfc_credential();
  EXPECT_EQ(b64(c.stored_key), "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=");
  EXPECT_EQ(b64(c.server_key), "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=");
}

TEST(Scram, Rfc7677ClientSide) {
  ScramClient client(ScramMechanism::sha256, "user", "pencil", std::string(kRfcClientNonce));
  EXPECT_EQ(client.first(), "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  auto final_message = client.final(kRfcServerFirst);
  ASSERT_TRUE(final_message.ok()) << final_message.status().to_string();
  EXPECT_EQ(final_message.value(), kRfcClientFinal);
  EXPECT_TRUE(client.verify(kRfcServerFinal).ok());
  EXPECT_EQ(client.verify("v=" + b64(std::string(32, 'x'))).code(),
            ErrorCode::SASL_AUTHENTICATION_FAILED);
}

TEST(Scram, Rfc7677ServerSide) {
  Users users;
  users.credentials["user"] = rfc_credential();
  ScramServer server(ScramMechanism::sha256, users.lookup(), std::string(kRfcServerNonce));
  auto first = server.step("n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ(first.value(), kRfcServerFirst);
  EXPECT_FALSE(server.complete());
  auto final_message = server.step(kRfcClientFinal);
  ASSERT_TRUE(final_message.ok()) << final_message.status().to_string();
  EXPECT_EQ(final_message.value(), kRfcServerFinal);
  EXPECT_TRUE(server.complete());
  EXPECT_EQ(server.user(), "user");
  // Nothing after the end.
  EXPECT_FALSE(server.step(kRfcClientFinal).ok());
}

// A full exchange between the two ends; returns the server's status at the end.
Status exchange(ScramMechanism m, Users& users, const std::string& user,
                const std::string& password) {
  ScramServer server(m, users.lookup());
  ScramClient client(m, user, password);
  auto server_first = server.step(client.first());
  if (!server_first.ok()) return server_first.status();
  auto final_message = client.final(server_first.value());
  if (!final_message.ok()) return final_message.status();
  auto server_final = server.step(final_message.value());
  if (!server_final.ok()) return server_final.status();
  if (!server.complete() || server.user() != user) {
    return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "incomplete");
  }
  return client.verify(server_final.value());
}

TEST(Scram, Sha512RoundTrip) {
  Users users;
  users.add(ScramMechanism::sha512, "alice", "alice-secret", 8192);
  EXPECT_TRUE(exchange(ScramMechanism::sha512, users, "alice", "alice-secret").ok());
  EXPECT_EQ(exchange(ScramMechanism::sha512, users, "alice", "wrong").code(),
            ErrorCode::SASL_AUTHENTICATION_FAILED);
}

TEST(Scram, ServerNonceExtendsClientNonce) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "pw");
  ScramServer server(ScramMechanism::sha256, users.lookup());
  auto first = server.step("n,,n=alice,r=abc");
  ASSERT_TRUE(first.ok());
  const std::string nonce = testing::attribute(first.value(), 'r');
  ASSERT_TRUE(nonce.starts_with("abc"));
  EXPECT_GE(nonce.size(), 3u + 26u);  // ~130 random bits after the client's part
  ScramServer other(ScramMechanism::sha256, users.lookup());
  EXPECT_NE(testing::attribute(other.step("n,,n=alice,r=abc").value(), 'r'), nonce);
}

// librdkafka before 2.6.1 sends r=<client nonce><client nonce><server part>.
TEST(Scram, LibrdkafkaDoubledNonceAccepted) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "alice-secret");
  ScramServer server(ScramMechanism::sha256, users.lookup());
  const std::string bare = "n=alice,r=cn0nce";
  auto first = server.step("n,," + bare);
  ASSERT_TRUE(first.ok());
  const std::string nonce = testing::attribute(first.value(), 'r');
  auto final_message = server.step(client_final(ScramMechanism::sha256, "alice-secret", bare,
                                                first.value(), "c=biws,r=cn0nce" + nonce));
  ASSERT_TRUE(final_message.ok()) << final_message.status().to_string();
  EXPECT_TRUE(server.complete());
}

TEST(Scram, ClientFinalNonceMustEndWithServerNonce) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "alice-secret");
  for (const std::string suffix : {"x", "-client-only", "-truncated"}) {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    const std::string bare = "n=alice,r=cn0nce";
    auto first = server.step("n,," + bare);
    ASSERT_TRUE(first.ok());
    const std::string nonce = testing::attribute(first.value(), 'r');
    std::string sent = nonce + "x";
    if (suffix == "-client-only") sent = "cn0nce";
    if (suffix == "-truncated") sent = nonce.substr(0, nonce.size() - 1);
    auto final_message = server.step(client_final(ScramMechanism::sha256, "alice-secret", bare,
                                                  first.value(), "c=biws,r=" + sent));
    ASSERT_FALSE(final_message.ok()) << suffix;
    EXPECT_EQ(final_message.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED);
    EXPECT_FALSE(server.complete());
  }
}

TEST(Scram, WrongPasswordAndUnknownUserFailAlike) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "alice-secret");
  const Status wrong = exchange(ScramMechanism::sha256, users, "alice", "not-it");
  const Status unknown = exchange(ScramMechanism::sha256, users, "mallory", "alice-secret");
  EXPECT_EQ(wrong.code(), ErrorCode::SASL_AUTHENTICATION_FAILED);
  EXPECT_EQ(wrong.message(), kInvalidCredentials256);
  EXPECT_EQ(unknown.code(), wrong.code());
  EXPECT_EQ(unknown.message(), wrong.message());
  EXPECT_EQ(unknown.message().find("not-it"), std::string::npos);
}

TEST(Scram, UnknownUserGetsAStableServerFirst) {
  Users users;
  std::string salts[2];
  for (std::string& salt : salts) {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    auto first = server.step("n,,n=mallory,r=abc");
    ASSERT_TRUE(first.ok());  // the unknown user is told nothing yet
    EXPECT_EQ(testing::attribute(first.value(), 'i'), "4096");
    salt = testing::attribute(first.value(), 's');
    EXPECT_EQ(unb64(salt).size(), 32u);
  }
  EXPECT_EQ(salts[0], salts[1]);
}

TEST(Scram, StoredIterationsBelowMinimumRefused) {
  Users users;
  users.add(ScramMechanism::sha256, "old", "old-secret", 4095);
  const Status s = exchange(ScramMechanism::sha256, users, "old", "old-secret");
  EXPECT_EQ(s.code(), ErrorCode::SASL_AUTHENTICATION_FAILED);
  EXPECT_EQ(s.message(), kInvalidCredentials256);
  users.add(ScramMechanism::sha256, "ok", "ok-secret", 4096);
  EXPECT_TRUE(exchange(ScramMechanism::sha256, users, "ok", "ok-secret").ok());
}

TEST(Scram, EscapedUserNames) {
  Users users;
  users.add(ScramMechanism::sha256, "a,b=c", "pw");
  ScramClient client(ScramMechanism::sha256, "a,b=c", "pw", "nonce");
  EXPECT_EQ(client.first(), "n,,n=a=2Cb=3Dc,r=nonce");
  EXPECT_TRUE(exchange(ScramMechanism::sha256, users, "a,b=c", "pw").ok());
  ASSERT_FALSE(users.looked_up.empty());
  EXPECT_EQ(users.looked_up.back(), "a,b=c");
  for (const char* bad : {"n,,n=a=2cb,r=x", "n,,n=a=41,r=x", "n,,n=a=,r=x", "n,,n=a=2,r=x",
                          "n,,n==,r=x", "n,,n=a=3,r=x"}) {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    auto first = server.step(bad);
    EXPECT_FALSE(first.ok()) << bad;
    EXPECT_EQ(first.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED) << bad;
  }
}

TEST(Scram, AuthzidMustEqualUser) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "pw");
  {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    const std::string bare = "n=alice,r=abc";
    auto first = server.step("n,a=alice," + bare);
    ASSERT_TRUE(first.ok());
    const std::string nonce = testing::attribute(first.value(), 'r');
    // c= carries the gs2 header as sent, authzid included.
    auto done = server.step(client_final(ScramMechanism::sha256, "pw", bare, first.value(),
                                         "c=" + b64("n,a=alice,") + ",r=" + nonce));
    EXPECT_TRUE(done.ok()) << done.status().to_string();
  }
  ScramServer server(ScramMechanism::sha256, users.lookup());
  EXPECT_FALSE(server.step("n,a=bob,n=alice,r=abc").ok());
}

TEST(Scram, UnknownExtensionsIgnoredTokenAuthRefused) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "pw");
  for (const std::string ext : {",ext=1", ",tokenauth=true"}) {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    const std::string bare = "n=alice,r=abc" + ext;
    auto first = server.step("n,," + bare);
    ASSERT_TRUE(first.ok()) << ext;
    const std::string nonce = testing::attribute(first.value(), 'r');
    auto done = server.step(
        client_final(ScramMechanism::sha256, "pw", bare, first.value(), "c=biws,r=" + nonce));
    // Mirra issues no delegation tokens: a token login fails like a wrong password.
    EXPECT_EQ(done.ok(), ext == ",ext=1") << ext;
  }
}

TEST(Scram, MalformedClientFirstRefused) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "pw");
  const std::string valid = "n,,n=alice,r=abc";
  std::vector<std::string> bad = {"",
                                  "n",
                                  "n,",
                                  "n,,",
                                  "y,,n=alice,r=abc",
                                  "p=tls-unique,,n=alice,r=abc",
                                  "n,,r=abc",
                                  "n,,n=alice",
                                  "n,,n=,r=abc",
                                  "n,,n=alice,r=",
                                  "n,,m=ext,n=alice,r=abc",
                                  "n,x,n=alice,r=abc",
                                  "n,,n=alice,r=a b",
                                  std::string("n,,n=alice,r=a\x01", 15),
                                  "n,,n=alice,r=abc,=x",
                                  "n,,n=alice,r=abc,",
                                  "n,,r=abc,n=alice",
                                  std::string("n,,n=al\0ice,r=abc", 17),
                                  ",,n=alice,r=abc",
                                  "n,,n=alice,,r=abc"};
  // Every cut short of the nonce ("r=a" is a valid one-character nonce).
  for (size_t len = 0; len <= valid.size() - 3; ++len) bad.push_back(valid.substr(0, len));
  for (const std::string& message : bad) {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    auto first = server.step(message);
    EXPECT_FALSE(first.ok()) << message;
    EXPECT_EQ(first.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED) << message;
    // A failed exchange stays failed.
    EXPECT_FALSE(server.step(valid).ok()) << message;
    EXPECT_FALSE(server.complete());
  }
}

TEST(Scram, MalformedClientFinalRefused) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "pw");
  const std::string bare = "n=alice,r=abc";
  auto good_final = [&](ScramServer& server) {
    auto first = server.step("n,," + bare);
    EXPECT_TRUE(first.ok());
    const std::string nonce = testing::attribute(first.value(), 'r');
    return std::make_pair(nonce, client_final(ScramMechanism::sha256, "pw", bare, first.value(),
                                              "c=biws,r=" + nonce));
  };
  std::vector<std::function<std::string(const std::string&, const std::string&)>> shapes = {
      [](auto&, auto& f) { return f.substr(0, f.find(",p=")); },               // no proof
      [](auto&, auto& f) { return f.substr(0, f.find(",p=") + 3); },           // empty proof
      [](auto&, auto& f) { return f.substr(0, f.find(",p=") + 3) + "!!!!"; },  // bad base64
      [](auto&, auto& f) { return f.substr(0, f.size() - 1); },                // padding lost
      [](auto&, auto& f) { return f.substr(0, f.find(",p=") + 3) + "QUJD"; },  // short proof
      [](auto&, auto& f) { return f + ",x=y"; },                               // p= not last
      [](auto& n, auto& f) { return "r=" + n + f.substr(f.find(",p=")); },     // no c=
      [](auto& n, auto& f) { return "r=" + n + ",c=biws" + f.substr(f.find(",p=")); },
      [](auto& n, auto& f) { return "c=eSws,r=" + n + f.substr(f.find(",p=")); },  // y,,
      [](auto& n, auto& f) { return "c=biwsx,r=" + n + f.substr(f.find(",p=")); },
      [](auto&, auto& f) { return "c=biws" + f.substr(f.find(",p=")); },  // no r=
      [](auto&, auto&) { return std::string(); },
      [](auto&, auto&) { return std::string("garbage"); },
  };
  for (size_t i = 0; i < shapes.size(); ++i) {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    auto [nonce, valid] = good_final(server);
    const std::string message = shapes[i](nonce, valid);
    auto done = server.step(message);
    EXPECT_FALSE(done.ok()) << i << ": " << message;
    EXPECT_EQ(done.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED) << i;
    EXPECT_FALSE(server.complete()) << i;
  }
  // Every truncation of a valid client-final fails (and none crashes).
  ScramServer probe(ScramMechanism::sha256, users.lookup());
  const std::string valid = good_final(probe).second;
  for (size_t len = 0; len < valid.size(); ++len) {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    auto [nonce, full] = good_final(server);
    const std::string message = full.substr(0, len);
    EXPECT_FALSE(server.step(message).ok()) << message;
  }
}

// A right proof does not excuse a channel binding other than the gs2 header sent.
TEST(Scram, WrongChannelBindingRefusedEvenWithARightProof) {
  Users users;
  users.add(ScramMechanism::sha256, "alice", "pw");
  for (const std::string binding : {"eSws", "cD10bHMtdW5pcXVlLCw=", "biwsAA==", ""}) {
    ScramServer server(ScramMechanism::sha256, users.lookup());
    const std::string bare = "n=alice,r=abc";
    auto first = server.step("n,," + bare);
    ASSERT_TRUE(first.ok());
    const std::string nonce = testing::attribute(first.value(), 'r');
    auto done = server.step(client_final(ScramMechanism::sha256, "pw", bare, first.value(),
                                         "c=" + binding + ",r=" + nonce));
    EXPECT_FALSE(done.ok()) << binding;
  }
}

TEST(ScramClient, RefusesBadServerFirst) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"r=other123,s=c2FsdA==,i=4096", "nonce does not extend"},
      {"r=abc,s=c2FsdA==,i=4096", "nonce must be longer"},
      {"r=abcdef,s=c2FsdA==,i=4095", "iterations too few"},
      {"r=abcdef,s=c2FsdA==,i=16385", "iterations too many"},
      {"r=abcdef,s=c2FsdA==,i=x", "iterations not a number"},
      {"r=abcdef,s=!!,i=4096", "bad salt"},
      {"r=abcdef,s=,i=4096", "empty salt"},
      {"r=abcdef,i=4096", "no salt"},
      {"m=x,r=abcdef,s=c2FsdA==,i=4096", "mandatory extension"},
      {"", "empty"},
  };
  for (const auto& [message, why] : cases) {
    ScramClient client(ScramMechanism::sha256, "alice", "secret-pw", "abc");
    client.first();
    auto final_message = client.final(message);
    ASSERT_FALSE(final_message.ok()) << why;
    EXPECT_EQ(final_message.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED);
    EXPECT_EQ(final_message.status().message().find("secret-pw"), std::string::npos);
  }
}

TEST(ScramClient, VerifyRefusesServerErrorsAndOrder) {
  ScramClient client(ScramMechanism::sha256, "user", "pencil", std::string(kRfcClientNonce));
  EXPECT_FALSE(client.verify(kRfcServerFinal).ok());  // before final()
  client.first();
  ASSERT_TRUE(client.final(kRfcServerFirst).ok());
  EXPECT_FALSE(client.verify("e=invalid-proof").ok());
  EXPECT_FALSE(client.verify("v=!!!").ok());
  EXPECT_FALSE(client.verify("").ok());
  EXPECT_TRUE(client.verify(kRfcServerFinal).ok());
}

TEST(ScramMechanismNames, RoundTrip) {
  EXPECT_EQ(scram_mechanism_from_name("SCRAM-SHA-256"), ScramMechanism::sha256);
  EXPECT_EQ(scram_mechanism_from_name("SCRAM-SHA-512"), ScramMechanism::sha512);
  EXPECT_EQ(scram_mechanism_from_name("scram-sha-256"), std::nullopt);
  EXPECT_EQ(scram_mechanism_name(ScramMechanism::sha512), "SCRAM-SHA-512");
  EXPECT_EQ(scram_mechanism_from_code(2), ScramMechanism::sha512);
  EXPECT_EQ(scram_mechanism_from_code(3), std::nullopt);
}

}  // namespace
}  // namespace mirra::security
