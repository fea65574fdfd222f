// HttpServer: a small HTTP/1.1 server for the broker's observability endpoints (/metrics, the
// JSON API, the console), on GNU libmicrohttpd. Parsing HTTP is the library's; this file only
// routes a request to a handler and enforces the limits that keep hostile or unlucky clients
// from hurting the broker (docs/observability.md):
//   - a request's headers must fit in `connection_memory_limit` (else 431, from the library);
//   - a connection idle for `connection_timeout_s` is closed (slow clients, half-sent requests);
//   - at most `max_connections` at once (more are refused at accept);
//   - only GET and HEAD; a request body is refused (413) rather than read.
//
// Threading: the server runs its own polling thread (epoll); handlers run on it, one at a time,
// never on the broker's core thread. A handler that needs broker state posts work to the core
// thread and waits for it (server/http_endpoints.cc); the Kafka listeners never wait for HTTP.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

struct MHD_Daemon;

namespace mirra::http {

struct Request {
  std::string method;  // GET or HEAD
  std::string path;    // without the query string
  std::map<std::string, std::string> query;
  std::string peer_host;  // the client's IP address as text
  // Basic auth credentials as the client sent them; nullopt without an Authorization header.
  std::optional<std::pair<std::string, std::string>> basic_auth;
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

Response text_response(int status, std::string body);

using Handler = std::function<Response(const Request&)>;
// Whether a user and password may see the endpoints.
using Authenticator = std::function<bool(const std::string& user, const std::string& password)>;

struct ServerOptions {
  std::string host = "127.0.0.1";  // a numeric IPv4 or IPv6 address; "" or "0.0.0.0": any
  uint16_t port = 0;               // 0: a free port (port() tells which)
  unsigned max_connections = 64;
  unsigned connection_timeout_s = 10;
  size_t connection_memory_limit = 32 * 1024;  // request line, headers and the answer's header
  // Null: no authentication. Else every request needs basic auth that this accepts (401 with
  // a WWW-Authenticate challenge for `realm` otherwise).
  Authenticator authenticate;
  std::string realm = "mirra";
  // Both set: HTTPS (the library's TLS, GnuTLS) with this certificate chain and unencrypted
  // private key, in PEM; both empty: plain HTTP.
  std::string tls_certificate_pem;
  std::string tls_key_pem;
};

class HttpServer {
 public:
  // Routes are exact paths; "/" serves only "/". Unknown paths get 404.
  static Result<std::unique_ptr<HttpServer>> start(ServerOptions options,
                                                   std::map<std::string, Handler> routes);
  ~HttpServer();  // stops the polling thread; handlers running finish first
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const { return port_; }
  const ServerOptions& options() const { return options_; }

  // libmicrohttpd's callback; public for it, not for callers.
  Response handle(const Request& request) const;

 private:
  HttpServer(ServerOptions options, std::map<std::string, Handler> routes);

  ServerOptions options_;
  std::map<std::string, Handler> routes_;
  MHD_Daemon* daemon_ = nullptr;
  uint16_t port_ = 0;
};

}  // namespace mirra::http
