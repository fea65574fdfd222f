#include "http/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

#include <cstdarg>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "base/log.h"

namespace mirra::http {
namespace {

constexpr std::string_view kMirraLogComponent = "http";
// GnuTLS' priority string: its defaults, less every protocol version but TLS 1.3 and 1.2.
constexpr const char* kTlsPriorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";

// libmicrohttpd's own complaints (a connection refused over the limit, a header too large),
// at debug level: they describe clients, not the broker.
void log_from_library(void*, const char* format, va_list args) {
  char line[512];
  std::vsnprintf(line, sizeof line, format, args);
  std::string_view text(line);
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  MIRRA_LOG_DEBUG("{}", text);
}

MHD_Result add_query_arg(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* query = static_cast<std::map<std::string, std::string>*>(cls);
  if (key != nullptr) (*query)[key] = value != nullptr ? value : "";
  return MHD_YES;
}

Request read_request(MHD_Connection* connection, const char* url, const char* method) {
  Request r;
  r.method = method;
  r.path = url;
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &add_query_arg, &r.query);
  if (const MHD_ConnectionInfo* info =
          MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) {
    char text[INET6_ADDRSTRLEN] = {};
    const sockaddr* a = info->client_addr;
    if (a->sa_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a)->sin_addr, text, sizeof text);
    } else if (a->sa_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr, text, sizeof text);
    }
    r.peer_host = text;
  }
  char* password = nullptr;
  if (char* user = MHD_basic_auth_get_username_password(connection, &password)) {
    r.basic_auth.emplace(user, password != nullptr ? password : "");
    MHD_free(user);
  }
  if (password != nullptr) MHD_free(password);
  return r;
}

MHD_Result send(MHD_Connection* connection, const Response& out, const std::string& realm,
                bool challenge) {
  MHD_Response* response = MHD_create_response_from_buffer(
      out.body.size(), const_cast<char*>(out.body.data()), MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, out.content_type.c_str());
  for (const auto& [name, value] : out.headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  const MHD_Result ok =
      challenge ? MHD_queue_basic_auth_fail_response(connection, realm.c_str(), response)
                : MHD_queue_response(connection, static_cast<unsigned>(out.status), response);
  MHD_destroy_response(response);
  return ok;
}

MHD_Result on_request(void* cls, MHD_Connection* connection, const char* url, const char* method,
                      const char*, const char*, size_t* upload_size, void** state) {
  auto* server = static_cast<HttpServer*>(cls);
  const char* length =
      MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
  const bool has_body = (length != nullptr && std::strcmp(length, "0") != 0) ||
                        MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_TRANSFER_ENCODING) != nullptr;
  const std::string_view verb(method);
  const bool refused = (verb != "GET" && verb != "HEAD") || has_body;
  // The library calls once when the headers are in, then again for each piece of a body and
  // once at its end. A request with a body is refused at once, without reading the body (the
  // connection is then closed); any other is answered at the second call, which keeps the
  // connection open for the client's next request.
  if (*state == nullptr && !refused) {
    *state = server;
    return MHD_YES;
  }
  if (*state != nullptr && *upload_size != 0) {
    *upload_size = 0;  // not reached: bodies are refused at the first call
    return MHD_YES;
  }
  *state = server;
  Response out;
  if (verb != "GET" && verb != "HEAD") {
    out = text_response(405, "only GET and HEAD\n");
    out.headers.emplace_back("Allow", "GET, HEAD");
  } else if (has_body) {
    out = text_response(413, "a request body is not accepted\n");
  } else {
    out = server->handle(read_request(connection, url, method));
  }
  // handle() answers 401 only for missing or refused credentials: with the challenge.
  return send(connection, out, server->options().realm, out.status == 401);
}

}  // namespace

Response text_response(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpServer::HttpServer(ServerOptions options, std::map<std::string, Handler> routes)
    : options_(std::move(options)), routes_(std::move(routes)) {}

HttpServer::~HttpServer() {
  if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
}

Response HttpServer::handle(const Request& request) const {
  if (options_.authenticate) {
    if (!request.basic_auth ||
        !options_.authenticate(request.basic_auth->first, request.basic_auth->second)) {
      return text_response(401, "authentication required\n");
    }
  }
  auto it = routes_.find(request.path);
  if (it == routes_.end()) return text_response(404, "no such path\n");
  return it->second(request);  // for HEAD the library sends the headers only
}

Result<std::unique_ptr<HttpServer>> HttpServer::start(ServerOptions options,
                                                      std::map<std::string, Handler> routes) {
  sockaddr_storage addr{};
  const std::string host = options.host.empty() ? "0.0.0.0" : options.host;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(options.port);
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(options.port);
    flags |= MHD_USE_IPv6;
  } else {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("HTTP listener host '{}' is not a numeric IP address", host));
  }
  if (options.tls_certificate_pem.empty() != options.tls_key_pem.empty()) {
    return Status(ErrorCode::INVALID_CONFIG, "HTTPS needs both a certificate and a key");
  }
  if (!options.tls_key_pem.empty()) flags |= MHD_USE_TLS;
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(options), std::move(routes)));
  const ServerOptions& o = server->options_;
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_SOCK_ADDR, 0, &addr},
      {MHD_OPTION_CONNECTION_LIMIT, static_cast<intptr_t>(o.max_connections), nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, static_cast<intptr_t>(o.connection_timeout_s), nullptr},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(o.connection_memory_limit),
       nullptr},
      {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&log_from_library), nullptr}};
  if (flags & MHD_USE_TLS) {
    // The library copies neither: they live in options_ as long as the daemon.
    items.push_back(
        {MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(o.tls_certificate_pem.c_str())});
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(o.tls_key_pem.c_str())});
    // TLS 1.2 and 1.3 only, as Kafka's listeners (ssl.enabled.protocols).
    items.push_back({MHD_OPTION_HTTPS_PRIORITIES, 0, const_cast<char*>(kTlsPriorities)});
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  server->daemon_ = MHD_start_daemon(flags, 0, nullptr, nullptr, &on_request, server.get(),
                                     MHD_OPTION_ARRAY, items.data(), MHD_OPTION_END);
  if (server->daemon_ == nullptr) {
    return Status(
        ErrorCode::INVALID_CONFIG,
        fmt::format("cannot listen for HTTP on {}:{} (address in use{}?)", host, o.port,
                    (flags & MHD_USE_TLS) ? ", or a certificate or key TLS refuses" : ""));
  }
  const MHD_DaemonInfo* info = MHD_get_daemon_info(server->daemon_, MHD_DAEMON_INFO_BIND_PORT);
  server->port_ = info != nullptr ? info->port : o.port;
  return server;
}

}  // namespace mirra::http
