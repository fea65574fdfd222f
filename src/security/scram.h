// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka speaks them: credentials, the
// server side of one exchange, and the client side (for a mirror's link to its source).
//
// Kafka's rules, kept here so every client that works with Kafka works with Mirra
// (docs/security.md):
//   - passwords are plain UTF-8 bytes, no SASLprep;
//   - only the gs2 header "n,," (no channel binding), or "n,a=<authzid>," where the authzid
//     equals the user name;
//   - the client-final nonce must END WITH the server-first nonce (librdkafka before 2.6.1
//     repeats its own nonce in front of it);
//   - the AuthMessage uses the client messages exactly as received;
//   - iterations 4096..16384 (kScramMinIterations..kScramMaxIterations);
//   - a failure never says whether the user exists.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace mirra::security {

// Wire codes of the mechanism in AlterUserScramCredentials / DescribeUserScramCredentials and
// in Mirra's metadata record (docs/formats/metadata.md).
enum class ScramMechanism : int8_t { sha256 = 1, sha512 = 2 };

constexpr int32_t kScramMinIterations = 4096;
constexpr int32_t kScramMaxIterations = 16384;

// "SCRAM-SHA-256" / "SCRAM-SHA-512" (exact, upper case as Kafka spells them).
std::optional<ScramMechanism> scram_mechanism_from_name(std::string_view name);
std::optional<ScramMechanism> scram_mechanism_from_code(int8_t code);
std::string_view scram_mechanism_name(ScramMechanism m);

// What the broker keeps of a SCRAM password (never the password): raw bytes, not base64.
struct ScramCredential {
  std::string salt;
  std::string stored_key;
  std::string server_key;
  int32_t iterations = 0;
  bool operator==(const ScramCredential&) const = default;
};

// Hi(password, salt, i): PBKDF2-HMAC-H with the hash's own output size (32 or 64 bytes).
std::string scram_salted_password(ScramMechanism m, std::string_view password,
                                  std::string_view salt, int32_t iterations);
// StoredKey and ServerKey from a salted password (what AlterUserScramCredentials carries).
ScramCredential scram_credential(ScramMechanism m, std::string_view salted_password,
                                 std::string salt, int32_t iterations);
// A fresh random salt (RAND_bytes), as Kafka's tools make one.
std::string scram_random_salt();

// The server side of one SCRAM exchange. `lookup` finds a user's credential for this
// mechanism (nullopt: no such user; the exchange then fails exactly as for a wrong password).
class ScramServer {
 public:
  using Lookup = std::function<std::optional<ScramCredential>(const std::string& user)>;
  // `server_nonce` is for tests (RFC 7677's vector): the server's part of the nonce; empty
  // (always, outside tests) draws 26 random base-36 characters (~134 bits, as Kafka's 130).
  ScramServer(ScramMechanism m, Lookup lookup, std::string server_nonce = {});

  // Takes the client's next message and returns the server's answer: server-first after
  // client-first, server-final ("v=...") after client-final. Errors are
  // SASL_AUTHENTICATION_FAILED with a message safe to send to the client.
  Result<std::string> step(std::string_view client_message);
  bool complete() const { return state_ == State::complete; }
  // The authenticated user name (valid once complete()).
  const std::string& user() const { return user_; }

 private:
  enum class State { client_first, client_final, complete, failed };
  Result<std::string> on_client_first(std::string_view message);
  Result<std::string> on_client_final(std::string_view message);
  Status fail(std::string why);

  ScramMechanism mechanism_;
  Lookup lookup_;
  State state_ = State::client_first;
  std::string user_;
  std::optional<ScramCredential> credential_;  // nullopt: unknown user, fails at the proof
  std::string server_nonce_;                   // empty: draw a random one
  std::string gs2_header_;                     // "n,," or "n,a=<authzid>,": what c= must encode
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;  // the combined nonce of server-first
};

// The client side of one SCRAM exchange (a mirror authenticating to its source cluster).
class ScramClient {
 public:
  // `nonce` is for tests (RFC 7677's vector); empty (always, outside tests) draws 32 random
  // alphanumeric characters at first().
  ScramClient(ScramMechanism m, std::string user, std::string password, std::string nonce = {});

  // client-first ("n,,n=<user>,r=<nonce>"), the user name escaped (',' =2C, '=' =3D).
  std::string first();
  // Takes server-first, returns client-final; errors if the server's nonce does not extend
  // ours or its iteration count is outside kScramMinIterations..kScramMaxIterations (the upper
  // bound keeps a hostile server from making us spin in PBKDF2).
  Result<std::string> final(std::string_view server_first);
  // Checks server-final's signature (the server knows the password).
  Status verify(std::string_view server_final);

 private:
  ScramMechanism mechanism_;
  std::string user_;
  std::string password_;
  std::string client_nonce_;
  std::string client_first_bare_;
  std::string auth_message_;
  std::string salted_password_;
};

}  // namespace mirra::security
