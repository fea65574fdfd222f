#include "security/tls_pem.h"

#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "security/tls_openssl.h"
#include "security/tls_stores.h"

namespace mirra::security {
namespace {

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

}  // namespace

Result<PemIdentity> keystore_as_pem(const TlsSettings& s) {
  if (!s.has_keystore()) {
    return Status(ErrorCode::INVALID_CONFIG,
                  "ssl.keystore.location (or ssl.keystore.key) is required for TLS");
  }
  detail::SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return Status(ErrorCode::UNKNOWN_SERVER_ERROR, detail::take_openssl_errors());
  if (Status st = detail::load_keystore(ctx.get(), s); !st.ok()) return st;
  X509* leaf = SSL_CTX_get0_certificate(ctx.get());
  EVP_PKEY* key = SSL_CTX_get0_privatekey(ctx.get());
  STACK_OF(X509)* chain = nullptr;
  SSL_CTX_get0_chain_certs(ctx.get(), &chain);
  detail::BioPtr certs(BIO_new(BIO_s_mem()));
  detail::BioPtr pkey(BIO_new(BIO_s_mem()));
  bool written = certs && pkey && leaf != nullptr && key != nullptr &&
                 PEM_write_bio_X509(certs.get(), leaf) == 1 &&
                 PEM_write_bio_PrivateKey(pkey.get(), key, nullptr, nullptr, 0, nullptr, nullptr) ==
                     1;
  for (int i = 0; written && chain != nullptr && i < sk_X509_num(chain); ++i) {
    written = PEM_write_bio_X509(certs.get(), sk_X509_value(chain, i)) == 1;
  }
  if (!written) {
    return Status(ErrorCode::INVALID_CONFIG,
                  "ssl.keystore: cannot write its certificate and key as PEM: " +
                      detail::take_openssl_errors());
  }
  return PemIdentity{bio_text(certs.get()), bio_text(pkey.get())};
}

}  // namespace mirra::security
