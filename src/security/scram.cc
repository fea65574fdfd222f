#include "security/scram.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

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
  // Without randomness no credential can be made safely: a broken system, not bad input.
  if (RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), static_cast<int>(salt.size())) !=
      1) {
    throw std::runtime_error("OpenSSL RAND_bytes failed");
  }
  return salt;
}

}  // namespace mirra::security
