// Feeds arbitrary bytes through the broker's request path as one connection's byte stream,
// in-process: size prefix (checked against socket.request.max.bytes), frame, envelope,
// routing, and the handlers that exist. Each request runs to completion on an io_context, as
// it would on the core thread; a "close" outcome ends the stream, as it ends a connection.
// Responses must be well-formed frames: a size prefix matching their length.
#include <cstdint>
#include <cstdlib>

#include "server/dispatch.h"

using namespace mirra;
using namespace mirra::server;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ServerConfig config;
  static BrokerState broker;
  broker.config = &config;
  static const ConnectionInfo conn{1, "fuzz", "PLAINTEXT"};
  constexpr int32_t kMaxRequest = 1 << 20;

  std::span<const uint8_t> stream(data, size);
  for (int requests = 0; requests < 64 && stream.size() >= protocol::kFrameSizeBytes; ++requests) {
    auto frame_size = protocol::read_frame_size(stream, kMaxRequest);
    if (!frame_size.ok()) break;
    stream = stream.subspan(protocol::kFrameSizeBytes);
    if (stream.size() < static_cast<size_t>(frame_size.value())) break;  // truncated frame
    // A copy of exactly the frame, so ASan sees any read past its end.
    protocol::Bytes frame(stream.begin(), stream.begin() + frame_size.value());
    stream = stream.subspan(static_cast<size_t>(frame_size.value()));

    HandlerResult r = dispatch_request_now(frame, conn, broker);  // throws: a crash
    if (!r.ok()) break;  // the broker closes the connection here
    const protocol::Bytes& out = r.value();
    auto n = protocol::read_frame_size(out, INT32_MAX);
    if (out.size() < 8 || !n.ok() || static_cast<size_t>(n.value()) + 4 != out.size()) abort();
  }
  return 0;
}
