#include "security/scram.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <openssl/crypto.h>

#include <charconv>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "base/assert.h"

namespace mirra::security {
namespace {

const EVP_MD* digest(ScramMechanism m) {
  return m == ScramMechanism::sha256 ? EVP_sha256() : EVP_sha512();
}

std::string hmac(ScramMechanism m, std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(digest(m), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string hash(ScramMechanism m, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, digest(m), nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

void random_bytes(unsigned char* out, size_t n) {
  // Without randomness no nonce or salt is safe: a broken system, not bad input.
  if (RAND_bytes(out, static_cast<int>(n)) != 1) {
    throw std::runtime_error("OpenSSL RAND_bytes failed");
  }
}

// `n` characters drawn uniformly from `alphabet` (rejection sampling: no modulo bias).
std::string random_chars(size_t n, std::string_view alphabet) {
  MIRRA_ASSERT(!alphabet.empty() && alphabet.size() <= 256, "alphabet of {}", alphabet.size());
  const unsigned limit = 256 - 256 % static_cast<unsigned>(alphabet.size());
  std::string out;
  unsigned char buf[64];
  while (out.size() < n) {
    random_bytes(buf, sizeof buf);
    for (unsigned char b : buf) {
      if (b < limit && out.size() < n) out.push_back(alphabet[b % alphabet.size()]);
    }
  }
  return out;
}

constexpr std::string_view kBase64 =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 |
                       uint32_t(uint8_t(in[i + 2]));
    for (int shift : {18, 12, 6, 0}) out.push_back(kBase64[(v >> shift) & 63]);
  }
  if (i < in.size()) {
    const bool two = i + 2 == in.size();
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 |
                       (two ? uint32_t(uint8_t(in[i + 1])) << 8 : 0);
    out.push_back(kBase64[(v >> 18) & 63]);
    out.push_back(kBase64[(v >> 12) & 63]);
    out.push_back(two ? kBase64[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// Strict standard base64 with padding: no whitespace, no missing or misplaced '='.
std::optional<std::string> base64_decode(std::string_view in) {
  if (in.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  while (pad < 2 && pad < in.size() && in[in.size() - 1 - pad] == '=') ++pad;
  std::string out;
  out.reserve(in.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < in.size() - pad; ++i) {
    const size_t v = kBase64.find(in[i]);
    if (v == std::string_view::npos) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string xor_bytes(std::string_view a, std::string_view b) {
  MIRRA_ASSERT(a.size() == b.size(), "xor of {} and {} bytes", a.size(), b.size());
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

// The attributes of a SCRAM message: "k=v" parts between commas.
struct Attribute {
  std::string_view key;
  std::string_view value;
};

// Splits on ','; nullopt when a part is not "<name>=<value>" with a non-empty name.
std::optional<std::vector<Attribute>> split_attributes(std::string_view message) {
  std::vector<Attribute> out;
  while (true) {
    const size_t comma = message.find(',');
    const std::string_view part = message.substr(0, comma);
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    out.push_back({part.substr(0, eq), part.substr(eq + 1)});
    if (comma == std::string_view::npos) return out;
    message.remove_prefix(comma + 1);
  }
}

// A saslname's escapes: "=2C" is ',', "=3D" is '='; any other '=' is invalid, as is NUL.
std::optional<std::string> unescape_saslname(std::string_view name) {
  if (name.empty()) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '\0') return std::nullopt;
    if (name[i] != '=') {
      out.push_back(name[i]);
      continue;
    }
    const std::string_view esc = name.substr(i + 1, 2);
    if (esc == "2C") {
      out.push_back(',');
    } else if (esc == "3D") {
      out.push_back('=');
    } else {
      return std::nullopt;
    }
    i += 2;
  }
  return out;
}

std::string escape_saslname(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ',') {
      out += "=2C";
    } else if (c == '=') {
      out += "=3D";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// RFC 5802's printable: 0x21..0x7E except ','.
bool valid_nonce(std::string_view nonce) {
  if (nonce.empty()) return false;
  for (char c : nonce) {
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  }
  return true;
}

std::optional<int32_t> parse_iterations(std::string_view text) {
  int32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A secret known only to this process: the salts of users that do not exist derive from it, so
// that asking twice for one unknown user yields the same salt, as for a real one.
const std::string& unknown_user_key() {
  static const std::string key = [] {
    std::string k(32, '\0');
    random_bytes(reinterpret_cast<unsigned char*>(k.data()), k.size());
    return k;
  }();
  return key;
}

}  // namespace

std::optional<ScramMechanism> scram_mechanism_from_name(std::string_view name) {
  if (name == "SCRAM-SHA-256") return ScramMechanism::sha256;
  if (name == "SCRAM-SHA-512") return ScramMechanism::sha512;
  return std::nullopt;
}

std::optional<ScramMechanism> scram_mechanism_from_code(int8_t code) {
  if (code == 1) return ScramMechanism::sha256;
  if (code == 2) return ScramMechanism::sha512;
  return std::nullopt;
}

std::string_view scram_mechanism_name(ScramMechanism m) {
  return m == ScramMechanism::sha256 ? "SCRAM-SHA-256" : "SCRAM-SHA-512";
}

std::string scram_salted_password(ScramMechanism m, std::string_view password,
                                  std::string_view salt, int32_t iterations) {
  MIRRA_ASSERT(iterations > 0, "PBKDF2 needs at least one iteration");
  const int size = EVP_MD_get_size(digest(m));
  std::string out(static_cast<size_t>(size), '\0');
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()),
                    static_cast<int>(salt.size()), iterations, digest(m), size,
                    reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

ScramCredential scram_credential(ScramMechanism m, std::string_view salted_password,
                                 std::string salt, int32_t iterations) {
  ScramCredential c;
  c.salt = std::move(salt);
  c.stored_key = hash(m, hmac(m, salted_password, "Client Key"));
  c.server_key = hmac(m, salted_password, "Server Key");
  c.iterations = iterations;
  return c;
}

std::string scram_random_salt() {
  std::string salt(32, '\0');
  random_bytes(reinterpret_cast<unsigned char*>(salt.data()), salt.size());
  return salt;
}

// ---- ScramServer ----

ScramServer::ScramServer(ScramMechanism m, Lookup lookup, std::string server_nonce)
    : mechanism_(m), lookup_(std::move(lookup)), server_nonce_(std::move(server_nonce)) {}

Result<std::string> ScramServer::step(std::string_view client_message) {
  switch (state_) {
    case State::client_first:
      return on_client_first(client_message);
    case State::client_final:
      return on_client_final(client_message);
    case State::complete:
    case State::failed:
      break;
  }
  return fail("Authentication failed: unexpected SCRAM message after the exchange ended");
}

Status ScramServer::fail(std::string why) {
  state_ = State::failed;
  return Status(ErrorCode::SASL_AUTHENTICATION_FAILED, std::move(why));
}

Result<std::string> ScramServer::on_client_first(std::string_view message) {
  constexpr std::string_view kBad = "Authentication failed: invalid SCRAM client-first message";
  // gs2 header: "n," (no channel binding; "y" and "p=" are refused), optional "a=<authzid>", ",".
  if (!message.starts_with("n,")) return fail(std::string(kBad));
  const size_t header_end = message.find(',', 2);
  if (header_end == std::string_view::npos) return fail(std::string(kBad));
  const std::string_view authzid_part = message.substr(2, header_end - 2);
  std::optional<std::string> authzid;
  if (!authzid_part.empty()) {
    if (!authzid_part.starts_with("a=")) return fail(std::string(kBad));
    authzid = unescape_saslname(authzid_part.substr(2));
    if (!authzid) return fail(std::string(kBad));
  }
  const std::string_view bare = message.substr(header_end + 1);
  auto attrs = split_attributes(bare);
  // "n=" first ("m=", a mandatory extension, is refused as RFC 5802 asks), then "r=".
  if (!attrs || attrs->size() < 2 || (*attrs)[0].key != "n" || (*attrs)[1].key != "r") {
    return fail(std::string(kBad));
  }
  auto user = unescape_saslname((*attrs)[0].value);
  if (!user || !valid_nonce((*attrs)[1].value)) return fail(std::string(kBad));
  if (authzid && *authzid != *user) {
    return fail(
        "Authentication failed: Client requested an authorization id that is different from "
        "username");
  }
  // Unknown extensions are ignored. tokenauth=true asks for a delegation token, which Mirra does
  // not issue: such a login fails at the proof like any unknown user.
  bool token_auth = false;
  for (size_t i = 2; i < attrs->size(); ++i) {
    if ((*attrs)[i].key == "tokenauth" && (*attrs)[i].value == "true") token_auth = true;
  }

  gs2_header_ = std::string(message.substr(0, header_end + 1));
  client_first_bare_ = std::string(bare);
  user_ = std::move(*user);
  if (!token_auth && lookup_) credential_ = lookup_(user_);
  // A stored credential below Kafka's minimum is refused; it fails like a wrong password, at the
  // proof, so that the answer never tells that the user exists.
  if (credential_ && credential_->iterations < kScramMinIterations) credential_.reset();

  std::string salt;
  int32_t iterations = kScramMinIterations;
  if (credential_) {
    salt = credential_->salt;
    iterations = credential_->iterations;
  } else {
    salt = hmac(ScramMechanism::sha256, unknown_user_key(), "salt:" + user_);
  }
  const std::string server_part = server_nonce_.empty()
                                      ? random_chars(26, "0123456789abcdefghijklmnopqrstuvwxyz")
                                      : server_nonce_;
  nonce_ = std::string((*attrs)[1].value) + server_part;
  server_first_ = fmt::format("r={},s={},i={}", nonce_, base64_encode(salt), iterations);
  state_ = State::client_final;
  return server_first_;
}

Result<std::string> ScramServer::on_client_final(std::string_view message) {
  constexpr std::string_view kBad = "Authentication failed: invalid SCRAM client-final message";
  // The proof is the last attribute; the AuthMessage takes everything before it as received.
  const size_t proof_at = message.rfind(",p=");
  if (proof_at == std::string_view::npos) return fail(std::string(kBad));
  const std::string_view without_proof = message.substr(0, proof_at);
  auto attrs = split_attributes(without_proof);
  if (!attrs || attrs->size() < 2 || (*attrs)[0].key != "c" || (*attrs)[1].key != "r") {
    return fail(std::string(kBad));
  }
  if ((*attrs)[0].value != base64_encode(gs2_header_)) {
    return fail("Authentication failed: invalid SCRAM channel binding");
  }
  // "Ends with", not "equals": librdkafka before 2.6.1 puts its own nonce in front again.
  const std::string_view nonce = (*attrs)[1].value;
  if (!valid_nonce(nonce) || !nonce.ends_with(nonce_)) {
    return fail("Invalid client nonce in the final client message.");
  }
  auto proof = base64_decode(message.substr(proof_at + 3));
  const size_t hash_size = static_cast<size_t>(EVP_MD_get_size(digest(mechanism_)));
  if (!proof || proof->size() != hash_size) return fail(std::string(kBad));

  // An unknown user is checked against a key nobody has, so that it costs what a known one does.
  const std::string stored_key =
      credential_ ? credential_->stored_key
                  : hash(mechanism_, hmac(mechanism_, unknown_user_key(), "stored:" + user_));
  const std::string auth_message =
      fmt::format("{},{},{}", client_first_bare_, server_first_, without_proof);
  const std::string client_signature = hmac(mechanism_, stored_key, auth_message);
  const std::string client_key = xor_bytes(*proof, client_signature);
  const std::string computed = hash(mechanism_, client_key);
  if (!credential_ || CRYPTO_memcmp(computed.data(), stored_key.data(), stored_key.size()) != 0) {
    return fail(fmt::format(
        "Authentication failed during authentication due to invalid credentials with SASL "
        "mechanism {}",
        scram_mechanism_name(mechanism_)));
  }
  state_ = State::complete;
  return "v=" + base64_encode(hmac(mechanism_, credential_->server_key, auth_message));
}

// ---- ScramClient ----

ScramClient::ScramClient(ScramMechanism m, std::string user, std::string password,
                         std::string nonce)
    : mechanism_(m),
      user_(std::move(user)),
      password_(std::move(password)),
      client_nonce_(std::move(nonce)) {}

std::string ScramClient::first() {
  if (client_nonce_.empty()) {
    client_nonce_ =
        random_chars(32, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
  }
  client_first_bare_ = fmt::format("n={},r={}", escape_saslname(user_), client_nonce_);
  auth_message_.clear();
  salted_password_.clear();
  return "n,," + client_first_bare_;
}

Result<std::string> ScramClient::final(std::string_view server_first) {
  const auto bad = [](std::string_view why) {
    return Status(ErrorCode::SASL_AUTHENTICATION_FAILED,
                  fmt::format("invalid SCRAM server-first message: {}", why));
  };
  if (client_first_bare_.empty()) return bad("no client-first message was sent");
  auto attrs = split_attributes(server_first);
  if (!attrs || attrs->size() < 3 || (*attrs)[0].key != "r" || (*attrs)[1].key != "s" ||
      (*attrs)[2].key != "i") {
    return bad("expected r=, s= and i=");
  }
  const std::string_view nonce = (*attrs)[0].value;
  if (!valid_nonce(nonce) || nonce.size() <= client_nonce_.size() ||
      !nonce.starts_with(client_nonce_)) {
    return bad("the server's nonce does not extend the client's");
  }
  auto salt = base64_decode((*attrs)[1].value);
  if (!salt || salt->empty()) return bad("bad salt");
  auto iterations = parse_iterations((*attrs)[2].value);
  if (!iterations || *iterations < kScramMinIterations || *iterations > kScramMaxIterations) {
    return bad(fmt::format("iterations must be {}..{}", kScramMinIterations, kScramMaxIterations));
  }
  salted_password_ = scram_salted_password(mechanism_, password_, *salt, *iterations);
  const std::string without_proof = fmt::format("c=biws,r={}", nonce);
  auth_message_ = fmt::format("{},{},{}", client_first_bare_, server_first, without_proof);
  const std::string client_key = hmac(mechanism_, salted_password_, "Client Key");
  const std::string client_signature =
      hmac(mechanism_, hash(mechanism_, client_key), auth_message_);
  return fmt::format("{},p={}", without_proof,
                     base64_encode(xor_bytes(client_key, client_signature)));
}

Status ScramClient::verify(std::string_view server_final) {
  if (auth_message_.empty()) {
    return Status(ErrorCode::SASL_AUTHENTICATION_FAILED,
                  "SCRAM server-final message before the client-final one");
  }
  const std::string_view first = server_final.substr(0, server_final.find(','));
  if (first.starts_with("e=")) {
    return Status(ErrorCode::SASL_AUTHENTICATION_FAILED,
                  fmt::format("the server refused the SCRAM exchange: {}", first.substr(2)));
  }
  auto signature = first.starts_with("v=") ? base64_decode(first.substr(2)) : std::nullopt;
  const std::string expected =
      hmac(mechanism_, hmac(mechanism_, salted_password_, "Server Key"), auth_message_);
  if (!signature || signature->size() != expected.size() ||
      CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0) {
    return Status(ErrorCode::SASL_AUTHENTICATION_FAILED,
                  "the server's SCRAM signature is wrong: it does not know the password");
  }
  return Status::OK();
}

}  // namespace mirra::security
