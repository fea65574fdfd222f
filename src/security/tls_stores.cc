// Key and trust stores in Kafka's forms: a PEM file holding the private key and then the chain
// (Kafka's PEM keystore), the same inline, or PKCS12 with a password.
#include "security/tls_stores.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/assert.h"
#include "security/tls_openssl.h"

namespace mirra::security {
namespace detail {

std::string take_openssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    std::string reason;
    if (const char* r = ERR_reason_error_string(e)) {
      reason = r;
    } else {
      char buf[256];
      ERR_error_string_n(e, buf, sizeof(buf));
      reason = buf;
    }
    if (out.find(reason) != std::string::npos) continue;  // the same reason from two layers
    if (!out.empty()) out += "; ";
    out += reason;
  }
  return out;
}

namespace {

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

// Where a store comes from, for messages: "ssl.keystore.location /etc/mirra/server.pem" or
// "ssl.keystore.key" (inline: the value is never shown, it may be a key).
struct Source {
  std::string name;
  std::string text;  // the file's contents or the inline value
};

Result<Source> from_file(std::string_view key, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return invalid(fmt::format("{} {}: cannot read: {}", key, path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return Source{fmt::format("{} {}", key, path), std::move(text).str()};
}

bool looks_like_pem(std::string_view text) { return text.find("-----BEGIN ") != text.npos; }

// A JKS store (Java's own format, magic 0xFEEDFEED) named without a type: say how to convert.
Status refuse_jks(const Source& source, std::string_view type_key) {
  if (source.text.size() < 4 || source.text.compare(0, 4, "\xFE\xED\xFE\xED") != 0) {
    return Status::OK();
  }
  return invalid(fmt::format(
      "{}: a JKS store, which is not supported ({}): convert it to PKCS12 (keytool "
      "-importkeystore -srckeystore <store>.jks -destkeystore <store>.p12 -deststoretype PKCS12) "
      "or to PEM",
      source.name, type_key));
}

BioPtr memory_bio(const std::string& text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// OpenSSL asks for a key's password through a callback; without one it would prompt on the
// terminal. An empty password fails the read (the message then says to set ssl.key.password).
int pem_password(char* buf, int size, int /*rwflag*/, void* user) {
  const auto* password = static_cast<const std::string*>(user);
  if (password == nullptr || password->empty()) return -1;
  const int n = std::min(size, static_cast<int>(password->size()));
  std::memcpy(buf, password->data(), static_cast<size_t>(n));
  return n;
}

Result<std::vector<X509Ptr>> pem_certificates(const Source& source) {
  BioPtr bio = memory_bio(source.text);
  std::vector<X509Ptr> certs;
  // PEM_read_bio_X509 skips blocks of other kinds (the key in a PEM keystore).
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certs.emplace_back(cert);
  }
  ERR_clear_error();  // the end of the text reads as "no start line"
  if (certs.empty()) return invalid(source.name + ": no PEM certificate in it");
  return certs;
}

Result<PkeyPtr> pem_private_key(const Source& source, const std::string& key_password) {
  BioPtr bio = memory_bio(source.text);
  auto* password = const_cast<std::string*>(&key_password);
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, pem_password, password));
  if (key) return key;
  const std::string errors = take_openssl_errors();
  const bool encrypted = source.text.find("ENCRYPTED") != std::string::npos;
  if (encrypted && key_password.empty()) {
    return invalid(source.name + ": the private key is encrypted: set ssl.key.password");
  }
  if (encrypted) {
    return invalid(fmt::format("{}: cannot decrypt the private key (wrong ssl.key.password?): {}",
                               source.name, errors));
  }
  return invalid(fmt::format("{}: no readable PEM private key: {}", source.name, errors));
}

struct Pkcs12Contents {
  PkeyPtr key;
  X509Ptr cert;
  std::vector<X509Ptr> others;
};

Result<Pkcs12Contents> read_pkcs12(const Source& source, std::string_view password_key,
                                   const std::string& password) {
  BioPtr bio = memory_bio(source.text);
  Pkcs12Ptr p12(d2i_PKCS12_bio(bio.get(), nullptr));
  if (!p12) {
    return invalid(fmt::format("{}: not a PKCS12 file: {}", source.name, take_openssl_errors()));
  }
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  STACK_OF(X509)* ca = nullptr;
  if (PKCS12_parse(p12.get(), password.c_str(), &key, &cert, &ca) != 1) {
    return invalid(fmt::format("{}: cannot open the PKCS12 store (wrong {}?): {}", source.name,
                               password_key, take_openssl_errors()));
  }
  Pkcs12Contents out;
  out.key.reset(key);
  out.cert.reset(cert);
  while (ca != nullptr && sk_X509_num(ca) > 0) out.others.emplace_back(sk_X509_shift(ca));
  sk_X509_free(ca);
  return out;
}

Status use_key_and_chain(SSL_CTX* ctx, const Source& source, PkeyPtr key,
                         std::vector<X509Ptr> chain) {
  MIRRA_ASSERT(!chain.empty(), "a keystore without certificates was accepted");
  if (SSL_CTX_use_certificate(ctx, chain.front().get()) != 1) {
    return invalid(source.name + ": the certificate: " + take_openssl_errors());
  }
  for (size_t i = 1; i < chain.size(); ++i) {
    if (SSL_CTX_add1_chain_cert(ctx, chain[i].get()) != 1) {
      return invalid(source.name + ": the certificate chain: " + take_openssl_errors());
    }
  }
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    return invalid(fmt::format("{}: the private key does not match the certificate: {}",
                               source.name, take_openssl_errors()));
  }
  return Status::OK();
}

Status load_pem_keystore(SSL_CTX* ctx, const TlsSettings& s, const Source& key_source,
                         const Source& chain_source) {
  auto key = pem_private_key(key_source, s.key_password);
  if (!key.ok()) return key.status();
  auto chain = pem_certificates(chain_source);
  if (!chain.ok()) return chain.status();
  return use_key_and_chain(ctx, chain_source, std::move(key.value()), std::move(chain.value()));
}

Status load_pkcs12_keystore(SSL_CTX* ctx, const TlsSettings& s, const Source& source) {
  if (Status st = refuse_jks(source, "ssl.keystore.type"); !st.ok()) return st;
  auto p12 = read_pkcs12(source, "ssl.keystore.password", s.keystore_password);
  if (!p12.ok()) return p12.status();
  if (!p12->key || !p12->cert) return invalid(source.name + ": no private key entry in it");
  std::vector<X509Ptr> chain;
  chain.push_back(std::move(p12->cert));
  for (X509Ptr& c : p12->others) chain.push_back(std::move(c));
  return use_key_and_chain(ctx, source, std::move(p12->key), std::move(chain));
}

Status trust(SSL_CTX* ctx, const Source& source, const std::vector<X509Ptr>& certs, bool server) {
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  for (const X509Ptr& cert : certs) {
    if (X509_STORE_add_cert(store, cert.get()) != 1) {
      return invalid(source.name + ": " + take_openssl_errors());
    }
    // Tells clients which CAs the server accepts, so that one with several certificates can
    // pick the right one.
    if (server && SSL_CTX_add_client_CA(ctx, cert.get()) != 1) {
      return invalid(source.name + ": " + take_openssl_errors());
    }
  }
  return Status::OK();
}

}  // namespace

Status load_keystore(SSL_CTX* ctx, const TlsSettings& s) {
  ERR_clear_error();
  if (!s.keystore_key.empty()) {
    return load_pem_keystore(
        ctx, s, Source{"ssl.keystore.key", s.keystore_key},
        Source{"ssl.keystore.certificate.chain", s.keystore_certificate_chain});
  }
  if (s.keystore_location.empty()) return Status::OK();
  auto source = from_file("ssl.keystore.location", s.keystore_location);
  if (!source.ok()) return source.status();
  const bool pem = s.keystore_type.empty() ? looks_like_pem(source->text)
                                           : s.keystore_type == "PEM";
  if (pem) return load_pem_keystore(ctx, s, source.value(), source.value());
  return load_pkcs12_keystore(ctx, s, source.value());
}

Status load_truststore(SSL_CTX* ctx, const TlsSettings& s, bool server) {
  ERR_clear_error();
  if (!s.truststore_certificates.empty()) {
    Source source{"ssl.truststore.certificates", s.truststore_certificates};
    auto certs = pem_certificates(source);
    if (!certs.ok()) return certs.status();
    return trust(ctx, source, certs.value(), server);
  }
  auto source = from_file("ssl.truststore.location", s.truststore_location);
  if (!source.ok()) return source.status();
  const bool pem = s.truststore_type.empty() ? looks_like_pem(source->text)
                                             : s.truststore_type == "PEM";
  if (pem) {
    auto certs = pem_certificates(source.value());
    if (!certs.ok()) return certs.status();
    return trust(ctx, source.value(), certs.value(), server);
  }
  if (Status st = refuse_jks(source.value(), "ssl.truststore.type"); !st.ok()) return st;
  auto p12 = read_pkcs12(source.value(), "ssl.truststore.password", s.truststore_password);
  if (!p12.ok()) return p12.status();
  std::vector<X509Ptr> certs = std::move(p12->others);
  if (p12->cert) certs.push_back(std::move(p12->cert));
  if (certs.empty()) return invalid(source->name + ": no certificate in it");
  return trust(ctx, source.value(), certs, server);
}

}  // namespace detail
}  // namespace mirra::security
