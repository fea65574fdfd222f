// TlsSettings from Kafka's ssl.* keys, and TlsContext: one SSL_CTX per listener or per link.
// Loading key and trust stores is in tls_stores.cc.
#include "security/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "base/text.h"
#include "security/tls_openssl.h"
#include "security/tls_stores.h"

namespace mirra::security {
namespace {

using detail::SslCtxPtr;
using detail::take_openssl_errors;

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

// "PEM", "PKCS12" or "" (told from the contents). JKS is Kafka's default and what most
// existing Kafka setups have, so its refusal says how to convert.
Result<std::string> store_type(std::string_view key, std::string value) {
  value = to_upper(trim(value));
  if (value.empty() || value == "PEM" || value == "PKCS12") return value;
  if (value == "JKS") {
    return invalid(fmt::format(
        "{}=JKS is not supported: convert the store to PKCS12 (keytool -importkeystore "
        "-srckeystore <store>.jks -destkeystore <store>.p12 -deststoretype PKCS12) or to PEM",
        key));
  }
  return invalid(fmt::format("{}={} is not supported (PEM or PKCS12)", key, value));
}

Result<ClientAuth> client_auth_from(std::string value) {
  value = to_lower(trim(value));
  if (value == "none" || value.empty()) return ClientAuth::none;
  if (value == "requested") return ClientAuth::requested;
  if (value == "required") return ClientAuth::required;
  return invalid(
      fmt::format("ssl.client.auth={} is not valid (none, requested or required)", value));
}

Result<std::vector<std::string>> protocols_from(std::string_view value) {
  std::vector<std::string> out;
  for (const std::string& p : split_list(value)) {
    const std::string l = to_lower(p);
    if (l == "tlsv1.2") {
      out.push_back("TLSv1.2");
    } else if (l == "tlsv1.3") {
      out.push_back("TLSv1.3");
    } else if (l == "tlsv1" || l == "tlsv1.1" || l == "sslv3") {
      return invalid(fmt::format(
          "ssl.enabled.protocols: {} is not supported (no longer secure); use TLSv1.2 or TLSv1.3",
          p));
    } else {
      return invalid(
          fmt::format("ssl.enabled.protocols: unknown protocol {} (TLSv1.2 or TLSv1.3)", p));
    }
  }
  if (out.empty()) return invalid("ssl.enabled.protocols is empty (TLSv1.2 or TLSv1.3)");
  return out;
}

Status check_sources(const TlsSettings& s) {
  if (!s.keystore_location.empty() &&
      (!s.keystore_key.empty() || !s.keystore_certificate_chain.empty())) {
    return invalid(
        "ssl.keystore.location and ssl.keystore.key / ssl.keystore.certificate.chain are both "
        "set: use one or the other");
  }
  if (s.keystore_key.empty() != s.keystore_certificate_chain.empty()) {
    return invalid("ssl.keystore.key and ssl.keystore.certificate.chain go together");
  }
  if (!s.keystore_key.empty() && s.keystore_type == "PKCS12") {
    return invalid("ssl.keystore.key is PEM: ssl.keystore.type must be PEM");
  }
  if (!s.truststore_location.empty() && !s.truststore_certificates.empty()) {
    return invalid(
        "ssl.truststore.location and ssl.truststore.certificates are both set: use one or the "
        "other");
  }
  if (!s.truststore_certificates.empty() && s.truststore_type == "PKCS12") {
    return invalid("ssl.truststore.certificates is PEM: ssl.truststore.type must be PEM");
  }
  return Status::OK();
}

// ssl.cipher.suites names either spelling of a TLS 1.2 suite (OpenSSL's
// "ECDHE-RSA-AES256-GCM-SHA384" or the IANA "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384" that Java
// configs use) or a TLS 1.3 suite, which OpenSSL configures separately.
struct CipherLists {
  std::string tls12;  // OpenSSL names, ':'-joined
  std::string tls13;
};

Result<CipherLists> cipher_lists(const std::vector<std::string>& names) {
  SslCtxPtr all(SSL_CTX_new(TLS_method()));
  if (!all || SSL_CTX_set_cipher_list(all.get(), "ALL:COMPLEMENTOFALL") != 1) {
    return invalid("ssl.cipher.suites: OpenSSL's cipher list: " + take_openssl_errors());
  }
  STACK_OF(SSL_CIPHER)* known = SSL_CTX_get_ciphers(all.get());
  CipherLists out;
  for (const std::string& name : names) {
    const SSL_CIPHER* found = nullptr;
    for (int i = 0; i < sk_SSL_CIPHER_num(known) && !found; ++i) {
      const SSL_CIPHER* c = sk_SSL_CIPHER_value(known, i);
      const char* standard = SSL_CIPHER_standard_name(c);
      if (name == SSL_CIPHER_get_name(c) || (standard && name == standard)) found = c;
    }
    if (!found) return invalid("ssl.cipher.suites: unknown cipher suite " + name);
    std::string& list = std::strcmp(SSL_CIPHER_get_version(found), "TLSv1.3") == 0 ? out.tls13
                                                                                   : out.tls12;
    if (!list.empty()) list += ':';
    list += SSL_CIPHER_get_name(found);
  }
  return out;
}

int protocol_version(const std::string& name) {
  return name == "TLSv1.3" ? TLS1_3_VERSION : TLS1_2_VERSION;
}

// Protocol range and cipher suites. Listing suites of one protocol only turns the other
// protocol off, as Java does (no suite is left for it).
Status configure_protocols(SSL_CTX* ctx, const TlsSettings& s) {
  int min_version = TLS1_3_VERSION;
  int max_version = TLS1_2_VERSION;
  for (const std::string& p : s.enabled_protocols) {
    min_version = std::min(min_version, protocol_version(p));
    max_version = std::max(max_version, protocol_version(p));
  }
  if (s.enabled_protocols.empty()) return invalid("ssl.enabled.protocols is empty");
  if (!s.cipher_suites.empty()) {
    auto lists = cipher_lists(s.cipher_suites);
    if (!lists.ok()) return lists.status();
    if (lists->tls12.empty()) min_version = TLS1_3_VERSION;
    if (lists->tls13.empty()) max_version = TLS1_2_VERSION;
    if (min_version > max_version) {
      return invalid("ssl.cipher.suites has no suite for the protocols of ssl.enabled.protocols");
    }
    if (!lists->tls12.empty() && SSL_CTX_set_cipher_list(ctx, lists->tls12.c_str()) != 1) {
      return invalid("ssl.cipher.suites: " + take_openssl_errors());
    }
    if (!lists->tls13.empty() && SSL_CTX_set_ciphersuites(ctx, lists->tls13.c_str()) != 1) {
      return invalid("ssl.cipher.suites: " + take_openssl_errors());
    }
  }
  if (SSL_CTX_set_min_proto_version(ctx, min_version) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, max_version) != 1) {
    return invalid("ssl.enabled.protocols: " + take_openssl_errors());
  }
  return Status::OK();
}

// What both ends share: protocols, ciphers, the I/O modes TlsStream relies on, kernel TLS.
Result<SslCtxPtr> new_context(const TlsSettings& s, bool server) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()));
  if (!ctx) return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "SSL_CTX_new: " + take_openssl_errors());
  if (Status st = configure_protocols(ctx.get(), s); !st.ok()) return st;
  // Partial writes let write_all make progress record by record; a moving buffer lets a retry
  // after WANT_WRITE come from another address (the same bytes). Kernel TLS takes over the
  // record layer where the kernel has the tls module (sendfile stays zero-copy); renegotiation
  // would let a write need a read, which the stream's two loops do not expect.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx.get(), SSL_OP_ENABLE_KTLS | SSL_OP_NO_RENEGOTIATION);
  // Read ahead: OpenSSL takes whatever the socket holds (up to its buffer) in one read(2)
  // instead of each record's header and body in two; a 1 MB produce request is 64 records.
  SSL_CTX_set_read_ahead(ctx.get(), 1);
  SSL_CTX_set_default_read_buffer_len(ctx.get(), 64 * 1024);
  if (Status st = detail::load_keystore(ctx.get(), s); !st.ok()) return st;
  return ctx;
}

}  // namespace

const std::vector<std::string_view>& tls_setting_keys() {
  static const std::vector<std::string_view> keys{
      "ssl.keystore.type",
      "ssl.keystore.location",
      "ssl.keystore.password",
      "ssl.key.password",
      "ssl.keystore.certificate.chain",
      "ssl.keystore.key",
      "ssl.truststore.type",
      "ssl.truststore.location",
      "ssl.truststore.password",
      "ssl.truststore.certificates",
      "ssl.client.auth",
      "ssl.enabled.protocols",
      "ssl.cipher.suites",
      "ssl.endpoint.identification.algorithm",
  };
  return keys;
}

bool is_secret_tls_key(std::string_view key) {
  return key == "ssl.keystore.password" || key == "ssl.key.password" ||
         key == "ssl.truststore.password" || key == "ssl.keystore.key";
}

Result<TlsSettings> read_tls_settings(const SettingLookup& get) {
  TlsSettings s;
  auto text = [&get](std::string_view key, std::string& out) {
    if (auto v = get(key)) out = *v;
  };
  std::string keystore_type, truststore_type;
  text("ssl.keystore.type", keystore_type);
  text("ssl.truststore.type", truststore_type);
  auto ks_type = store_type("ssl.keystore.type", keystore_type);
  if (!ks_type.ok()) return ks_type.status();
  auto ts_type = store_type("ssl.truststore.type", truststore_type);
  if (!ts_type.ok()) return ts_type.status();
  s.keystore_type = ks_type.value();
  s.truststore_type = ts_type.value();
  text("ssl.keystore.location", s.keystore_location);
  text("ssl.keystore.password", s.keystore_password);
  text("ssl.key.password", s.key_password);
  text("ssl.keystore.certificate.chain", s.keystore_certificate_chain);
  text("ssl.keystore.key", s.keystore_key);
  text("ssl.truststore.location", s.truststore_location);
  text("ssl.truststore.password", s.truststore_password);
  text("ssl.truststore.certificates", s.truststore_certificates);
  if (auto v = get("ssl.client.auth")) {
    auto auth = client_auth_from(*v);
    if (!auth.ok()) return auth.status();
    s.client_auth = auth.value();
  }
  if (auto v = get("ssl.enabled.protocols")) {
    auto protocols = protocols_from(*v);
    if (!protocols.ok()) return protocols.status();
    s.enabled_protocols = std::move(protocols.value());
  }
  if (auto v = get("ssl.cipher.suites")) s.cipher_suites = split_list(*v);
  if (auto v = get("ssl.endpoint.identification.algorithm")) {
    const std::string algorithm = to_lower(trim(*v));
    if (!algorithm.empty() && algorithm != "https") {
      return invalid(fmt::format(
          "ssl.endpoint.identification.algorithm={} is not valid (https, or empty to turn the "
          "host name check off)",
          *v));
    }
    s.endpoint_identification_algorithm = algorithm;
  }
  if (Status st = check_sources(s); !st.ok()) return st;
  return s;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

Result<std::shared_ptr<TlsContext>> TlsContext::server(const TlsSettings& settings) {
  if (!settings.has_keystore()) {
    return invalid(
        "a TLS server needs a keystore (ssl.keystore.location, or ssl.keystore.key with "
        "ssl.keystore.certificate.chain)");
  }
  const bool has_truststore = !settings.truststore_location.empty() ||
                              !settings.truststore_certificates.empty();
  if (settings.client_auth != ClientAuth::none && !has_truststore) {
    return invalid(
        "ssl.client.auth requested or required needs a truststore (ssl.truststore.location or "
        "ssl.truststore.certificates) to verify client certificates");
  }
  auto ctx = new_context(settings, /*server=*/true);
  if (!ctx.ok()) return ctx.status();
  SSL_CTX* c = ctx->get();
  if (has_truststore) {
    if (Status st = detail::load_truststore(c, settings, /*server=*/true); !st.ok()) return st;
  }
  int mode = SSL_VERIFY_NONE;
  if (settings.client_auth == ClientAuth::requested) mode = SSL_VERIFY_PEER;
  if (settings.client_auth == ClientAuth::required) {
    mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  SSL_CTX_set_verify(c, mode, nullptr);
  // Resumed sessions carry the verified client certificate; OpenSSL refuses to resume a
  // verified session without a context id.
  static const unsigned char kSessionContext[] = "mirra";
  SSL_CTX_set_session_id_context(c, kSessionContext, sizeof(kSessionContext) - 1);
  std::shared_ptr<TlsContext> out(new TlsContext(ctx->release(), /*server=*/true));
  out->client_auth_ = settings.client_auth;
  return out;
}

Result<std::shared_ptr<TlsContext>> TlsContext::client(const TlsSettings& settings) {
  auto ctx = new_context(settings, /*server=*/false);
  if (!ctx.ok()) return ctx.status();
  SSL_CTX* c = ctx->get();
  if (!settings.truststore_location.empty() || !settings.truststore_certificates.empty()) {
    if (Status st = detail::load_truststore(c, settings, /*server=*/false); !st.ok()) return st;
  } else if (SSL_CTX_set_default_verify_paths(c) != 1) {
    return invalid("the system's default CA certificates: " + take_openssl_errors());
  }
  // A Kafka client always verifies the broker's certificate; only the host name check is
  // optional.
  SSL_CTX_set_verify(c, SSL_VERIFY_PEER, nullptr);
  std::shared_ptr<TlsContext> out(new TlsContext(ctx->release(), /*server=*/false));
  out->check_host_ = settings.endpoint_identification_algorithm == "https";
  return out;
}

}  // namespace mirra::security
