#include "test_certs.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace mirra::security::testing {
namespace {

// One config for every certificate: the CA's extensions, and the leaves' (usable by either
// end, with the names the loopback tests connect to).
constexpr std::string_view kOpensslConfig = R"([req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[leaf_ext]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth,clientAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
authorityKeyIdentifier = keyid
)";

constexpr std::string_view kNewKey = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

void write_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

const TestCerts& TestCerts::get() {
  static const TestCerts certs;
  return certs;
}

TestCerts::TestCerts() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "mirra-test-certs-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  make();
}

TestCerts::~TestCerts() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string TestCerts::path(std::string_view file) const {
  return fmt::format("{}/{}", dir_, file);
}

std::string TestCerts::read(std::string_view file) const {
  std::ifstream in(path(file), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

void TestCerts::make() const {
  write_file(path("openssl.cnf"), kOpensslConfig);
  // Runs in the directory; the output goes to openssl.log there, for a failure's diagnosis.
  auto run = [this](const std::string& command) {
    const std::string line = fmt::format("cd '{}' && ( {} ) >>openssl.log 2>&1", dir_, command);
    if (std::system(line.c_str()) != 0) {
      throw std::runtime_error(fmt::format("failed: {} (see {}/openssl.log)", command, dir_));
    }
  };
  auto leaf = [&](std::string_view name, std::string_view subject, std::string_view ca) {
    run(fmt::format("openssl req -config openssl.cnf -new {} -keyout {}.key -out {}.csr -subj '{}'",
                    kNewKey, name, name, subject));
    run(fmt::format(
        "openssl x509 -req -in {0}.csr -CA {1}.crt -CAkey {1}.key -CAserial {1}.srl "
        "-CAcreateserial -out {0}.crt -days 825 -extfile openssl.cnf -extensions leaf_ext",
        name, ca));
    run(fmt::format("cat {0}.key {0}.crt > {0}-keystore.pem", name));
  };
  for (std::string_view ca : {"ca", "rogue-ca"}) {
    run(fmt::format(
        "openssl req -config openssl.cnf -x509 {} -keyout {}.key -out {}.crt -days 3650 "
        "-subj '/CN=Mirra {} CA' -extensions ca_ext",
        kNewKey, ca, ca, ca == "ca" ? "Test" : "Rogue"));
  }
  leaf("server", "/CN=localhost", "ca");
  leaf("client", "/CN=alice/OU=eng/O=Mirra", "ca");
  leaf("rogue", "/CN=mallory", "rogue-ca");
  run(fmt::format(
      "openssl pkcs12 -export -inkey server.key -in server.crt -certfile ca.crt -name server "
      "-out server.p12 -passout pass:{}",
      kP12Password));
  run(fmt::format("openssl pkcs12 -export -nokeys -in ca.crt -out truststore.p12 -passout pass:{}",
                  kTrustPassword));
  run(
      fmt::format("openssl pkcs8 -topk8 -v2 aes-256-cbc -in server.key -out server-encrypted.key "
                  "-passout pass:{}",
                  kKeyPassword));
  run("cat server-encrypted.key server.crt > server-encrypted-keystore.pem");
}

TlsSettings TestCerts::server_settings(ClientAuth auth) const {
  TlsSettings s;
  s.keystore_location = path("server-keystore.pem");
  s.truststore_location = path("ca.crt");
  s.client_auth = auth;
  return s;
}

TlsSettings TestCerts::client_settings() const {
  TlsSettings s;
  s.truststore_location = path("ca.crt");
  return s;
}

TlsSettings TestCerts::client_settings_with_cert() const {
  TlsSettings s = client_settings();
  s.keystore_location = path("client-keystore.pem");
  return s;
}

}  // namespace mirra::security::testing
