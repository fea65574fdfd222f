// Helpers shared by the SASL and SCRAM tests: base64 and a hand-made SCRAM client-final, so that
// a test can send what a real client would (librdkafka's doubled nonce) or what no client should.
#pragma once

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>
#include <string_view>

#include "security/scram.h"

namespace mirra::security::testing {

inline std::string b64(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

inline std::string unb64(std::string_view in) {
  std::string out(in.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()),
                          static_cast<int>(in.size()));
  if (n < 0) return {};
  // EVP_DecodeBlock counts the padding as zero bytes.
  if (in.ends_with("==")) {
    n -= 2;
  } else if (in.ends_with("=")) {
    n -= 1;
  }
  out.resize(static_cast<size_t>(n));
  return out;
}

inline const EVP_MD* md(ScramMechanism m) {
  return m == ScramMechanism::sha256 ? EVP_sha256() : EVP_sha512();
}

inline std::string hmac(ScramMechanism m, std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(md(m), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

inline std::string sha(ScramMechanism m, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md(m), nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

// The value of attribute `key` ("s", "i", "r") in a SCRAM message.
inline std::string attribute(std::string_view message, char key) {
  const std::string prefix = std::string(1, key) + "=";
  size_t at = message.starts_with(prefix) ? 0 : message.find("," + prefix);
  if (at == std::string_view::npos) return {};
  if (at != 0) ++at;
  const size_t end = message.find(',', at);
  return std::string(message.substr(at + 2, end == std::string_view::npos ? end : end - at - 2));
}

// A client-final message with a correct proof for `without_proof` (which the caller shapes:
// any nonce, any channel binding), as RFC 5802 computes it.
inline std::string client_final(ScramMechanism m, std::string_view password,
                                std::string_view client_first_bare, std::string_view server_first,
                                const std::string& without_proof) {
  const std::string salt = unb64(attribute(server_first, 's'));
  const int32_t iterations = std::stoi(attribute(server_first, 'i'));
  const std::string salted = scram_salted_password(m, password, salt, iterations);
  const std::string client_key = hmac(m, salted, "Client Key");
  const std::string auth_message = std::string(client_first_bare) + "," +
                                   std::string(server_first) + "," + without_proof;
  const std::string signature = hmac(m, sha(m, client_key), auth_message);
  std::string proof(client_key.size(), '\0');
  for (size_t i = 0; i < proof.size(); ++i) proof[i] = char(client_key[i] ^ signature[i]);
  return without_proof + ",p=" + b64(proof);
}

}  // namespace mirra::security::testing
