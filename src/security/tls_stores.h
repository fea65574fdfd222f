// Loading key and trust stores into an SSL_CTX (tls_stores.cc; used by tls.cc only).
#pragma once

#include <openssl/types.h>

#include "base/status.h"
#include "security/tls.h"

namespace mirra::security::detail {

// The certificate chain and private key (PEM file holding both, inline PEM, or PKCS12). OK and
// nothing done when the settings have no keystore. Errors are INVALID_CONFIG naming the key,
// the file and OpenSSL's reason.
Status load_keystore(SSL_CTX* ctx, const TlsSettings& s);
// The trusted CA certificates (PEM file, inline PEM, or PKCS12); a server also names them to
// clients as the CAs it accepts.
Status load_truststore(SSL_CTX* ctx, const TlsSettings& s, bool server);

}  // namespace mirra::security::detail
