// capture_broker: a test tool that records the request frames real Kafka clients send.
//
// A single-threaded poll() listener on 127.0.0.1 that speaks just enough of the protocol (through
// Mirra's generated codecs) for a client to get as far as producing and fetching, and writes every
// request frame it receives (the bytes after the 4-byte size) to
//   <out>/NNN-<ApiName>-v<version>.bin   (NNN counts frames across all connections)
// The golden tests (golden_test.cc) decode those files; capture_all.sh drives the clients.
//
// Answers: ApiVersions (Mirra's advertised ranges; a version above the range gets the v0 layout
// with UNSUPPORTED_VERSION, as KIP-511 asks), Metadata (this listener is broker 1 and the
// controller; any named topic exists with one partition led by 1; "all topics" is the topic
// "golden"), Produce (success with increasing offsets; acks=0 gets no response), InitProducerId
// (producer id 1000, epoch 0), FindCoordinator (this broker), Fetch (no records; the high
// watermark is what was produced), ListOffsets (earliest 0, otherwise the end). Any other API,
// an unsupported version or an undecodable frame is recorded and then the connection closes.
//
// Usage: capture_broker --port P --out DIR [--max-requests N] [--record-limit N]
//   --max-requests N  exit after answering N requests (default: run until SIGTERM/SIGINT)
//   --record-limit N  write only the first N frames to DIR, keep answering afterwards
//   --port 0 picks a free port; the chosen port is printed as "listening on 127.0.0.1:P".
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "capture_handlers.h"
#include "protocol/frame.h"

namespace {

using mirra::protocol::Bytes;

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

struct Options {
  int port = 0;
  std::string out;
  long max_requests = 0;  // 0: unlimited
  long record_limit = 0;  // 0: unlimited
};

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return false;
    std::string v = argv[++i];
    if (a == "--port") o.port = std::atoi(v.c_str());
    else if (a == "--out") o.out = v;
    else if (a == "--max-requests") o.max_requests = std::atol(v.c_str());
    else if (a == "--record-limit") o.record_limit = std::atol(v.c_str());
    else return false;
  }
  return !o.out.empty() && o.port >= 0 && o.port < 65536;
}

struct Connection {
  int fd = -1;
  Bytes in;  // bytes read but not yet consumed as whole frames
};

class CaptureServer {
 public:
  CaptureServer(Options o, int port) : opts_(std::move(o)), broker_(port) {}

  // Reads what is available; handles every complete frame. False: close the connection.
  bool on_readable(Connection& c) {
    uint8_t buf[65536];
    const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    c.in.insert(c.in.end(), buf, buf + n);
    size_t pos = 0;
    bool keep = true;
    while (keep && c.in.size() - pos >= mirra::protocol::kFrameSizeBytes) {
      auto size = mirra::protocol::read_frame_size({c.in.data() + pos, 4}, 100 << 20);
      if (!size) return false;
      const size_t total = 4 + static_cast<size_t>(*size);
      if (c.in.size() - pos < total) break;
      keep = handle_frame(c, {c.in.data() + pos + 4, static_cast<size_t>(*size)});
      pos += total;
    }
    c.in.erase(c.in.begin(), c.in.begin() + static_cast<std::ptrdiff_t>(pos));
    return keep;
  }

  bool done() const { return opts_.max_requests > 0 && handled_ >= opts_.max_requests; }

 private:
  bool handle_frame(Connection& c, std::span<const uint8_t> frame) {
    ++handled_;
    auto env = mirra::protocol::decode_request_envelope(frame);
    const int16_t key = frame.size() >= 2 ? static_cast<int16_t>(frame[0] << 8 | frame[1]) : -1;
    const int16_t version = frame.size() >= 4 ? static_cast<int16_t>(frame[2] << 8 | frame[3]) : -1;
    record(frame, key, version);
    if (!env) {
      std::fprintf(stderr, "capture_broker: bad request header: %s\n",
                   env.status().to_string().c_str());
      return false;
    }
    std::optional<Bytes> reply = broker_.handle(*env);
    if (broker_.close_requested()) {
      std::fprintf(stderr, "capture_broker: closing after api %d v%d: %s\n", key, version,
                   broker_.close_reason().c_str());
      return false;
    }
    if (reply && !send_all(c.fd, *reply)) return false;
    return true;
  }

  void record(std::span<const uint8_t> frame, int16_t key, int16_t version) {
    if (opts_.record_limit > 0 && recorded_ >= opts_.record_limit) return;
    const auto* api = mirra::protocol::find_api(key);
    const std::string name = api ? std::string(api->name) : "Unknown" + std::to_string(key);
    char file[256];
    std::snprintf(file, sizeof file, "%03ld-%s-v%d.bin", ++recorded_, name.c_str(), version);
    std::ofstream f(std::filesystem::path(opts_.out) / file, std::ios::binary);
    f.write(reinterpret_cast<const char*>(frame.data()),
            static_cast<std::streamsize>(frame.size()));
  }

  static bool send_all(int fd, const Bytes& b) {
    size_t off = 0;
    while (off < b.size()) {
      const ssize_t n = ::send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }

  Options opts_;
  golden::CaptureHandlers broker_;
  long handled_ = 0;
  long recorded_ = 0;
};

int listen_on(int port, int& bound_port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0) {
    ::close(fd);
    return -1;
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  bound_port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  if (!parse_options(argc, argv, opts)) {
    std::fprintf(
        stderr, "usage: capture_broker --port P --out DIR [--max-requests N] [--record-limit N]\n");
    return 2;
  }
  std::filesystem::create_directories(opts.out);
  int port = 0;
  const int listener = listen_on(opts.port, port);
  if (listener < 0) {
    std::fprintf(stderr, "capture_broker: cannot listen on 127.0.0.1:%d: %s\n", opts.port,
                 std::strerror(errno));
    return 1;
  }
  std::printf("listening on 127.0.0.1:%d\n", port);
  std::fflush(stdout);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);

  CaptureServer server(opts, port);
  std::map<int, Connection> conns;
  while (!g_stop && !server.done()) {
    std::vector<pollfd> fds{{listener, POLLIN, 0}};
    for (auto& [fd, c] : conns) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 200) < 0) continue;  // EINTR on SIGTERM
    if (fds[0].revents & POLLIN) {
      const int fd = ::accept(listener, nullptr, nullptr);
      if (fd >= 0) conns[fd] = Connection{fd, {}};
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Connection& c = conns[fds[i].fd];
      if (!server.on_readable(c)) {
        ::close(c.fd);
        conns.erase(fds[i].fd);
      }
      if (server.done()) break;
    }
  }
  for (auto& [fd, c] : conns) ::close(fd);
  ::close(listener);
  return 0;
}
