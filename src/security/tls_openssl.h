// Helpers shared by tls.cc and tls_stream.cc (not part of the module's interface): OpenSSL's
// error queue as text, and owning pointers for OpenSSL objects.
#pragma once

#include <openssl/bio.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace mirra::security::detail {

// Empties this thread's OpenSSL error queue into one line: the reasons, oldest first, joined by
// "; " ("bad decrypt", "certificate verify failed"); empty when the queue was empty. OpenSSL's
// reasons never contain the passwords they were given.
std::string take_openssl_errors();

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct Pkcs12Free {
  void operator()(PKCS12* p) const { PKCS12_free(p); }
};
struct SslCtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using Pkcs12Ptr = std::unique_ptr<PKCS12, Pkcs12Free>;
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

}  // namespace mirra::security::detail
