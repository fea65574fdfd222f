#include "security/sasl.h"

#include <openssl/crypto.h>

namespace mirra::security {

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
