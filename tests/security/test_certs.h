// Certificates for TLS tests, made with the openssl command line into a temporary directory
// once per test process (and removed at exit). EC P-256 keys: quick to make.
//
//   ca.crt / ca.key               the trusted test CA
//   server.key / server.crt       CN=localhost, SAN DNS:localhost, IP:127.0.0.1, signed by the CA
//   server-keystore.pem           server.key then server.crt (Kafka's PEM keystore file)
//   server.p12                    key, certificate and CA in PKCS12, password kP12Password
//   server-encrypted.key          server.key as encrypted PKCS#8, password kKeyPassword
//   server-encrypted-keystore.pem server-encrypted.key then server.crt
//   client.key / client.crt       subject /CN=alice/OU=eng/O=Mirra (Kafka's DN
//                                 "O=Mirra,OU=eng,CN=alice"), signed by the CA
//   client-keystore.pem           client.key then client.crt
//   truststore.p12                ca.crt alone in PKCS12, password kTrustPassword
//   rogue-ca.crt                  a second CA nobody trusts
//   rogue.key / rogue.crt         CN=mallory, same SANs as the server, signed by the rogue CA
//   rogue-keystore.pem            rogue.key then rogue.crt
//
// Every leaf certificate may serve as a server or a client certificate.
#pragma once

#include <string>
#include <string_view>

#include "security/tls.h"

namespace mirra::security::testing {

inline constexpr std::string_view kP12Password = "p12-secret";
inline constexpr std::string_view kKeyPassword = "key-secret";
inline constexpr std::string_view kTrustPassword = "trust-secret";
// The client certificate's subject as Kafka prints it.
inline constexpr std::string_view kClientDn = "O=Mirra,OU=eng,CN=alice";

class TestCerts {
 public:
  // Made on first use; throws std::runtime_error naming the openssl command that failed.
  static const TestCerts& get();

  const std::string& dir() const { return dir_; }
  std::string path(std::string_view file) const;
  std::string read(std::string_view file) const;

  // A server on server-keystore.pem trusting ca.crt (client auth as given).
  TlsSettings server_settings(ClientAuth auth = ClientAuth::none) const;
  // A client trusting ca.crt, without a certificate of its own.
  TlsSettings client_settings() const;
  // The same with client-keystore.pem (alice).
  TlsSettings client_settings_with_cert() const;

  ~TestCerts();

 private:
  TestCerts();
  void make() const;
  std::string dir_;
};

}  // namespace mirra::security::testing
