// http/http_server.h over a real socket on loopback: routing, the refusals (404, 405, 413,
// 431), HEAD, basic auth with its challenge, and a stalled client that does not hold up others.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "http/http_server.h"

namespace mirra::http {
namespace {

// A connected socket to 127.0.0.1:port with a 10 s receive timeout; -1 on failure.
int dial(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` and reads until the server closes (every request says Connection: close).
std::string round_trip(uint16_t port, const std::string& request) {
  const int fd = dial(port);
  if (fd < 0) return "connect failed";
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer and close before reading everything
    sent += static_cast<size_t>(n);
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

std::string get(uint16_t port, const std::string& path, const std::string& extra = "") {
  return round_trip(port, "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + extra +
                              "\r\n");
}

int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return -1;
  return std::stoi(response.substr(9, 3));
}

std::string body_of(const std::string& response) {
  const size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

std::unique_ptr<HttpServer> start(ServerOptions options = {}) {
  std::map<std::string, Handler> routes;
  routes["/hello"] = [](const Request& r) {
    Response out =
        text_response(200, "hello " + (r.query.count("who") ? r.query.at("who") : "") + "\n");
    return out;
  };
  auto s = HttpServer::start(std::move(options), std::move(routes));
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s.value()) : nullptr;
}

TEST(HttpServer, RoutesAndRefusals) {
  auto server = start();
  ASSERT_TRUE(server);
  ASSERT_NE(server->port(), 0);
  const std::string ok = get(server->port(), "/hello?who=kafka");
  EXPECT_EQ(status_of(ok), 200) << ok;
  EXPECT_EQ(body_of(ok), "hello kafka\n");
  EXPECT_EQ(status_of(get(server->port(), "/nope")), 404);
  EXPECT_EQ(status_of(get(server->port(), "/hello/")), 404);
  EXPECT_EQ(status_of(round_trip(server->port(),
                                 "POST /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                                 "Content-Length: 3\r\n\r\nabc")),
            405);
  EXPECT_EQ(status_of(get(server->port(), "/hello", "Content-Length: 5\r\n")), 413);
  const std::string head =
      round_trip(server->port(), "HEAD /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(head), 200) << head;
  EXPECT_EQ(body_of(head), "");
}

TEST(HttpServer, HugeHeadersAreRefusedWith431) {
  auto server = start();
  ASSERT_TRUE(server);
  const std::string big = "X-Big: " + std::string(100'000, 'a') + "\r\n";
  EXPECT_EQ(status_of(get(server->port(), "/hello", big)), 431);
  EXPECT_EQ(status_of(get(server->port(), "/hello")), 200);  // and the server goes on
}

TEST(HttpServer, AStalledClientDoesNotHoldUpOthers) {
  auto server = start();
  ASSERT_TRUE(server);
  const int stalled = dial(server->port());
  ASSERT_GE(stalled, 0);
  const std::string half = "GET /hello HTTP/1.1\r\nHost: t\r\n";
  ASSERT_EQ(::send(stalled, half.data(), half.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(half.size()));
  const auto before = std::chrono::steady_clock::now();
  EXPECT_EQ(status_of(get(server->port(), "/hello")), 200);
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
  ::close(stalled);
}

TEST(HttpServer, BasicAuthChallengesAndChecks) {
  ServerOptions options;
  options.authenticate = [](const std::string& user, const std::string& password) {
    return user == "alice" && password == "secret";
  };
  auto server = start(std::move(options));
  ASSERT_TRUE(server);
  const std::string none = get(server->port(), "/hello");
  EXPECT_EQ(status_of(none), 401);
  EXPECT_NE(none.find("WWW-Authenticate: Basic realm=\"mirra\""), std::string::npos) << none;
  // alice:wrong and alice:secret in base64.
  EXPECT_EQ(status_of(get(server->port(), "/hello", "Authorization: Basic YWxpY2U6d3Jvbmc=\r\n")),
            401);
  EXPECT_EQ(status_of(get(server->port(), "/hello", "Authorization: Basic YWxpY2U6c2VjcmV0\r\n")),
            200);
  // Unknown paths are not revealed before authentication.
  EXPECT_EQ(status_of(get(server->port(), "/nope")), 401);
}

TEST(HttpServer, BadHostAndPortInUseAreErrors) {
  ServerOptions bad;
  bad.host = "not-an-address";
  EXPECT_FALSE(HttpServer::start(bad, {}).ok());
  auto first = start();
  ASSERT_TRUE(first);
  ServerOptions same;
  same.port = first->port();
  auto second = HttpServer::start(same, {});
  EXPECT_FALSE(second.ok());
}

}  // namespace
}  // namespace mirra::http
