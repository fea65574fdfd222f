// A keystore as unencrypted PEM text, for the TLS libraries that are not OpenSSL: the broker's
// HTTP listener (src/http, libmicrohttpd on GnuTLS) takes its certificate and key as PEM in
// memory. The keystore is read exactly as the Kafka listeners read theirs (tls_stores.h: a PEM
// file, inline PEM or PKCS12, with key_password), so both accept the same files.
#pragma once

#include <string>

#include "base/status.h"
#include "security/tls.h"

namespace mirra::security {

struct PemIdentity {
  std::string certificate_chain;  // the leaf first, then the chain
  std::string private_key;        // PKCS#8, unencrypted
};

// INVALID_CONFIG naming the key when the keystore is missing or cannot be read.
Result<PemIdentity> keystore_as_pem(const TlsSettings& s);

}  // namespace mirra::security
