// Feeds arbitrary bytes through the broker's whole request path as one connection's byte
// stream, in-process, against a real broker (metadata log, partition logs and shard threads in
// a temporary directory): size prefix (checked against socket.request.max.bytes), frame,
// envelope, routing, and every handler, storage included. A "close" outcome ends the stream,
// as it ends a connection. Responses must be well-formed frames (a size prefix matching their
// length), or nothing at all for Produce with acks=0.
//
// Fetch long polls are capped at 0 ms (BrokerState::max_fetch_wait), group join and sync
// phases too (GroupCoordinator::set_max_phase_wait: a parked SyncGroup waits at most for the
// coordinator's next sweep), and topics at 8 partitions, so that one input cannot stall the
// fuzzer or fill the disk.
#include <cstdint>
#include <cstdlib>

#include "cluster/topic_admin.h"
#include "server/in_process_broker.h"

using namespace mirra;
using namespace mirra::server;

namespace {

InProcessBroker& fuzz_broker() {
  static std::unique_ptr<InProcessBroker> broker = [] {
    auto b = InProcessBroker::start(
        {"num.io.threads=2", "num.partitions=2", "offsets.topic.num.partitions=2"});
    if (!b.ok()) abort();
    b.value()->state().max_fetch_wait = std::chrono::milliseconds(0);
    b.value()->state().groups->set_max_phase_wait(std::chrono::milliseconds(0));
    b.value()->state().topic_admin->set_max_partitions(8);
    return std::move(b.value());
  }();
  return *broker;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  InProcessBroker& broker = fuzz_broker();
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

    HandlerResult r = broker.dispatch(frame);
    if (!r.ok()) break;        // the broker closes the connection here
    if (r->empty()) continue;  // Produce with acks=0
    auto materialized = materialize(r.value());
    if (!materialized.ok()) abort();  // the files it points at are the broker's own
    const protocol::Bytes& out = materialized.value();
    auto n = protocol::read_frame_size(out, INT32_MAX);
    if (out.size() < 8 || !n.ok() || static_cast<size_t>(n.value()) + 4 != out.size()) abort();
  }
  return 0;
}
