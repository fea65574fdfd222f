#include "security/sasl.h"

#include <openssl/crypto.h>

#include <fmt/format.h>

namespace mirra::security {
namespace {

Status auth_failed(std::string message) {
  return Status(ErrorCode::SASL_AUTHENTICATION_FAILED, std::move(message));
}

// PLAIN (RFC 4616) as Kafka's PlainSaslServer checks it: one token
// "authzid NUL user NUL password", answered with an empty token.
class PlainServer final : public SaslServer {
 public:
  explicit PlainServer(const SaslUsers& users) : users_(users) {}

  Result<std::string> step(std::string_view token) override {
    if (done_) return auth_failed("Authentication failed: unexpected PLAIN token");
    done_ = true;  // one token only, success or not
    const size_t first = token.find('\0');
    const size_t second = first == std::string_view::npos ? first : token.find('\0', first + 1);
    if (second == std::string_view::npos ||
        token.find('\0', second + 1) != std::string_view::npos) {
      return auth_failed("Invalid SASL/PLAIN response: expected 3 tokens");
    }
    const std::string_view authzid = token.substr(0, first);
    const std::string_view user = token.substr(first + 1, second - first - 1);
    const std::string_view password = token.substr(second + 1);
    if (user.empty()) return auth_failed("Authentication failed: username not specified");
    if (password.empty()) return auth_failed("Authentication failed: password not specified");
    auto it = users_.plain.find(std::string(user));
    // An unknown user still costs a comparison, so that timing does not tell it apart.
    const std::string_view expected = it == users_.plain.end() ? password : it->second;
    const bool equal = secrets_equal(password, expected);
    if (it == users_.plain.end() || !equal) {
      return auth_failed("Authentication failed: Invalid username or password");
    }
    // kafka-python sends the user as authzid; anything else is someone else's identity.
    if (!authzid.empty() && authzid != user) {
      return auth_failed(
          "Authentication failed: Client requested an authorization id that is different from "
          "username");
    }
    user_ = std::string(user);
    complete_ = true;
    return std::string();
  }
  bool complete() const override { return complete_; }
  std::string authorization_id() const override { return user_; }

 private:
  const SaslUsers& users_;
  bool done_ = false;
  bool complete_ = false;
  std::string user_;
};

class ScramSaslServer final : public SaslServer {
 public:
  ScramSaslServer(ScramMechanism m, const SaslUsers& users)
      : scram_(m, [&users, m](const std::string& user) -> std::optional<ScramCredential> {
          if (!users.scram) return std::nullopt;
          return users.scram(user, m);
        }) {}

  Result<std::string> step(std::string_view token) override { return scram_.step(token); }
  bool complete() const override { return scram_.complete(); }
  std::string authorization_id() const override { return scram_.user(); }

 private:
  ScramServer scram_;
};

class PlainClient final : public SaslClient {
 public:
  PlainClient(std::string user, std::string password)
      : user_(std::move(user)), password_(std::move(password)) {}

  // An empty authzid, as librdkafka and kafkajs send.
  std::string initial() override {
    std::string token;
    token.push_back('\0');
    token += user_;
    token.push_back('\0');
    token += password_;
    return token;
  }
  // The server answers PLAIN with one empty token; a failure comes as an error, not a token.
  Result<std::optional<std::string>> step(std::string_view /*server_token*/) override {
    return std::optional<std::string>();
  }

 private:
  std::string user_;
  std::string password_;
};

class ScramSaslClient final : public SaslClient {
 public:
  ScramSaslClient(ScramMechanism m, std::string user, std::string password)
      : scram_(m, std::move(user), std::move(password)) {}

  std::string initial() override {
    step_ = 0;
    return scram_.first();
  }
  Result<std::optional<std::string>> step(std::string_view server_token) override {
    if (step_ == 0) {
      auto final_message = scram_.final(server_token);
      if (!final_message.ok()) return final_message.status();
      step_ = 1;
      return std::optional<std::string>(std::move(final_message.value()));
    }
    if (step_ == 1) {
      Status verified = scram_.verify(server_token);
      if (!verified.ok()) return verified;
      step_ = 2;
      return std::optional<std::string>();
    }
    return Status(ErrorCode::ILLEGAL_SASL_STATE, "the SCRAM exchange is already over");
  }

 private:
  ScramClient scram_;
  int step_ = 0;  // 0: server-first expected, 1: server-final expected, 2: done
};

Status unsupported(std::string_view mechanism) {
  // The name is the peer's text: bounded, so that a hostile one cannot bloat the answer.
  return Status(ErrorCode::UNSUPPORTED_SASL_MECHANISM,
                fmt::format("Unsupported SASL mechanism {}", mechanism.substr(0, 64)));
}

}  // namespace

Result<std::unique_ptr<SaslServer>> SaslServer::make(std::string_view mechanism,
                                                     const SaslUsers& users) {
  if (mechanism == "PLAIN") return std::unique_ptr<SaslServer>(new PlainServer(users));
  if (auto m = scram_mechanism_from_name(mechanism)) {
    return std::unique_ptr<SaslServer>(new ScramSaslServer(*m, users));
  }
  return unsupported(mechanism);
}

Result<std::unique_ptr<SaslClient>> SaslClient::make(std::string_view mechanism, std::string user,
                                                     std::string password) {
  if (mechanism == "PLAIN") {
    return std::unique_ptr<SaslClient>(new PlainClient(std::move(user), std::move(password)));
  }
  if (auto m = scram_mechanism_from_name(mechanism)) {
    return std::unique_ptr<SaslClient>(
        new ScramSaslClient(*m, std::move(user), std::move(password)));
  }
  return unsupported(mechanism);
}

const std::vector<std::string>& supported_sasl_mechanisms() {
  static const std::vector<std::string> names = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
  return names;
}

bool secrets_equal(std::string_view a, std::string_view b) {
  // The length is not secret (Kafka compares with MessageDigest.isEqual, which also returns
  // early on a length mismatch); the bytes are compared in constant time.
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace mirra::security
